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

/** The guest stylesheet's rules, or '' when the build wrote none (every page then links the full one). */
export function loadGuestCss(assetsDir: string): string {
  try {
    return readFileSync(path.resolve(assetsDir, GUEST_CSS_FILE), 'utf8');
  } catch {
    return '';
  }
}

/** What marks a page in the auth card layout (views/components/flow/AuthCard.tsx, AccountDeletedNotice). */
const AUTH_CARD_LAYOUT = '<main class="page page--auth"';

/**
 * A page in the auth card layout gets the guest stylesheet in a nonced <style> instead of the full
 * stylesheet's link (decision 195): its first paint waits on no request, and the rules it carries are
 * the few KiB those screens use. Other pages keep the link (the full file, cached across pages).
 */
export function inlineGuestCss(html: string, assets: { css: string; guestCss?: string }, nonce: string): string {
  if (!assets.guestCss || !assets.css || !html.includes(AUTH_CARD_LAYOUT)) return html;
  const link = `<link rel="stylesheet" href="${assets.css}"/>`;
  // A function as the replacement: `$` in the CSS must not read as a replacement pattern.
  return html.replace(link, () => `<style nonce="${nonce}">${assets.guestCss}</style>`);
}

type DeflatedPart = { text: string; bytes: Buffer; deflated: Buffer };
let deflatedGuestCss: DeflatedPart | undefined;

// As renderPage's gzip: a small window and memory level compress our pages as well as the defaults do.
const GZIP_PAGE = { level: 6, windowBits: 13, memLevel: 6 };
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);

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
  if (deflatedGuestCss?.text !== css) {
    const bytes = Buffer.from(css);
    deflatedGuestCss = { text: css, bytes, deflated: deflateRawSync(bytes, { level: 9, finishFlush: zlib.Z_SYNC_FLUSH }) };
  }
  const middle = deflatedGuestCss;
  const before = Buffer.from(html.slice(0, at));
  const after = Buffer.from(html.slice(at + css.length));
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc32(after, crc32(middle.bytes, crc32(before))) >>> 0, 0);
  trailer.writeUInt32LE((before.length + middle.bytes.length + after.length) >>> 0, 4);
  return Buffer.concat([
    GZIP_HEADER,
    deflateRawSync(before, { ...GZIP_PAGE, finishFlush: zlib.Z_SYNC_FLUSH }),
    middle.deflated,
    deflateRawSync(after, GZIP_PAGE),
    trailer,
  ]);
}
