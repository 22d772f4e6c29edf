/**
 * Social sign-in hand-off (spec §4): on `browser_location_change_required` the browser goes to
 * `redirect_browser_to`; for Google we add `login_hint` with the address we know, so Google preselects
 * the account (Kratos no longer forwards login_hint itself, contract §14.3).
 *
 *   socialRedirect(url, provider, email?)               → the URL to send the browser to
 *   answerProviderRedirect(req, res, outcome, provider, email?) → browsers go there; JSON callers get
 *                                                        422 browser_location_change_required with it
 */
import type { Request, Response } from 'express';
import { mapIdentityProviderError } from '../../core/kratos/messages.ts';
import { errorBody } from '../../core/errors.ts';
import { translator } from '../request-context.ts';
import type { SubmitOutcome } from './kratos.ts';
import { respondRedirect, responseMode } from './respond.ts';

const GOOGLE_HOSTS = new Set(['accounts.google.com']);

export function socialRedirect(url: string, provider: string | undefined, email: string | undefined): string {
  if (!email) return url;
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return url;
  }
  const isGoogle = provider === 'google' || GOOGLE_HOSTS.has(target.hostname);
  if (!isGoogle || target.searchParams.has('login_hint')) return url;
  target.searchParams.set('login_hint', email);
  return target.href;
}

export function answerProviderRedirect(
  req: Request,
  res: Response,
  outcome: Extract<SubmitOutcome, { type: 'location' }>,
  provider: string | undefined,
  email: string | undefined,
): void {
  const to = socialRedirect(outcome.redirectTo, provider, email);
  if (responseMode(req) !== 'json') return respondRedirect(req, res, to);
  const error = mapIdentityProviderError(422, { ...outcome.body, redirect_browser_to: to }, translator(req));
  res.status(422).set('Cache-Control', 'no-store').json(errorBody(error));
}
