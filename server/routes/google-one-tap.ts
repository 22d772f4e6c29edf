/**
 * Google One Tap and the Google query parameters of spec §2 (decision 120).
 *
 *   GET  /sign-in, /sign-up   (before the screens) with GOOGLE_CLIENT_ID: the page gets the One Tap form
 *                             (res.locals.oneTap → views/components/OneTap.tsx) and this browser a nonce
 *                             and a double-submit token; `request_google_sign_in` prompts at once, or,
 *                             without One Tap, starts Google's redirect sign-in (`request_social_sign_in`).
 *                             `credential=` (handed over by another surface): kept in a short-lived
 *                             cookie, and the browser moves on to the confirmation, so the token leaves
 *                             the address bar and history at once
 *   GET  /sign-in/google-one-tap   "Continue as …?" for a handed-over credential (a GET signs nobody in)
 *   POST /sign-in/google-one-tap   `credential` + `g_csrf_token` (One Tap), or `handed_over=1` +
 *                             `g_csrf_token` (the confirmation): the double-submit check, then Kratos
 *                             (server/flows/one-tap.ts) → 303 to return_to; a taken e-mail → the linking
 *                             sign-in flow; missing traits → the sign-up flow; any failure → the sign-in
 *                             page with a translated message and a 4xx
 */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { createElement } from 'react';
import { ROUTES } from '../../core/routes.ts';
import type { KratosFlow } from '../../core/kratos/types.ts';
import { OneTapConfirmPage } from '../../views/pages/OneTapConfirmPage.tsx';
import { rememberGoogleCredential, rememberLastAccount } from '../flows/app-cookies.ts';
import { renderScreen, screenRequest } from '../flows/flow-screen.ts';
import { loadFlow } from '../flows/kratos.ts';
import {
  doubleSubmitHolds,
  doubleSubmitToken,
  forgetOneTap,
  isCredentialShaped,
  issuedNonce,
  offerCookies,
  oneTapBody,
  oneTapEnabled,
  screenOfFlow,
  stashCredential,
  stashedCredential,
  submitIdToken,
  unverifiedClaims,
} from '../flows/one-tap.ts';
import { screenQuery, withParams } from '../flows/query.ts';
import { respondError, respondRedirect, responseMode } from '../flows/respond.ts';
import { redirectResultSchema } from '../flows/schemas.ts';
import { documentEndpoint, errorResponse } from '../openapi/registry.ts';
import { renderPage } from '../render.tsx';
import { configOf, translator } from '../request-context.ts';
import { authRateLimit } from '../security/rate-limit.ts';
import { signInScreen } from './sign-in.ts';
import { mapIdentityProviderError } from '../../core/kratos/messages.ts';
import { LOG_REASONS } from '../log-reasons.ts';

documentEndpoint({
  method: 'post',
  path: ROUTES.googleOneTap,
  summary: 'Sign in with a Google ID token (One Tap, or a credential handed over in a link and confirmed)',
  tags: ['sign-in'],
  body: oneTapBody,
  responses: {
    200: { description: 'Signed in: where to go next (HTML posts get 303)', schema: redirectResultSchema },
    400: errorResponse('The credential was refused (bad token, nonce mismatch, expired offer): the sign-in form with the message'),
    403: errorResponse('The double-submit cookie `g_csrf_token` is missing or differs from the body'),
  },
});

const onPages = [ROUTES.signIn, ROUTES.signUp];

/** The failure answer: the sign-in form (a flow of its own) with our message, never Kratos's page. */
async function refuse(req: Request, res: Response, status: number, key: string): Promise<void> {
  const loaded = await loadFlow(req, res, 'login', undefined);
  const screen = screenRequest(req, res, ROUTES.signIn);
  if (loaded.ok) return renderScreen(signInScreen, screen, loaded.flow, status, { formErrors: [key] });
  if (loaded.alreadySignedIn) return respondRedirect(req, res, screen.query.returnTo ?? ROUTES.home);
  respondError(req, res, mapIdentityProviderError(loaded.status, loaded.body, translator(req)));
}

/**
 * Kratos registered a new Google account without signing it in (no `session` hook after an oidc
 * registration): on to verification when Kratos asks for it, else to sign-in, as after a sign-up.
 */
function registeredWithoutSession(req: Request, res: Response, continueWith: KratosFlow['continue_with'], email: string | undefined): void {
  const kept = screenQuery(req, configOf(req)).kept;
  const verification = continueWith?.find((item) => item.action === 'show_verification_ui' && item.flow?.id)?.flow?.id;
  if (verification) return respondRedirect(req, res, withParams(ROUTES.verification, kept, { flow: verification }));
  respondRedirect(req, res, withParams(ROUTES.signIn, kept, { email }));
}

