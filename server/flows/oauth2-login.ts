/**
 * Hydra's login challenge on /sign-in and /sign-up (`?login_challenge=`; decision 130). Kratos handles the
 * challenge itself (its `oauth2_provider.url`): the flows these screens create carry it (query.ts keeps the
 * parameter, the screens' flowParams pass it), and after a password or social sign-in Kratos accepts it and
 * sends the browser on to Hydra. What is left for us:
 *
 *   loginChallengeGate    GET middleware, before a flow is created (no `flow` yet): reads the login request
 *                         at Hydra's admin API first, so its failures are our translated pages (Kratos would
 *                         make them a 400/500 of its own and lose a handled challenge's redirect_to):
 *                           unknown 404, expired, malformed, Hydra down → translated page;
 *                           handled 410 → on to Hydra's redirect_to (a new authorization request).
 *                         A signed-in browser is let through the guest guard (guestOrChallenge):
 *                           skip=true  → straight to Kratos's browser endpoint with the challenge: Kratos
 *                                        accepts it for the session and 303s to Hydra (asked by our server
 *                                        with JSON, v1.3.1 accepts it and answers an error, losing the redirect);
 *                           skip=false → Kratos creates a refresh flow (it forces refresh=true): the sign-in
 *                                        page asks for the password again; /sign-up goes to /sign-in for it.
 *                         A guest whose authorization request names a provider (`provider_hint`, set by the
 *                         mobile gateway for its login_type) goes to that provider's sign-in at once
 *                         (request_social_sign_in, the challenge kept): one sign-in for the whole journey.
 *   guestOrChallenge      guestOnly, except for a request carrying a login challenge.
 *   allowChallengeClient  the sign-in and sign-up pages of a flow with a challenge name the client's redirect
 *                         origins in the CSP form-action: without JavaScript, a post there can end, through
 *                         Kratos and Hydra (a skipped consent), at the client's redirect URI.
 */
import type { RequestHandler, Response } from 'express';
import type { KratosFlow } from '../../core/kratos/types.ts';
import { ROUTES } from '../../core/routes.ts';
import { knownProvider } from '../../core/kratos/social.ts';
import { answerOAuth2Failure, badChallenge, isChallenge, oauth2Admin, redirectOrigins } from '../oauth2.ts';
import { configOf } from '../request-context.ts';
import { allowOnThisPage } from '../security/headers.ts';
import { isFlowId, whoami } from './kratos.ts';
import { keptParams, withParams } from './query.ts';
import { respondRedirect } from './respond.ts';
import { guestOnly } from './session.ts';

const hasChallenge = (query: Record<string, unknown>) => query.login_challenge !== undefined;

/** The authorization request's parameter naming the provider to sign in with (our gateway sets it). */
export const PROVIDER_HINT = 'provider_hint';

export const guestOrChallenge: RequestHandler = (req, res, next) => (hasChallenge(req.query) ? next() : guestOnly(req, res, next));

export const loginChallengeGate: RequestHandler = async (req, res, next) => {
  if (!hasChallenge(req.query) || isFlowId(req.query.flow)) return next();
  try {
    const config = configOf(req);
    const admin = oauth2Admin(config);
    const challenge = req.query.login_challenge;
    if (!isChallenge(challenge)) return answerOAuth2Failure(req, res, badChallenge());
    if (!admin) return next(); // no OAuth2 provider configured: Kratos says what it makes of it
    let skip: boolean;
    let hinted: string | undefined;
    try {
      const request = await admin.getLoginRequest(challenge);
      skip = request.skip === true;
      hinted = providerHintOf(request.request_url);
    } catch (error) {
      return answerOAuth2Failure(req, res, error);
    }
    if (!(await whoami(req, res))) {
      // A guest the app sent with a provider (the mobile gateway's login_type): that provider's sign-in at
      // once, inside this authorization, so one sign-in there is the whole journey.
      if (hinted && req.path === ROUTES.signIn && req.query.request_social_sign_in === undefined) {
        return respondRedirect(req, res, withParams(ROUTES.signIn, keptParams(req.query), { request_social_sign_in: 'true', provider: hinted }));
      }
      return next();
    }
    if (skip) {
      const kratos = new URL(`${config.kratosBrowserUrl.replace(/\/+$/, '')}/self-service/login/browser`);
      kratos.searchParams.set('login_challenge', challenge);
      return respondRedirect(req, res, kratos.href);
    }
    if (req.path === ROUTES.signUp) return respondRedirect(req, res, withParams(ROUTES.signIn, keptParams(req.query)));
    next();
  } catch (error) {
    next(error);
  }
};

/**
 * The provider an app asked for in its authorization request (`provider_hint`, one of ours), which Hydra
 * keeps in the login request's request_url; undefined when none or unknown.
 */
function providerHintOf(requestUrl: string | undefined): string | undefined {
  if (!requestUrl || !URL.canParse(requestUrl)) return undefined;
  return knownProvider(new URL(requestUrl).searchParams.get(PROVIDER_HINT));
}

export function allowChallengeClient(res: Response, flow: KratosFlow): void {
  const request = (flow as { oauth2_login_request?: { client?: { redirect_uris?: string[] } } }).oauth2_login_request;
  if (request?.client) allowOnThisPage(res, { formAction: redirectOrigins(request.client.redirect_uris) });
}
