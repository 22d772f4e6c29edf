/**
 * /logout?logout_challenge=: Hydra's logout UI (its `urls.logout`; contract ory-hydra.md §4). Decision 130.
 *
 *   GET  ?logout_challenge=   "Sign out of <app>?" Yes / No (JSON: the client and our CSRF token). A client
 *                             with `skip_logout_consent`, or a trusted one (OAUTH2_TRUSTED_CLIENT_IDS), is
 *                             signed out at once: it asked with the user's own ID token (RP-initiated).
 *   POST logout_challenge, decision=accept|cancel (our CSRF token):
 *                             accept → our sign-out (backend told, the Kratos session ended, our cookies and
 *                             session gone), then Hydra's logout accepted → 303 to its redirect_to, which
 *                             ends Hydra's login session and lands on the client's post-logout URI;
 *                             cancel → Hydra's logout rejected (it does nothing more) → home, still signed in.
 */
import type { Request, Response } from 'express';
import { createElement } from 'react';
import { ROUTES } from '../../core/routes.ts';
import { OAuth2LogoutPage } from '../../views/pages/OAuth2LogoutPage.tsx';
import { whoami } from '../flows/kratos.ts';
import { respondRedirect, responseMode } from '../flows/respond.ts';
import { answerOAuth2Failure, badChallenge, isChallenge, oauth2Admin, redirectOrigins } from '../oauth2.ts';
import { renderPage } from '../render.tsx';
import { configOf, translator } from '../request-context.ts';
import { ensureCsrfToken } from '../security/csrf.ts';
import { allowOnThisPage } from '../security/headers.ts';

/** Where "No" leads: Hydra does nothing after a rejection, so the user stays here, on the home page. */
export const AFTER_LOGOUT_CANCEL = ROUTES.home;

type SignOut = (req: Request, res: Response) => Promise<void>;

export function hasLogoutChallenge(value: unknown): boolean {
  return value !== undefined && value !== '';
}

/** GET with a challenge: the confirmation, or the sign-out at once for a client that needs none. */
export async function showOAuth2Logout(req: Request, res: Response, signOut: SignOut): Promise<void> {
  const config = configOf(req);
  const admin = oauth2Admin(config);
  const challenge = req.query.logout_challenge;
  if (!admin || !isChallenge(challenge)) return answerOAuth2Failure(req, res, badChallenge());
  let clientName: string | undefined;
  try {
    const request = await admin.getLogoutRequest(challenge);
    const client = request.client ?? undefined;
    const trusted = !!client?.client_id && config.OAUTH2_TRUSTED_CLIENT_IDS.includes(client.client_id);
    if (client?.skip_logout_consent === true || trusted) {
      await signOut(req, res);
      return respondRedirect(req, res, await admin.acceptLogout(challenge));
    }
    clientName = client ? client.client_name || client.client_id : undefined;
    // JavaScript off, Yes ends at the client's post-logout URI through Hydra: form-action must name it.
    allowOnThisPage(res, { formAction: redirectOrigins(client?.post_logout_redirect_uris) });
  } catch (error) {
    return answerOAuth2Failure(req, res, error);
  }
  const signedIn = (await whoami(req, res)) !== null; // our form's token is bound to who is signed in (server/security/csrf.ts)
  await ensureCsrfToken(req, res);
  const csrfToken = String(res.locals.csrfToken ?? '');
  if (responseMode(req) === 'json') {
    return void res.set('Cache-Control', 'no-store').json({ client_name: clientName ?? null, csrf_token: csrfToken, action: ROUTES.logout });
  }
  const t = translator(req);
  renderPage(req, res, createElement(OAuth2LogoutPage, { action: ROUTES.logout, challenge, clientName, signedIn }), {
    title: clientName ? t('oauth2.logout.title', { client: clientName }) : t('oauth2.logout.titleAll'),
  });
}

/** POST with a challenge (our CSRF token checked already): sign out of both, or of neither. */
export async function submitOAuth2Logout(req: Request, res: Response, signOut: SignOut): Promise<void> {
  const admin = oauth2Admin(configOf(req));
  const body = (req.body ?? {}) as Record<string, unknown>;
  const challenge = body.logout_challenge;
  if (!admin || !isChallenge(challenge)) return answerOAuth2Failure(req, res, badChallenge());
  try {
    if (body.decision === 'cancel') {
      await admin.rejectLogout(challenge);
      return respondRedirect(req, res, AFTER_LOGOUT_CANCEL);
    }
    await admin.getLogoutRequest(challenge); // still valid: only then end our sessions
    await signOut(req, res);
    respondRedirect(req, res, await admin.acceptLogout(challenge));
  } catch (error) {
    answerOAuth2Failure(req, res, error);
  }
}
