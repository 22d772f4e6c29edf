import { readFileSync } from 'node:fs';
import path from 'node:path';
import { constants as zlib, crc32, deflateRawSync } from 'node:zlib';

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

/** A page split where its guest stylesheet goes: `before` ends with the opening <style>, `after` starts with its end. */
export type AroundGuestCss = { before: string; after: string };

/**
 * A page in the auth card layout gets the guest stylesheet in a nonced <style> instead of the full
 * stylesheet's link (decision 195): its first paint waits on no request, and the rules it carries are
 * the few KiB those screens use. Other pages keep the link (the full file, cached across pages): for
 * them, undefined. The page is returned in two parts around the CSS, so the ~20 KB of CSS is neither
 * copied into a new string nor searched for again when the page is compressed (gzipAroundCss).
 */
export function aroundGuestCss(html: string, assets: { css: string; guestCss?: string }, nonce: string): AroundGuestCss | undefined {
  if (!assets.guestCss || !assets.css) return undefined;
  const link = `<link rel="stylesheet" href="${assets.css}"/>`;
  const at = html.indexOf(link);
  // The layout's mark is in the body, after the link in the head.
  if (at < 0 || !html.includes(AUTH_CARD_LAYOUT, at)) return undefined;
  return { before: `${html.slice(0, at)}<style nonce="${nonce}">`, after: `</style>${html.slice(at + link.length)}` };
}

/** The guest CSS compressed once: its bytes, raw deflate, CRC-32 from 0, and how its CRC moves any start value. */
type DeflatedPart = { text: string; bytes: Buffer; deflated: Buffer; crc: number; shift: Uint32Array };
let deflatedGuestCss: DeflatedPart | undefined;

// A small window and memory level compress our pages as well as the defaults do. Level 2, not 6: the
// page around the CSS (~9 KB) compresses in ~100 µs instead of ~210–240 µs for ~130 B more (3.6 %;
// /sign-up, 2026-11-27), and that compression was the largest single cost of a sign-in page.
const GZIP_PAGE = { level: 2, windowBits: 13, memLevel: 6 };
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);

/**
 * CRC-32 is linear: crc32(part, start) = crc32(part, 0) XOR S(start), where S is "run the register
 * through as many zero bytes as the part has", a fixed 32×32 bit matrix. Its 32 columns are computed
 * once with the CSS, so each page's CRC steps over the CSS in 32 XORs instead of reading its ~20 KB.
 */
function crcShiftOver(length: number): Uint32Array {
  const zeros = Buffer.alloc(length);
  const fromZero = crc32(zeros, 0);
  return Uint32Array.from({ length: 32 }, (_, bit) => (crc32(zeros, 2 ** bit) ^ fromZero) >>> 0);
}

function crcAcross(part: DeflatedPart, start: number): number {
  let crc = part.crc;
  for (let bit = 0; bit < 32; bit++) if ((start >>> bit) & 1) crc ^= part.shift[bit]!;
  return crc >>> 0;
}

function deflatedOnce(css: string): DeflatedPart {
  if (deflatedGuestCss?.text !== css) {
    const bytes = Buffer.from(css);
    const deflated = deflateRawSync(bytes, { level: 9, finishFlush: zlib.Z_SYNC_FLUSH });
    deflatedGuestCss = { text: css, bytes, deflated, crc: crc32(bytes), shift: crcShiftOver(bytes.length) };
  }
  return deflatedGuestCss;
}

/**
 * A page that carries `css` (the guest stylesheet, the same on every request) as one gzip member whose
 * middle is that CSS deflated once, at level 9, and kept (decision 195): only the page around it is
 * compressed per request. Brotli of the whole page would compress the ~20 KB of CSS again every time
 * (~600 µs of CPU at quality 5, as much as the rest of the request); this costs what the page alone
 * does. Deflate streams join at a byte boundary when the parts before the last end with a sync flush;
 * the gzip trailer's CRC-32 continues across the parts. Undefined when `css` is not in `html`.
 */
export function gzipAroundCss(html: string, css: string): Buffer | undefined {
  const at = html.indexOf(css);
  if (at < 0 || !css) return undefined;
  return gzipAround({ before: html.slice(0, at), after: html.slice(at + css.length) }, css);
}

/** gzipAroundCss of a page already split around the CSS (aroundGuestCss). */
export function gzipAround(page: AroundGuestCss, css: string): Buffer {
  const middle = deflatedOnce(css);
  const before = Buffer.from(page.before);
  const after = Buffer.from(page.after);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc32(after, crcAcross(middle, crc32(before))), 0);
  trailer.writeUInt32LE((before.length + middle.bytes.length + after.length) >>> 0, 4);
  return Buffer.concat([
    GZIP_HEADER,
    deflateRawSync(before, { ...GZIP_PAGE, finishFlush: zlib.Z_SYNC_FLUSH }),
    middle.deflated,
    deflateRawSync(after, GZIP_PAGE),
    trailer,
  ]);
}
