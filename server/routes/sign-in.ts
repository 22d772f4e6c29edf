/**
 * /sign-in (guests only, except `refresh=true`: a signed-in user confirming who they are), on Kratos's login flow.
 *
 *   GET  /sign-in?request_social_sign_in=true&provider=google   starts that provider's sign-in at once
 *   POST /sign-in?flow=&…         e-mail + password, or `provider` for social sign-in (303 to the provider)
 *                                 → 303 to the allow-listed return_to (else /); a sign-in that linked a
 *                                 provider (spec §4) → /sign-in/linked, the SUCCESS notice; a provider pressed on the
 *                                 link sequence is noted for the signed-in landing after Kratos's callback
 *   GET  /sign-in/linked          "your account is linked", then on to return_to
 *   POST /sign-in/forget-account  forgets the last-used account cookie (same-origin post, or our CSRF token)
 *
 * return_to stays in OUR query (safeReturnTo on success); Kratos gets /sign-in?return_to=<ours> (kratosReturnTo),
 * so a social sign-in it completes lands there and goes on through our allow-list (decision 110). Hydra's
 * login_challenge: Kratos accepts it after the sign-in; the gate and the guard are server/flows/oauth2-login.ts.
 */
import { Router, type RequestHandler } from 'express';
import { createElement } from 'react';
import { isProviderButton, knownProvider, socialFailureOf } from '../../core/kratos/social.ts';
import type { KratosErrorBody } from '../../core/kratos/types.ts';
import { ROUTES, SIGNED_OUT_UNSAVED } from '../../core/routes.ts';
import { AccountLinkedPage, SignInForm, SignInPage, type SignInNotice } from '../../views/pages/SignInPage.tsx';
import { confirmLinkedAccount, linkedDuringSignIn } from '../flows/account-link.ts';
import { forgetLastAccount, readLastAccount, rememberLastAccount } from '../flows/app-cookies.ts';
import { SIGNED_IN } from '../flows/flow-screen-docs.ts';
import { flowScreenRoutes, renderScreen, type FlowScreen, type ScreenRequest, type ScreenState } from '../flows/flow-screen.ts';
import { prefillFlow, restartNotice } from '../flows/flow-replacement.ts';
import { screenQuery, withParams } from '../flows/query.ts';
import { respondRedirect, responseMode } from '../flows/respond.ts';
import { flowStateResultSchema, forgetAccountBody, redirectResultSchema, signInBody, signInQuery, type SignInBody } from '../flows/schemas.ts';
import { requireLogin } from '../flows/session.ts';
import { allowChallengeClient, guestOrChallenge, loginChallengeGate } from '../flows/oauth2-login.ts';
import { notePendingLink } from '../flows/pending-link.ts';
import { landSignedIn } from '../flows/signed-in-landing.ts';
import { throughRestoreOffer } from '../flows/deletion-pending.ts';
import { askedProviderName, oneHopParams, prepareSignIn, signInExtras, signInFlowParams, signInFlowStatus, stringQuery } from '../flows/sign-in-view.ts';
import { answerProviderRedirect, startSocialSignIn } from '../flows/social.ts';
import { documentEndpoint, errorResponse } from '../openapi/registry.ts';
import { renderPage } from '../render.tsx';
import { configOf } from '../request-context.ts';
import { backendClientFor } from '../backend-client.ts';
import { requireSameOriginOrCsrf } from '../security/csrf.ts';
import { rememberSignInDevice } from '../security/rate-limit.ts';
import { safeReturnTo } from '../security/return-to.ts';
import { captchaWidget, RECAPTCHA_FAILED, verifyRecaptcha } from '../security/recaptcha.ts';
import { clearSignInFailures, noteSignInFailure, signInNeedsCaptcha } from '../security/sign-in-captcha.ts';

/** Guests only, but `refresh=true` gets the refresh flow, and Hydra's login challenge its gate (flows/oauth2-login.ts). */
const guestOrRefresh: RequestHandler = (req, res, next) => (req.query.refresh === 'true' ? next() : guestOrChallenge(req, res, next));

/**
 * The page a sign-out lands on (AFTER_LOGOUT_PATH), or a guard sent a form post to after a sign-out elsewhere
 * (SIGNED_OUT_UNSAVED): its first view, not the answers to the form posted from it.
 */
function signOutShown(screen: ScreenRequest): 'signed-out' | 'unsaved' | undefined {
  if (screen.req.method !== 'GET') return undefined;
  const marker = screen.req.query.logged_out;
  return marker === '1' ? 'signed-out' : marker === SIGNED_OUT_UNSAVED ? 'unsaved' : undefined;
}

