/**
 * /logout (no login needed).
 *
 *   GET  /logout   signed in: a small page whose form POSTs back with our CSRF token (the form island
 *                  may submit it at once); JSON `{ csrf_token, action }`. Without a live Kratos session
 *                  there is nothing to end: straight to the cleanup below, and no server-side session
 *                  of ours is created for it (a guest who posted nothing gets none: decision 080).
 *   POST /logout   (our CSRF token) tells the backend, ends the Kratos session with the logout flow's
 *                  token (contract §11, its Set-Cookie relayed), deletes the authentication and Google
 *                  access token cookies, sends `Clear-Site-Data: "cache", "storage"`, and lands on
 *                  `/sign-in?logged_out=1`, whose page asks the islands to drop localStorage `token`
 *                  (`data-clear-storage="token"`) for browsers that ignore Clear-Site-Data (plain http).
 *                  Our own session (its CSRF token) is destroyed and its cookie cleared.
 *   ?logout_challenge= Hydra's logout UI: the same sign-out, confirmed, then Hydra's logout accepted
 *                  (server/routes/oauth2-logout.ts).
 *   ?consent_challenge= the restore offer's "No thanks, sign out" on the way to an app: the form carries the
 *                  consent, and the POST declines it (access_denied) before the same sign-out, landing
 *                  at the app through Hydra instead (server/routes/consent-on-sign-out.ts).
 */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { createElement } from 'react';
import { LogoutPage } from '../../views/pages/LogoutPage.tsx';
import { backendClientFor, callerOf } from '../backend-client.ts';
import { clearAuthCookies } from '../flows/app-cookies.ts';
import { configOf } from '../request-context.ts';
import { createLogoutFlow, performLogout, whoami } from '../flows/kratos.ts';
import { respondRedirect, responseMode } from '../flows/respond.ts';
import { logoutBody, redirectResultSchema } from '../flows/schemas.ts';
import { renderPage } from '../render.tsx';
import { documentEndpoint, errorResponse } from '../openapi/registry.ts';
import { provideCsrfToken, requireCsrf } from '../security/csrf.ts';
import { sessionCookieName } from '../session.ts';
import { z } from 'zod';
import { AFTER_LOGOUT_PATH, ROUTES } from '../../core/routes.ts';
import { hasLogoutChallenge, showOAuth2Logout, submitOAuth2Logout } from './oauth2-logout.ts';
import { consentToDeny, denyConsent } from './consent-on-sign-out.ts';
import { redirectOrigins } from '../oauth2.ts';
import { allowOnThisPage } from '../security/headers.ts';
import { liveSessionsOf } from '../socket/emit.ts';

export const CLEAR_SITE_DATA = '"cache", "storage"';

documentEndpoint({
  method: 'get',
  path: ROUTES.logout,
  summary: 'Sign-out confirmation (carries the CSRF token the POST needs); with logout_challenge, an app asking to sign the user out',
  tags: ['logout'],
  query: z.object({
    logout_challenge: z.string().max(4096).optional().describe("Hydra's logout challenge"),
    consent_challenge: z.string().max(4096).optional().describe("Hydra's consent challenge this sign-out declines"),
  }),
  responses: {
    200: {
      description: 'The CSRF token and where to post it (with the consent challenge the sign-out declines, when it is this account’s)',
      schema: z.object({ csrf_token: z.string(), action: z.string(), consent_challenge: z.string().optional() }),
    },
    303: { description: 'No live session: signed out already, on to /sign-in' },
  },
});

documentEndpoint({
  method: 'post',
  path: ROUTES.logout,
  summary: 'Sign out: ends the Kratos session and clears the app cookies',
  tags: ['logout'],
  body: logoutBody.extend({
    logout_challenge: z.string().max(4096).optional().describe("Hydra's logout challenge: sign out of the app that asked too"),
    decision: z.enum(['accept', 'cancel']).optional().describe('With logout_challenge: cancel keeps both sessions'),
    consent_challenge: z
      .string()
      .max(4096)
      .optional()
      .describe("The signed-in account's pending consent: declined (access_denied) first, and the answer goes on to the app through Hydra"),
  }),
  responses: {
    200: {
      description:
        "Signed out (HTML posts get 303 to /sign-in, or with logout_challenge or a declined consent_challenge to Hydra's redirect_to); header Clear-Site-Data",
      schema: redirectResultSchema,
    },
    403: errorResponse('Missing or wrong CSRF token (code csrf_invalid)'),
  },
});

