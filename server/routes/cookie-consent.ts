/**
 * Cookie consent (decision 170): the decision for every page (server/consent/decision.ts) and the
 * banner's choice, POST /cookie-consent `choice=accept|decline`: saved in `cookie_banner_accept` for 360
 * days (spec §9), then back to the page (303) or, for the banner island, JSON `{ accepted }`. Guarded like
 * the other guest forms (requireSameOriginOrCsrf): the banner shows on pages that keep no session of ours.
 * The cookie is readable by scripts (not HttpOnly): it holds a preference, and tags may look at it.
 */
import { Router } from 'express';
import { z } from 'zod';
import { COOKIE_MAX_AGE_DAYS } from '../../core/limits.ts';
import { CONSENT_COOKIE, CONSENT_COOKIE_VALUES } from '../../core/consent.ts';
import { appError, ERROR_CODES } from '../../core/errors.ts';
import { ROUTES } from '../../core/routes.ts';
import { analyticsConfigured, decideCookieConsent } from '../consent/decision.ts';
import { respondRedirect } from '../flows/respond.ts';
import { configOf } from '../request-context.ts';
import { requireSameOriginOrCsrf } from '../security/csrf.ts';
import { sameOriginPath } from './language.ts';

const choiceBody = z.object({ choice: z.enum(['accept', 'decline']), return_to: z.string().max(2048).optional() });

export function cookieConsentRoutes(): Router {
  const router = Router();
  router.use(decideCookieConsent);
  router.post(ROUTES.cookieConsent, requireSameOriginOrCsrf, (req, res, next) => {
    const config = configOf(req);
    const parsed = choiceBody.safeParse(req.body);
    if (!analyticsConfigured(config)) return next(appError(404, ERROR_CODES.notFound, 'notFound'));
    if (!parsed.success) return next(appError(400, ERROR_CODES.validation, 'cookieConsent.invalid'));
    const accepted = parsed.data.choice === 'accept';
    res.cookie(CONSENT_COOKIE, accepted ? CONSENT_COOKIE_VALUES.accepted : CONSENT_COOKIE_VALUES.declined, {
      maxAge: COOKIE_MAX_AGE_DAYS * 24 * 60 * 60 * 1000,
      sameSite: 'lax',
      secure: config.isProduction,
      httpOnly: false,
      path: '/',
    });
    req.log?.info({ accepted }, 'cookie consent chosen');
    respondRedirect(req, res, sameOriginPath(parsed.data.return_to, config.PUBLIC_URL), { accepted });
  });
  return router;
}
