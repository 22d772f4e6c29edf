import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { constants as zlib, crc32, deflateRawSync } from 'node:zlib';
import { boundedLru } from './bounded-lru.ts';
import { deflatePagePart } from './page-deflate.ts';

/** Logical asset name (`main.js`, `app.css`) → public, content-hashed URL. Written by scripts/build.mjs. */
export type AssetManifest = Record<string, string>;

export function loadManifest(assetsDir: string): AssetManifest {
  const file = path.resolve(assetsDir, 'manifest.json');
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as AssetManifest;
  } catch {
    throw new Error(`Asset manifest missing at ${file}: run "npm run build" first`);
  }
}

/** The guest screens' stylesheet the build writes next to the manifest (scripts/guest-css.mjs, decision 195). */
export const GUEST_CSS_FILE = 'guest-inline.css';

/** The script every page's head carries inline, written by the build next to the manifest (client/first-paint.ts, decision 210). */
export const FIRST_PAINT_FILE = 'first-paint.js';

/** Islands built as one file for the pages that always show them (decision 220), by entry name: the profile page's (client/profile.ts) and any other signed-in page's (client/live-session.ts). */
export const ISLAND_BUNDLES = { profile: 'client/profile.ts', 'live-session': 'client/live-session.ts' } as const;
export type IslandBundle = keyof typeof ISLAND_BUNDLES;

/** Which island entries each such bundle holds (`profile` → [`avatar`, …]), written by the build next to the manifest. */
export const ISLAND_BUNDLES_FILE = 'island-bundles.json';

/**
 * The islands' script addresses for the pages that load a bundle: each island the bundle holds points
 * at the bundle's file (its script tags then name one file, fetched and run once). A build without
 * bundles (a test's own manifest) gives none, and those pages load each island on its own.
 */
export function bundledIslandScripts(assetsDir: string, islandScripts: Readonly<Record<string, string>>): Record<string, Record<string, string>> {
  let bundles: Record<string, string[]>;
  try {
    bundles = JSON.parse(readFileSync(path.resolve(assetsDir, ISLAND_BUNDLES_FILE), 'utf8')) as Record<string, string[]>;
  } catch {
    return {};
  }
  return Object.fromEntries(
    Object.entries(bundles)
      .filter(([bundle]) => islandScripts[bundle])
      .map(([bundle, islands]) => [bundle, { ...islandScripts, ...Object.fromEntries(islands.map((island) => [island, islandScripts[bundle]!])) }]),
  );
}

/**
 * A text the build wrote next to the manifest for pages to inline, or '' when it wrote none (a test's own
 * manifest): without the guest CSS every page links the full stylesheet; without the first-paint script
 * pages carry no head script.
 */
export function loadInlined(assetsDir: string, file: typeof GUEST_CSS_FILE | typeof FIRST_PAINT_FILE): string {
  try {
    return readFileSync(path.resolve(assetsDir, file), 'utf8');
  } catch {
    return '';
  }
}

/** What marks a page in the auth card layout (views/components/flow/AuthCard.tsx, AccountDeletedNotice). */
const AUTH_CARD_LAYOUT = '<main class="page page--auth"';
/** The last tag of the document's start that is the same on every page of a language (React puts the charset and viewport first). */
const VIEWPORT_META = '<meta name="viewport"';

/**
 * A guest page as sent: `start`, the guest stylesheet in a <style>, then `rest`. The start is the doctype,
 * <html lang> and the head's two <meta>s: the same for every page in one language, so it and the CSS after it
 * are compressed once (decision 235).
 */
export type GuestPage = { start: string; rest: string };

/** The <style> a guest page carries: no nonce, the CSP allows it by its hash (guestStyleHash), so the start stays the same. */
const guestStyle = (css: string): string => `<style>${css}</style>`;

/** The CSP source that allows the guest stylesheet's <style> (its SHA-256), or undefined without one. */
export function guestStyleHash(css: string | undefined): string | undefined {
  return css ? `'sha256-${createHash('sha256').update(css).digest('base64')}'` : undefined;
}

