/**
 * "No thanks, sign out" on the restore offer that an app's consent led to (decision 254). The consent
 * page sends an account waiting for deletion to the offer with the consent as its way back
 * (deletion-pending.ts); signing out from there used to leave the app waiting on a consent nobody would
 * answer. Now the sign-out link names the consent, and the sign-out answers it as Deny would: the app
 * hears access_denied, and the browser ends at the app's redirect URI through Hydra instead of our
 * sign-in page.
 *
 *   signOutHrefFor(req, returnTo)       /logout, with ?consent_challenge= when returnTo is our consent page
 *                                       (consentChallengeIn)
 *   consentToDeny(req, res, challenge)  the consent request when it is the signed-in person's, else undefined
 *   denyConsent(req, challenge)         Hydra's redirect_to once rejected; undefined when Hydra refused
 *                                       (expired, handled, unreachable): the sign-out goes on regardless
 */
import type { OAuth2ConsentRequest } from '@ory/client';
import type { Request, Response } from 'express';
import { pathWithQuery, ROUTES } from '../../core/routes.ts';
import { whoami } from '../flows/kratos.ts';
import { DENIED_CONSENT, isChallenge, oauth2Admin, oauth2Failure } from '../oauth2.ts';
import { configOf } from '../request-context.ts';

/** The consent challenge a way back names, when it leads to our own consent page (at `publicUrl`). */
export function consentChallengeIn(returnTo: string | undefined, publicUrl: string): string | undefined {
  if (!returnTo) return undefined;
  const ours = new URL(publicUrl);
  try {
    const url = new URL(returnTo, ours);
    const challenge = url.searchParams.get('consent_challenge');
    return url.origin === ours.origin && url.pathname === ROUTES.consent && isChallenge(challenge) ? challenge : undefined;
  } catch {
    return undefined;
  }
}

export function signOutHrefFor(req: Request, returnTo: string | undefined): string {
  return pathWithQuery(ROUTES.logout, { consent_challenge: consentChallengeIn(returnTo, configOf(req).PUBLIC_URL) });
}

/** Only the person a consent is for may decline it this way: a link naming someone else's is a plain sign-out. */
export async function consentToDeny(req: Request, res: Response, challenge: unknown): Promise<OAuth2ConsentRequest | undefined> {
  const admin = oauth2Admin(configOf(req));
  if (!admin || !isChallenge(challenge)) return undefined;
  const session = await whoami(req, res);
  if (!session?.identity?.id) return undefined;
  try {
    const request = await admin.getConsentRequest(challenge);
    return request.subject === session.identity.id ? request : undefined;
  } catch (error) {
    req.log?.info({ code: oauth2Failure(error).code }, 'consent named by a sign-out not read');
    return undefined;
  }
}

export async function denyConsent(req: Request, challenge: string): Promise<string | undefined> {
  try {
    return await oauth2Admin(configOf(req))!.rejectConsent(challenge, DENIED_CONSENT);
  } catch (error) {
    req.log?.warn({ code: oauth2Failure(error).code }, 'consent named by a sign-out not rejected');
    return undefined;
  }
}
