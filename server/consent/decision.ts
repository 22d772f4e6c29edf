/**
 * The server decides about cookie consent (decision 170), once per page: the saved choice
 * (`cookie_banner_accept`), else the visitor's location, else CONSENT_DEFAULT. The answer goes to the views
 * as `res.locals.consent`: the Consent Mode default in the head, the banner, and whether the analytics
 * island and the tag manager load. Without GTM_ID or LOG_SERVICE_URL there is nothing non-essential,
 * so nothing is decided, rendered or looked up.
 */
import type { Request, RequestHandler, Response } from 'express';
import { CONSENT_COOKIE, decideConsent, type ConsentDecision } from '../../core/consent.ts';
import type { Config } from '../config.ts';
import { configOf } from '../request-context.ts';
import { knownLocation, visitorLocation } from './location.ts';

export const analyticsConfigured = (config: Config): boolean => Boolean(config.GTM_ID || config.LOG_SERVICE_URL);

const savedChoice = (req: Request): string | undefined => {
  const value = (req.cookies as Record<string, unknown> | undefined)?.[CONSENT_COOKIE];
  return typeof value === 'string' ? value : undefined;
};

/** GET pages wait for the location (bounded by its deadline); other requests use what is known at once. */
export const decideCookieConsent: RequestHandler = async (req, res, next) => {
  const config = configOf(req);
  if (!analyticsConfigured(config)) return next();
  const saved = savedChoice(req);
  const askByDefault = config.CONSENT_DEFAULT === 'ask';
  const decided = decideConsent({ saved, askByDefault });
  if (decided.source === 'cookie') {
    res.locals.consent = decided;
    return next();
  }
  const page = req.method === 'GET' && req.accepts(['html', 'json']) === 'html';
  const location = page ? await visitorLocation(req, config) : knownLocation(req, config);
  res.locals.consent = decideConsent({ saved, location, askByDefault });
  next();
};

/** The decision for this response, made now from what is known when the middleware did not run. */
export function consentOf(req: Request, res: Response): ConsentDecision | undefined {
  const config = configOf(req);
  if (!analyticsConfigured(config)) return undefined;
  const known = res.locals.consent as ConsentDecision | undefined;
  return known ?? decideConsent({ saved: savedChoice(req), location: knownLocation(req, config), askByDefault: config.CONSENT_DEFAULT === 'ask' });
}
