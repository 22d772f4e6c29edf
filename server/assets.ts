import { readFileSync } from 'node:fs';
import path from 'node:path';

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