/**
 * A page in the auth card layout gets the guest stylesheet inline instead of the full stylesheet's link
 * (decision 195): its first paint waits on no request, and the rules it carries are the few KiB those
 * screens use. The <style> goes right after the viewport <meta> (decision 235), ahead of everything that
 * changes per request (the nonced scripts, the title). Other pages keep the link (the full file, cached
 * across pages): for them, undefined.
 */
export function guestPageOf(html: string, assets: { css: string; guestCss?: string }): GuestPage | undefined {
  if (!assets.guestCss || !assets.css) return undefined;
  const link = `<link rel="stylesheet" href="${assets.css}"/>`;
  const at = html.indexOf(link);
  // The layout's mark is in the body, after the link in the head.
  if (at < 0 || !html.includes(AUTH_CARD_LAYOUT, at)) return undefined;
  const viewport = html.indexOf(VIEWPORT_META);
  const startEnd = viewport < 0 || viewport > at ? -1 : html.indexOf('>', viewport) + 1;
  if (startEnd <= 0) return undefined;
  return { start: html.slice(0, startEnd), rest: `${html.slice(startEnd, at)}${html.slice(at + link.length)}` };
}

/** The whole text of a guest page. */
export function guestPageText(page: GuestPage, css: string): string {
  return `${page.start}${guestStyle(css)}${page.rest}`;
}

/**
 * A page's start and the guest <style>, compressed once: raw deflate (sync-flushed), its bytes (what a
 * page's template is deflated after, server/page-templates.ts), their length and CRC-32.
 */
export type CompressedStart = { css: string; deflated: Buffer; bytes: Buffer; length: number; crc: number };
// One start per language (it holds `<html lang>`); an app with another stylesheet (tests run several in one process) replaces its entry.
const compressedStarts = boundedLru<string, CompressedStart>(32);

// What a page needs compressed per request goes through kept node:zlib streams (server/page-deflate.ts,
// decision 245); a guest page that shows nothing anyone entered comes from a kept template instead
// (server/page-templates.ts).
export const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
/** A deflate block that ends the stream after a sync-flushed part: final, fixed Huffman codes, only the end-of-block code. */
export const FINAL_BLOCK = Buffer.from([0x03, 0x00]);

/** The gzip trailer: the CRC-32 and the length (mod 2³²) of everything compressed. */
function gzipTrailer(crc: number, length: number): Buffer {
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc, 0);
  trailer.writeUInt32LE(length >>> 0, 4);
  return trailer;
}

export function compressedStart(start: string, css: string): CompressedStart {
  let compressed = compressedStarts.get(start);
  if (compressed?.css !== css) {
    const bytes = Buffer.from(`${start}${guestStyle(css)}`);
    compressed = { css, deflated: deflateRawSync(bytes, { level: 9, finishFlush: zlib.Z_SYNC_FLUSH }), bytes, length: bytes.length, crc: crc32(bytes) };
    compressedStarts.set(start, compressed);
  }
  return compressed;
}

/**
 * A guest page as one gzip member whose first part, the page's start and the CSS, was deflated at level 9
 * once and kept (decisions 195, 235): only the rest of the page is compressed per request, in one call.
 * Brotli of the whole page would compress the ~20 KB of CSS again every time (~600 µs of CPU at quality 5,
 * as much as the rest of the request). Deflate streams join at a byte boundary when the part before ends
 * with a sync flush; the gzip trailer's CRC-32 continues from the kept part's.
 */
export async function gzipGuestPage(page: GuestPage, css: string): Promise<Buffer> {
  const start = compressedStart(page.start, css);
  const rest = Buffer.from(page.rest);
  const deflated = await deflatePagePart(rest);
  return Buffer.concat([GZIP_HEADER, start.deflated, deflated, FINAL_BLOCK, gzipTrailer(crc32(rest, start.crc), start.length + rest.length)]);
}

/** A whole page (a signed-in one, a fragment) as gzip, compressed like a guest page's rest (decision 245). */
export async function gzipPage(html: string): Promise<Buffer> {
  const bytes = Buffer.from(html);
  return Buffer.concat([GZIP_HEADER, await deflatePagePart(bytes), FINAL_BLOCK, gzipTrailer(crc32(bytes), bytes.length)]);
}
