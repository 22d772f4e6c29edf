import { Router, type Request } from 'express';
import { LANGUAGE_COOKIE } from '../i18n.ts';
import type { AppLocals } from '../locals.ts';

/** Spec §9: cookies other than the authentication cookie last 360 days. */
export const LANGUAGE_COOKIE_MAX_AGE_MS = 360 * 24 * 60 * 60 * 1000;

const MAX_RETURN_LENGTH = 2048;
// Controls, whitespace and backslashes: browsers read `/\evil.example` as `//evil.example`.
const UNSAFE = /[\u0000-\u0020\u007f\\]/;

/**
 * A path on this site to go back to, or `/`. Only `/path?query#hash` forms are accepted: no scheme,
 * no host, no protocol-relative `//host`; the result is re-derived from the parsed URL so that what
 * lands in `Location` is exactly what was checked. A stale `lng` is dropped from the query, since
 * it would override the language just chosen.
 */
export function sameOriginPath(raw: unknown, publicUrl: string): string {
  if (typeof raw !== 'string' || raw.length > MAX_RETURN_LENGTH) return '/';
  if (!raw.startsWith('/') || raw.startsWith('//') || UNSAFE.test(raw)) return '/';
  let parsed: URL;
  try {
    parsed = new URL(raw, publicUrl);
  } catch {
    return '/';
  }
  if (parsed.origin !== new URL(publicUrl).origin) return '/';
  parsed.searchParams.delete('lng');
  const path = `${parsed.pathname}${parsed.search}${parsed.hash}`;
  return path.startsWith('//') ? '/' : path;
}

/**
 * GET /language?lng=xx&return_to=/path: remembers the chosen language in the `lng` cookie and goes
 * back with 303. A GET so that the switcher works as a plain link or GET form without JavaScript;
 * it only changes a display preference, so it needs no CSRF token. An unsupported language changes
 * nothing but still returns the visitor.
 */
export function languageRoutes(): Router {
  const router = Router();
  router.get('/language', (req: Request, res) => {
    const { config } = req.app.locals as AppLocals;
    const lng = req.query.lng;
    if (typeof lng === 'string' && (config.LANGUAGES as readonly string[]).includes(lng)) {
      res.cookie(LANGUAGE_COOKIE, lng, {
        maxAge: LANGUAGE_COOKIE_MAX_AGE_MS,
        sameSite: 'lax',
        secure: config.isProduction,
        httpOnly: true,
        path: '/',
      });
    }
    res.set('Cache-Control', 'no-store');
    res.redirect(303, sameOriginPath(req.query.return_to, config.PUBLIC_URL));
  });
  return router;
}