/** Ends whatever session this browser has; every step tolerates "there was none". */
export async function endSession(req: Request, res: Response): Promise<void> {
  const session = await whoami(req, res);
  if (session) {
    const backend = backendClientFor(req);
    try {
      await backend.signOut(callerOf(req, res), {});
    } catch (error) {
      // The user still gets signed out of Kratos: a backend hiccup must not keep a session alive.
      req.log?.warn({ err: { message: (error as Error).message } }, 'backend sign-out failed');
    }
    backend.forgetSession(session.id);
  }
  const flow = await createLogoutFlow(req, res);
  if (flow.ok && flow.data.logout_token) await performLogout(req, res, flow.data.logout_token);
  // The browser's other tabs show a session that is over now (spec §4): their session-changed dialog.
  if (session) liveSessionsOf(req).forceReload({ sessionId: session.id }, 'signed-out');
}

/** Destroys our server-side session, if this browser has one, and expires its cookie. */
async function destroyAppSession(req: Request, res: Response): Promise<void> {
  const config = configOf(req);
  if (req.session) await new Promise<void>((resolve, reject) => req.session.destroy((error) => (error ? reject(error) : resolve())));
  if (req.cookies?.[sessionCookieName(config)]) {
    res.clearCookie(sessionCookieName(config), { httpOnly: true, sameSite: 'lax', secure: config.isProduction, path: '/' });
  }
}

function finish(req: Request, res: Response, to = AFTER_LOGOUT_PATH): void {
  clearAuthCookies(res, configOf(req));
  res.set('Clear-Site-Data', CLEAR_SITE_DATA);
  respondRedirect(req, res, to);
}

/** Only a browser with a live Kratos session gets the form, and with it our session and CSRF token. */
const csrfWhenSignedIn: RequestHandler = async (req, res, next) => {
  try {
    if (!(await whoami(req, res))) return finish(req, res);
    provideCsrfToken(req, res, next);
  } catch (error) {
    next(error);
  }
};

/** Our whole sign-out short of the answer: the OAuth2 logout answers with Hydra's redirect instead. */
async function signOut(req: Request, res: Response): Promise<void> {
  await endSession(req, res);
  await destroyAppSession(req, res);
  clearAuthCookies(res, configOf(req));
  res.set('Clear-Site-Data', CLEAR_SITE_DATA);
}

async function show(req: Request, res: Response): Promise<void> {
  const csrfToken = String(res.locals.csrfToken ?? '');
  const consent = await consentToDeny(req, res, req.query.consent_challenge);
  const consentChallenge = consent ? (req.query.consent_challenge as string) : undefined;
  if (responseMode(req) === 'json') {
    return void res
      .set('Cache-Control', 'no-store')
      .json({ csrf_token: csrfToken, action: ROUTES.logout, ...(consentChallenge ? { consent_challenge: consentChallenge } : {}) });
  }
  // JavaScript off, the declined consent ends at the app's redirect URI through Hydra: form-action must name it.
  if (consent) allowOnThisPage(res, { formAction: redirectOrigins(consent.client?.redirect_uris) });
  renderPage(req, res, createElement(LogoutPage, { action: ROUTES.logout, consentChallenge }), { title: req.t('logout.title') });
}

async function submit(req: Request, res: Response): Promise<void> {
  const body = (req.body ?? {}) as Record<string, unknown>;
  if (hasLogoutChallenge(body.logout_challenge)) return submitOAuth2Logout(req, res, signOut);
  // Declined while still signed in: only the consent's own subject may decline it (consent-on-sign-out.ts).
  const declined = (await consentToDeny(req, res, body.consent_challenge)) ? await denyConsent(req, body.consent_challenge as string) : undefined;
  await endSession(req, res);
  await destroyAppSession(req, res);
  finish(req, res, declined);
}

export function logoutRoutes(): Router {
  const router = Router();
  router.get(ROUTES.logout, (req, res, next) => (hasLogoutChallenge(req.query.logout_challenge) ? showOAuth2Logout(req, res, signOut).catch(next) : next()));
  router.get(ROUTES.logout, csrfWhenSignedIn, show);
  router.post(ROUTES.logout, requireCsrf, submit);
  return router;
}