async function signInWith(req: Request, res: Response, credential: string, nonce: string | undefined): Promise<void> {
  const config = configOf(req);
  const query = screenQuery(req, config);
  const returnTo = query.returnTo ?? ROUTES.home;
  const { created, flow, outcome } = await submitIdToken(req, res, credential, nonce);
  if (!created.ok && (created.data as { error?: { id?: string } } | undefined)?.error?.id === 'session_already_available') {
    return respondRedirect(req, res, returnTo);
  }
  if (!flow || !outcome) return refuse(req, res, 400, 'oneTap.failed');
  switch (outcome.type) {
    case 'success': {
      const session = outcome.data.session;
      if (!session) return registeredWithoutSession(req, res, outcome.data.continue_with, unverifiedClaims(credential)?.email);
      const traits = session.identity?.traits;
      if (typeof traits?.email === 'string')
        rememberLastAccount(res, config, { email: traits.email, ...(typeof traits.name === 'string' ? { name: traits.name } : {}) });
      rememberGoogleCredential(res, config, credential, unverifiedClaims(credential)?.exp);
      return respondRedirect(req, res, returnTo);
    }
    case 'signed_in':
      return respondRedirect(req, res, returnTo);
    case 'location':
      return respondRedirect(req, res, outcome.redirectTo);
    case 'invalid':
      // Another flow: the account-linking sign-in (a taken e-mail) or a registration asking for more.
      if (outcome.flow.id !== flow.id) return respondRedirect(req, res, withParams(screenOfFlow(outcome.flow), query.kept, { flow: outcome.flow.id }));
      return refuse(req, res, 400, 'oneTap.failed');
    default:
      req.log?.info({ kratosStatus: outcome.status, outcome: outcome.type, reason: LOG_REASONS.google }, 'google one tap refused by the identity service');
      return refuse(req, res, 400, 'oneTap.failed');
  }
}

const submit: RequestHandler = async (req, res) => {
  const config = configOf(req);
  const parsed = oneTapBody.safeParse(req.body ?? {});
  const body = parsed.success ? parsed.data : {};
  // Single-use: expired in this answer whatever happens next (the checks below read the request's cookies).
  forgetOneTap(res, config);
  if (!doubleSubmitHolds(req, body.g_csrf_token)) return refuse(req, res, 403, 'oneTap.refused');
  if (body.handed_over === '1') {
    const stashed = stashedCredential(req, config);
    if (!stashed) return refuse(req, res, 400, 'oneTap.expired');
    // A credential minted elsewhere carries no nonce of ours: Kratos takes it only when it has none.
    return signInWith(req, res, stashed, undefined);
  }
  if (!isCredentialShaped(body.credential)) return refuse(req, res, 400, 'oneTap.failed');
  const nonce = issuedNonce(req, config);
  if (!nonce) return refuse(req, res, 400, 'oneTap.expired');
  return signInWith(req, res, body.credential, nonce);
};

/** "Continue as …?" for a credential a link handed over; without one, back to the sign-in page. */
const confirm: RequestHandler = (req, res) => {
  const config = configOf(req);
  const kept = screenQuery(req, config).kept;
  const credential = stashedCredential(req, config);
  if (!credential) return respondRedirect(req, res, withParams(ROUTES.signIn, kept));
  const page = createElement(OneTapConfirmPage, {
    action: withParams(ROUTES.googleOneTap, kept),
    csrfToken: doubleSubmitToken(req, res, config),
    email: unverifiedClaims(credential)?.email,
    otherWayHref: withParams(ROUTES.signIn, kept),
  });
  renderPage(req, res, page, { title: req.t('oneTap.confirmTitle') });
};

/** `request_google_sign_in=true` (any value but empty, `false` or `0`). */
const wantsGoogleNow = (value: unknown): boolean => typeof value === 'string' && !['', 'false', '0'].includes(value);

/** Runs before the sign-in and sign-up screens; `next()` lets them answer as usual. */
const beforeScreens: RequestHandler = (req, res, next) => {
  const config = configOf(req);
  const query = screenQuery(req, config);
  const credential = req.query.credential;
  if (credential !== undefined) {
    if (isCredentialShaped(credential)) stashCredential(res, config, credential);
    return respondRedirect(req, res, withParams(isCredentialShaped(credential) ? ROUTES.googleOneTap : req.path, query.kept));
  }
  const requested = wantsGoogleNow(req.query.request_google_sign_in);
  if (!oneTapEnabled(config)) {
    if (!requested) return next();
    return respondRedirect(
      req,
      res,
      withParams(req.path, query.kept, { request_social_sign_in: 'true', provider: 'google', request_google_sign_in: undefined }),
    );
  }
  // The page, in a browser (a new flow is shown at once, decision 190): a re-authentication is not offered Google.
  if (!query.refresh && responseMode(req) === 'page') {
    const { nonce, csrfToken } = offerCookies(req, res, config);
    res.locals.oneTap = {
      action: withParams(ROUTES.googleOneTap, query.kept, { request_google_sign_in: undefined }),
      clientId: config.GOOGLE_CLIENT_ID,
      nonce,
      csrfToken,
      scriptUrl: config.GOOGLE_GSI_SCRIPT_URL,
      promptNow: requested,
    };
  }
  next();
};

export function googleOneTapRoutes(): Router {
  const router = Router();
  router.get(onPages, beforeScreens);
  router.get(ROUTES.googleOneTap, confirm);
  router.post(ROUTES.googleOneTap, ...authRateLimit('sign-in'), submit);
  return router;
}
