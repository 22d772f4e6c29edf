import type { ReactNode } from 'react';
import { IslandChrome } from '../components/IslandChrome.tsx';
import { LanguageSwitcher } from '../components/LanguageSwitcher.tsx';
import { LiveSession } from '../components/LiveSession.tsx';
import { OneTap } from '../components/OneTap.tsx';
import { ThemeSwitcher } from '../components/ThemeSwitcher.tsx';
import { FAVICON_DATA_URI } from '../components/BrandLogo.tsx';
import { ConsentDefault } from '../components/consent/ConsentDefault.tsx';
import { CookieConsent } from '../components/consent/CookieConsent.tsx';
import { useView } from '../context.ts';

/** `oneTap`: the One Tap island, an entry of its own, loaded only by a page that shows its form. */
/** `appBridge`: the mobile gateway's web view bridge, loaded by its callback page only (decision 140). */
/** `guestCss`: the auth card screens' stylesheet, inlined on them in place of the `css` link (server/assets.ts, decision 195). */
/** `firstPaint`: the script inlined in the head (client/first-paint.ts, decision 210): the theme, its switcher and the password toggles from the first paint. */
export type DocumentAssets = { css: string; js: string; oneTap?: string; appBridge?: string; guestCss?: string; firstPaint?: string };

export const FAVICON_VERSION = 2;

/**
 * BRAND_ACCENT_COLOR as the theme's primary colour (config checks it is #rrggbb, so it is safe in CSS):
 * as given on light, lightened for dark, the darker and dimmer shades mixed from it.
 */
function accentStyle(color: string): string {
  return (
    `:root{--primary:${color};--primary-dark:color-mix(in srgb,${color} 78%,#000);--primary-dim:color-mix(in srgb,${color} 12%,#fff);--info:${color}}` +
    `[data-theme=dark]{--primary:color-mix(in srgb,${color} 60%,#fff);--primary-dark:color-mix(in srgb,${color} 40%,#fff);--primary-dim:color-mix(in srgb,${color} 22%,#111418)}`
  );
}

/** The id of the element the first paint waits for: the footer, the last one in every page's body. */
const LAST_ELEMENT_ID = 'site-footer';

export function Document(props: { title: string; canonical: string; assets: DocumentAssets; children: ReactNode }) {
  const { lang, nonce, toasts, oneTap, liveSession, brand, address } = useView();
  const v = `?v=${FAVICON_VERSION}`;
  return (
    <html lang={lang} data-theme="light">
      <head>
        <meta charSet="utf-8" />
        {/* Scale 1 on load (spec §2), but never a cap on zoom: people must be able to pinch-zoom (WCAG 1.4.4). */}
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{props.title}</title>
        <link rel="canonical" href={props.canonical} />
        {/* In the page itself (decision 195): no request for an icon; /favicon.ico stays served for other clients. */}
        <link rel="icon" href={FAVICON_DATA_URI} type="image/svg+xml" />
        <link rel="apple-touch-icon" href={`/apple-touch-icon.png${v}`} />
        {/* Consent Mode's default before any tag (spec §4). */}
        <ConsentDefault />
        {/* Before the stylesheet: a stored dark theme is set before anything is painted. */}
        {props.assets.firstPaint ? <script nonce={nonce} dangerouslySetInnerHTML={{ __html: props.assets.firstPaint }} /> : null}
        {/* On guest pages the server drops this link and inlines the guest stylesheet right after the viewport <meta> instead (decision 235). */}
        {props.assets.css ? <link rel="stylesheet" href={props.assets.css} /> : null}
        {/* No paint until the footer, the page's last element, is parsed (decision 246): one whole first paint instead of a part of the page and then a long task laying out the rest. */}
        {/* eslint-disable-next-line react/no-unknown-property -- HTML's `blocking` attribute, which React passes through and the plugin's list of attributes lacks */}
        <link rel="expect" href={`#${LAST_ELEMENT_ID}`} blocking="render" />
        {/* After the stylesheet, whose :root sets the default colours: the operator's accent must come later to win. */}
        {brand.accentColor ? <style nonce={nonce} dangerouslySetInnerHTML={{ __html: accentStyle(brand.accentColor) }} /> : null}
        {/* Async (decision 200): the browser's DOMContentLoaded work comes before first paint, not in the script's task. React moves it up the head. */}
        {props.assets.js ? <script type="module" async nonce={nonce} src={props.assets.js} /> : null}
        {oneTap && props.assets.oneTap ? <script type="module" nonce={nonce} src={props.assets.oneTap} /> : null}
      </head>
      {/* A flow made for this request: the enhance island puts its address in the address bar, so a reload reuses it (decision 190). */}
      <body data-address={address}>
        <IslandChrome toasts={toasts} />
        <CookieConsent />
        {props.children}
        {oneTap ? <OneTap offer={oneTap} /> : null}
        {liveSession ? <LiveSession {...liveSession} /> : null}
        <footer className="site-footer" id={LAST_ELEMENT_ID}>
          <LanguageSwitcher id="site-language" />
          {/* Light, dark or auto on every page (spec §2); shown by the first-paint script, since the choice lives in the browser's storage. */}
          <ThemeSwitcher />
        </footer>
      </body>
    </html>
  );
}
