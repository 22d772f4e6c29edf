/**
 * /sign-in (guests only, except `refresh=true`: a signed-in user confirming who they are), on Kratos's
 * login flow, served by the flow-screen runner (server/flows/flow-screen.ts).
 *
 *   POST /sign-in?flow=&…         e-mail + password, or `provider` for social sign-in
 *                                 → 303 to the allow-listed return_to (else /)
 *   POST /sign-in/forget-account  forgets the last-used account cookie (same-origin post, or our CSRF token)
 *
 * return_to is kept in OUR query string and checked with safeReturnTo on success, rather than handed to
 * Kratos, so the allow-list lives in one place.
 */
import { Router, type RequestHandler } from 'express';
import { createElement } from 'react';
import { ROUTES } from '../../core/routes.ts';
import { SignInForm, SignInPage } from '../../views/pages/SignInPage.tsx';
import { forgetLastAccount, readLastAccount, rememberLastAccount } from '../flows/app-cookies.ts';
import { flowScreenRoutes, type FlowScreen, type ScreenRequest, type ScreenState } from '../flows/flow-screen.ts';
import { screenQuery, withParams } from '../flows/query.ts';
import { respondRedirect } from '../flows/respond.ts';
import { flowStateResultSchema, forgetAccountBody, redirectResultSchema, signInBody, type SignInBody } from '../flows/schemas.ts';
import { guestOnly } from '../flows/session.ts';
import { answerProviderRedirect } from '../flows/social.ts';
import { documentEndpoint, errorResponse } from '../openapi/registry.ts';
import { configOf } from '../request-context.ts';
import { requireSameOriginOrCsrf } from '../security/csrf.ts';
import { rememberSignInDevice } from '../security/rate-limit.ts';
import { SIGNED_IN } from '../flows/flow-screen-docs.ts';

/** Guests only, but a signed-in user asked to sign in again (`refresh=true`) gets the refresh flow. */
const guestOrRefresh: RequestHandler = (req, res, next) => (req.query.refresh === 'true' ? next() : guestOnly(req, res, next));

function view(screen: ScreenRequest, state: ScreenState) {
  const { req, query, t } = screen;
  const email = screen.input.identifier;
  const highlight = query.highlight === 'password' ? 'password' : query.highlight === 'email' ? 'identifier' : undefined;
  const form = { ...state.form, values: { identifier: query.prefillEmail }, highlight };
  const forgotPasswordHref = screen.link(ROUTES.forgotPassword);
  const lastAccount = readLastAccount(req);
  return {
    title: t('authPage.signInTitle'),
    page: () =>
      createElement(SignInPage, {
        form,
        signUpHref: screen.link(ROUTES.signUp),
        forgotPasswordHref,
        lastAccount,
        continueAsHref: lastAccount ? screen.link(ROUTES.signIn, { flow: state.flow.id, email: lastAccount.email, loginHint: undefined }) : undefined,
        forgetAccountAction: screen.link(ROUTES.forgetAccount),
        clearStorage: req.query.logged_out === '1' ? ['token'] : undefined,
        email,
        context: { from: query.from, action: query.action, platform: query.platform },
      }),
    fragment: () => createElement(SignInForm, { form, forgotPasswordHref, email }),
  };
}

export const signInScreen: FlowScreen<SignInBody> = {
  kind: 'login',
  paths: [ROUTES.signIn],
  body: signInBody,
  // return_to stays in our own query string, checked on success: Kratos is not given it.
  flowParams: (screen) => ({ refresh: screen.query.refresh }),
  // The logout marker must survive the hop to the new flow: the page it lands on clears the stored token.
  newFlowAddress: (screen, flow) => screen.link(ROUTES.signIn, { flow: flow.id, logged_out: screen.req.query.logged_out === '1' ? '1' : undefined }),
  toKratos: (body) =>
    body.provider !== undefined
      ? { method: 'oidc', provider: body.provider, csrf_token: body.csrf_token }
      : { method: 'password', identifier: body.identifier, password: body.password, csrf_token: body.csrf_token },
  view,
  onSuccess(screen, outcome, body) {
    const session = outcome.data.session;
    const traits = session?.identity?.traits;
    const email = typeof traits?.email === 'string' ? traits.email : body.identifier;
    if (email) rememberLastAccount(screen.res, screen.config, { email, ...(typeof traits?.name === 'string' ? { name: traits.name } : {}) });
    rememberSignInDevice(screen.req, screen.res); // exempts this browser from strangers' lockouts (decision 031)
    const json = session?.identity ? { session: { id: session.id, identity: { id: session.identity.id, traits: session.identity.traits } } } : {};
    respondRedirect(screen.req, screen.res, screen.query.returnTo ?? '/', json);
  },
  onLocation: (screen, outcome, body) => answerProviderRedirect(screen.req, screen.res, outcome, body.provider, screen.query.prefillEmail ?? body.identifier),
  // No stored session for the "forget this account" form: its post is checked by origin (decision 080).
  guards: [guestOrRefresh],
  rateLimit: 'sign-in',
  docs: {
    tag: 'sign-in',
    get: {
      summary: 'Sign-in form (Kratos login flow)',
      ok: { description: 'The login flow; post `ui.action` with its csrf_token', schema: flowStateResultSchema },
      more: SIGNED_IN,
    },
    post: {
      summary: 'Sign in with e-mail and password, or start social sign-in with `provider`',
      ok: { description: 'Signed in: where to go next (HTML posts get 303)', schema: redirectResultSchema },
      invalid: 'Validation or credentials error (code incorrect_email_password, unactivated_account, validation_error, …)',
      more: { 422: errorResponse('Social sign-in: code browser_location_change_required, meta.redirect_browser_to') },
    },
  },
};

documentEndpoint({
  method: 'post',
  path: ROUTES.forgetAccount,
  summary: 'Forget the last-used account shown on the sign-in page',
  tags: ['sign-in'],
  body: forgetAccountBody,
  responses: {
    200: { description: 'Forgotten (HTML posts get 303 back to /sign-in)', schema: redirectResultSchema },
    403: errorResponse('A cross-origin post, or neither an origin header nor our CSRF token (code csrf_invalid)'),
  },
});

export function signInRoutes(): Router {
  const router = flowScreenRoutes(signInScreen);
  router.post(ROUTES.forgetAccount, requireSameOriginOrCsrf, (req, res) => {
    forgetLastAccount(res, configOf(req));
    respondRedirect(req, res, withParams(ROUTES.signIn, screenQuery(req, configOf(req)).kept));
  });
  return router;
}
