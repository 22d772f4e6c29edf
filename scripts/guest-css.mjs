// The guest auth screens' stylesheet (decision 195): only the rules the pages in the auth card layout can
// use, found by PurgeCSS from the views and islands those pages render, minified. The server inlines it in
// a <style> on those pages (allowed by its hash, decision 235), so their first paint waits on no stylesheet request; every other page
// links the full, cacheable stylesheet.
import { PurgeCSS } from 'purgecss';
import * as esbuild from 'esbuild';

/** The sources whose class names the guest screens can carry (server-rendered or added by an island). */
export const GUEST_CONTENT = [
  'views/layout/**/*.tsx',
  'views/components/*.{ts,tsx}',
  'views/components/flow/**/*.{ts,tsx}',
  'views/components/consent/**/*.tsx',
  // Shown in the auth card layout after an account is deleted.
  'views/components/profile/AccountDeletedNotice.tsx',
  'views/pages/*.tsx',
  'client/**/*.ts',
];

/** Signed-in and kit-only sources: their classes stay in the full stylesheet only. */
const NOT_GUEST = ['views/pages/ProfileSettingsPage.tsx', 'views/pages/KitPage.tsx', 'client/avatar.ts', 'client/islands/avatar.ts', 'client/lib/avatar.ts'];

/**
 * Class names built from a variable (`btn--${variant}`, `toast--${variant}`, …): the extractor sees only
 * the prefix, so every modifier of these blocks is kept.
 */
const DYNAMIC_MODIFIERS = /^(btn|toast|popover|dialog|dialog__icon|progress|tooltip|alert|avatar)--/;

/** Returns the minified guest stylesheet for the bundled full stylesheet `css`. */
export async function guestStylesheet(css) {
  const [purged] = await new PurgeCSS().purge({
    content: GUEST_CONTENT,
    skippedContentGlobs: NOT_GUEST,
    css: [{ raw: css }],
    // Class names in JSX/TS strings: words with `-` and `_` (BEM), as the default extractor sees them.
    defaultExtractor: (text) => text.match(/[A-Za-z0-9_-]+/g) ?? [],
    // The focus ring is a bare `:focus-visible` rule, which names no class the content could keep.
    safelist: { standard: [DYNAMIC_MODIFIERS], greedy: [/focus-visible/] },
    // Themes, states and the script mark are set as attributes by the head script and the islands (`data-theme`,
    // `data-js`, `aria-*`, `open`): keep them.
    dynamicAttributes: ['data-theme', 'aria-expanded', 'aria-invalid', 'aria-busy', 'aria-hidden', 'aria-current', 'open', 'hidden', 'data-js'],
    keyframes: true,
    variables: true,
    fontFace: true,
  });
  const { code } = await esbuild.transform(purged.css, { loader: 'css', minify: true, target: ['chrome80', 'safari13'], legalComments: 'none' });
  return code.trim();
}
