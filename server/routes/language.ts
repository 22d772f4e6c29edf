import { Router, type Request } from 'express';
import { LANGUAGE_COOKIE } from '../i18n.ts';
import type { AppLocals } from '../locals.ts';
import { safeReturnTo } from '../security/return-to.ts';
import { ROUTES } from '../../core/routes.ts';

/** Spec §9: cookies other than the authentication cookie last 360 days. */
export const LANGUAGE_COOKIE_MAX_AGE_MS = 360 * 24 * 60 * 60 * 1000;

/**
 * A path on this site to go back to, or `/`. Only relative `/path?query#hash` values are considered,
 * and they go through the app's return_to checks (server/security/return-to.ts) with this site as
 * the only allowed target. A stale `lng` is dropped from the query, since it would override the
 * language just chosen.
 */
export function sameOriginPath(raw: unknown, publicUrl: string): string {
  if (typeof raw !== 'string' || !raw.startsWith('/')) return '/';
  const safe = safeReturnTo(raw, { PUBLIC_URL: publicUrl, allowedReturnUrls: [new URL(publicUrl)] });
  if (!safe) return '/';
  const url = new URL(safe);
  if (url.searchParams.has('lng')) url.searchParams.delete('lng');
  const path = `${url.pathname}${url.search}${url.hash}`;
  // `/.//host` parses to the path `//host`, which a Location header would read as another host.
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
  router.get(ROUTES.language, (req: Request, res) => {
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
