import type { OneTapOffer } from './components/OneTap.tsx';
import type { ToastItem } from './components/Toasts.tsx';
import type { LiveSessionView } from './components/LiveSession.tsx';
import type { ConsentView } from './components/consent/CookieConsent.tsx';
import { createContext, useContext } from 'react';

/** What every view may need from the request: language, translations, CSP nonce, CSRF token. */
export type ViewContext = {
  lang: string;
  languages: readonly string[];
  t: (key: string, options?: Record<string, unknown>) => string;
  nonce: string;
  /** Path and query of the current request, for language links and canonical URLs. */
  url: string;
  /** A page showing a flow made for this request: the flow's address, for the address bar (decision 190). */
  address?: string;
  csrfToken?: string;
  requestId?: string;
  /** Toasts to show on this page (set by a route in `res.locals.toasts`); the shell renders them. */
  toasts?: ToastItem[];
  /** Google One Tap on this page (set by server/routes/google-one-tap.ts in `res.locals.oneTap`). */
  oneTap?: OneTapOffer;
  /** The product's name and logo (BRAND_NAME, BRAND_LOGO_URL) and accent colour (BRAND_ACCENT_COLOR), on every auth screen. */
  brand: Brand;
  /** Built islands of their own (logical name → URL), loaded by the markup that needs them (IslandScript). */
  islandScripts?: Readonly<Record<string, string>>;
  /**
   * The island script addresses this render has written so far: several islands of one bundle share its
   * address, and the page needs its tag once (IslandScript). A new set per render.
   */
  writtenScripts?: Set<string>;
  /** Signed-in pages: the live-session island and its session-changed dialog (views/components/LiveSession.tsx). */
  liveSession?: LiveSessionView;
  /** Cookie consent and analytics, when configured (server/consent/view.ts, decision 170). */
  consent?: ConsentView;
};

export type Brand = { name: string; logoUrl: string; accentColor?: string };

export const ViewContextReact = createContext<ViewContext | null>(null);

export function useView(): ViewContext {
  const value = useContext(ViewContextReact);
  if (!value) throw new Error('useView() outside a rendered page');
  return value;
}

export function useT(): ViewContext['t'] {
  return useView().t;
}
