import type { Request, Response } from 'express';
import type { ConsentView } from '../../views/components/consent/CookieConsent.tsx';
import { configOf } from '../request-context.ts';
import { consentOf } from './decision.ts';

/** What the views get about consent for this page; undefined when analytics is not configured. */
export function consentView(req: Request, res: Response): ConsentView | undefined {
  const decision = consentOf(req, res);
  if (!decision) return undefined;
  const config = configOf(req);
  let gtmSrc: string | undefined;
  if (config.GTM_ID) {
    const url = new URL(config.GTM_SCRIPT_URL);
    url.searchParams.set('id', config.GTM_ID);
    gtmSrc = url.toString();
  }
  return { allowed: decision.allowed, banner: decision.banner, gtmSrc, logUrl: config.LOG_SERVICE_URL };
}