/** A social start waiting for the user's click, else the sign-out this page follows (spec's errorMessage.forceLogoutTitle). */
function signInNotice(screen: ScreenRequest, askedProvider: string | undefined): SignInNotice | undefined {
  if (askedProvider) return { kind: 'social-start', text: screen.t('social.startText', { provider: askedProviderName(screen, askedProvider) }) };
  const signOut = signOutShown(screen);
  if (signOut === 'unsaved') return { kind: 'signed-out', text: screen.t('authPage.signedOutUnsaved') };
  return signOut ? { kind: 'signed-out', text: screen.t('errorMessage.forceLogoutTitle') } : undefined;
}

async function view(screen: ScreenRequest, state: ScreenState) {
  const { req, query, t } = screen;
  allowChallengeClient(screen.res, state.flow);
  const email = screen.input.identifier;
  // A refused password sign-in counts towards the captcha (decision 170); the widget shows once it is due.
  // A post without `method` is a password sign-in too (the schema's default): it counts the same.
  const passwordPost = req.method === 'POST' && req.body?.provider === undefined && (req.body?.method ?? 'password') === 'password';
  if (passwordPost && state.status >= 400) noteSignInFailure(req, screen.config, email);
  const highlight = query.highlight === 'password' ? 'password' : query.highlight === 'email' ? 'identifier' : undefined;
  const extras = await signInExtras(screen, state);
  const linking = extras.link.state !== 'INITIAL';
  const form = {
    ...state.form,
    action: extras.action,
    ui: { ...extras.ui, messages: extras.messages },
    formErrors: extras.formErrors,
    values: { identifier: query.prefillEmail },
    highlight,
  };
  const forgotPasswordHref = screen.link(ROUTES.forgotPassword);
  // Confirming who one is (a refresh flow: signed in already) is no place to sign up or to pick another account.
  const confirming = state.flow.refresh === true;
  const lastAccount = linking || confirming ? undefined : readLastAccount(req);
  const formProps = {
    form,
    forgotPasswordHref,
    email,
    accountLink: { link: extras.link, cancelHref: extras.cancelHref },
    socialNote: state.form.ui.nodes.some(isProviderButton),
    notice: signInNotice(screen, extras.askedProvider),
    captcha: signInNeedsCaptcha(req, screen.config, email) ? captchaWidget(screen.config) : undefined,
  };
  return {
    title: t('authPage.signInTitle'),
    page: () =>
      createElement(SignInPage, {
        ...formProps,
        signUpHref: confirming ? undefined : screen.link(ROUTES.signUp),
        lastAccount,
        continueAsHref: lastAccount ? screen.link(ROUTES.signIn, { flow: state.flow.id, email: lastAccount.email, loginHint: undefined }) : undefined,
        forgetAccountAction: screen.link(ROUTES.forgetAccount),
        clearStorage: signOutShown(screen) ? ['token'] : undefined,
        context: { from: query.from, action: query.action, platform: query.platform },
      }),
    fragment: () => createElement(SignInForm, formProps),
    jsonExtra: linking ? { account_link: extras.link } : undefined,
  };
}

export const signInScreen: FlowScreen<SignInBody> = {
  kind: 'login',
  paths: [ROUTES.signIn],
  body: signInBody,
  // return_to stays in our own query string, checked on success; Kratos gets our page carrying it.
  flowParams: signInFlowParams,
  prepare: prepareSignIn,
  showStatus: signInFlowStatus,
  // The first page honours its markers itself (the logout clears the stored token, a social start to confirm
  // or that failed, a cancelled account link); the address it puts in the bar keeps them, so a reload of the
  // flow shows the same page, as the 303 to it did before decision 190.
  newFlowAddress: (screen, flow) => screen.link(ROUTES.signIn, { flow: flow.id, ...oneHopParams(screen.req.query) }),
  toKratos: (body) =>
    body.provider !== undefined
      ? { method: 'oidc', provider: body.provider, csrf_token: body.csrf_token }
      : { method: 'password', identifier: body.identifier, password: body.password, csrf_token: body.csrf_token },
  // After repeated failures a password sign-in needs the captcha first (decision 170).
  precheck: async (screen, body) =>
    body.provider === undefined && signInNeedsCaptcha(screen.req, screen.config, body.identifier) && !(await verifyRecaptcha(screen.req, screen.config))
      ? RECAPTCHA_FAILED
      : null,
  view,
  async onSuccess(screen, outcome, body) {
    clearSignInFailures(screen.req, body.identifier);
    const session = outcome.data.session;
    const traits = session?.identity?.traits;
    const email = typeof traits?.email === 'string' ? traits.email : body.identifier;
    if (email) rememberLastAccount(screen.res, screen.config, { email, ...(typeof traits?.name === 'string' ? { name: traits.name } : {}) });
    rememberSignInDevice(screen.req, screen.res); // exempts this browser from strangers' lockouts (decision 031)
    await landSignedIn(screen.req, screen.res, session); // the authentication cookie; the backend told once (decision 150)
    const json = session?.identity ? { session: { id: session.id, identity: { id: session.identity.id, traits: session.identity.traits } } } : {};
    if (session && body.provider === undefined && linkedDuringSignIn(session)) {
      // Spec §4 SUCCESS: Kratos linked the provider of the sequence to this account; the backend is told.
      const provider = await confirmLinkedAccount(screen.req, screen.res, session, stringQuery(screen.req.query.link_provider));
      const link = { state: 'SUCCESS', step: 5, provider };
      return respondRedirect(screen.req, screen.res, screen.link(ROUTES.accountLinked, { provider }), { ...json, account_link: link });
    }
    // An account waiting for deletion meets the restore offer first (deletion-pending.ts).
    respondRedirect(screen.req, screen.res, throughRestoreOffer(screen.req, session, screen.query.returnTo ?? '/'), json);
  },
  // An unknown provider is a 404 of Kratos's, which the runner takes for a lost flow: say what it was.
  async onReplaced(screen, flow, outcome) {
    const failure = socialFailureOf((outcome.body as KratosErrorBody | undefined)?.error?.reason);
    const reason = outcome.type === 'csrf' ? 'foreign' : outcome.type;
    const notice = failure === 'unknownProvider' ? 'social.error.unknownProvider' : restartNotice(reason);
    await renderScreen(signInScreen, screen, prefillFlow(flow, screen.input), failure === 'unknownProvider' ? 404 : outcome.status, {
      formErrors: notice ? [notice] : [],
    });
  },
  // On the link sequence (its page put link_provider in our address) the provider confirms: LINKING_ACCOUNT.
  // Kratos's callback will link and sign in without passing us: the link is noted for the landing (pending-link.ts).
  async onLocation(screen, outcome, body) {
    const { req, res } = screen;
    if (req.query.link_provider || body.identifier) await notePendingLink(req, res, String(req.query.flow), req.query.link_provider);
    answerProviderRedirect(req, res, outcome, body.provider, screen.query.prefillEmail ?? body.identifier, {
      ...(req.query.link_provider ? { account_link: { state: 'LINKING_ACCOUNT', step: 2 } } : {}),
    });
  },
  // No stored session for the "forget this account" form: its post is checked by origin (decision 080).
  guards: [guestOrRefresh],
  rateLimit: 'sign-in',
  docs: {
    tag: 'sign-in',
    query: signInQuery,
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

documentEndpoint({
  method: 'get',
  path: ROUTES.accountLinked,
  summary: 'Account linking done (spec §4 SUCCESS): the notice, then on to return_to',
  tags: ['sign-in'],
  responses: {
    200: { description: 'The notice page (HTML); JSON: where to go next', schema: redirectResultSchema },
    303: { description: 'Guest: to /sign-in' },
  },
});

export function signInRoutes(): Router {
  const router = Router();
  router.get(ROUTES.signIn, loginChallengeGate); // Hydra's login challenge, before a flow is made
  // ?request_social_sign_in=true&provider=…: the provider at once, for guests (decision 110).
  router.get(
    ROUTES.signIn,
    guestOrRefresh,
    startSocialSignIn({ kind: 'login', path: ROUTES.signIn, body: (provider, csrf_token) => ({ method: 'oidc', provider, csrf_token }) }),
  );
  router.use(flowScreenRoutes(signInScreen));
  router.get(ROUTES.accountLinked, requireLogin, (req, res) => {
    const config = configOf(req);
    const continueHref = safeReturnTo(req.query.return_to, config) ?? '/';
    if (responseMode(req) === 'json') return respondRedirect(req, res, continueHref);
    const provider = knownProvider(req.query.provider);
    renderPage(req, res, createElement(AccountLinkedPage, { provider, continueHref }), { title: req.t('accountLink.successTitle') });
  });
  router.post(ROUTES.forgetAccount, requireSameOriginOrCsrf, (req, res) => {
    // Spec §7: the backend forgets it too, by the remembered address (a guest has no token); in the
    // background, a failure only logged: the chip is gone either way (decision 150).
    const remembered = readLastAccount(req)?.email;
    if (remembered) {
      backendClientFor(req)
        .forgetLastAccessAccountByEmail(remembered)
        .catch((error: unknown) => req.log?.warn({ code: (error as { code?: string }).code }, 'backend forget-last-access-account failed'));
    }
    forgetLastAccount(res, configOf(req));
    respondRedirect(req, res, withParams(ROUTES.signIn, screenQuery(req, configOf(req)).kept));
  });
  return router;
}
