/**
 * /sign-up (guests only), on Kratos's registration flow, served by the flow-screen runner.
 *
 * Kratos's registration may be two-step (`profile_first`: traits, then a credential screen) or one step
 * (`unified`); the page renders whatever nodes come back, so both work. A step that Kratos answers with
 * 400 + flow and no error message is progress (contract §20.1), not a failure. On success the browser
 * goes to the verification screen with the flow from `continue_with` (show_verification_ui).
 *
 * Social sign-up: a provider button posts `provider` (the terms accepted, as for a password sign-up) →
 * 303 to the provider. Kratos completes it in its callback; when the provider's claims miss a trait the
 * schema requires, Kratos comes back here with the provider as "Continue" (1040003) and the traits to
 * fill in: this page then says so, asks for what is missing and the terms, and posts them with the
 * provider. Decision 110.
 */
import { Router, type Request } from 'express';
import { createElement } from 'react';
import { ROUTES } from '../../core/routes.ts';
import type { KratosFlow, UiText } from '../../core/kratos/types.ts';
import { EMAIL_EXISTS_IDS, placeMessages } from '../../core/kratos/messages.ts';
import { SignUpForm, SignUpPage, type SignUpFormProps, type TermsSummary } from '../../views/pages/SignUpPage.tsx';
import { flowScreenRoutes, type FlowScreen, type ScreenRequest, type ScreenState } from '../flows/flow-screen.ts';
import { countAgainstEmail } from '../security/rate-limit.ts';
import { respondRedirect } from '../flows/respond.ts';
import { flowStateResultSchema, redirectResultSchema, signUpBody, type SignUpBody } from '../flows/schemas.ts';
import { allowChallengeClient, guestOrChallenge, loginChallengeGate } from '../flows/oauth2-login.ts';
import { answerProviderRedirect, kratosReturnTo, socialSignInShown, withoutSocialButtons } from '../flows/social.ts';
import { isSocialContinue, LOGIN_SERVICE_BY_PROVIDER, knownProvider, socialFailureOf } from '../../core/kratos/social.ts';
import { prefillFlow, restartNotice } from '../flows/flow-replacement.ts';
import { renderScreen } from '../flows/flow-screen.ts';
import { landSignedIn } from '../flows/signed-in-landing.ts';
import type { KratosErrorBody } from '../../core/kratos/types.ts';
import { errorResponse } from '../openapi/registry.ts';
import { SIGNED_IN } from '../flows/flow-screen-docs.ts';
import { captchaWidget, RECAPTCHA_FAILED, verifyRecaptcha } from '../security/recaptcha.ts';

/** Traits the app fills itself: never shown as fields. */
const INTERNAL_TRAITS = ['traits.avatarRemoteId', 'traits.loginService'] as const;

/** The terms summary of the `terms` namespace, translated for this request. */
function termsSummary(req: Request): TermsSummary {
  const tree = (key: string) => req.t(key, { ns: 'terms', returnObjects: true }) as unknown;
  const sections = (['termsOfUse', 'privacy'] as const).map((id) => {
    const summary = tree(`${id}.summary`);
    const items =
      summary && typeof summary === 'object' ? Object.values(summary as Record<string, unknown>).filter((v): v is string => typeof v === 'string') : [];
    return { id, title: String(req.t(`${id}.title`, { ns: 'terms' })), items };
  });
  return { title: String(req.t('title', { ns: 'terms' })), intro: String(req.t('intro', { ns: 'terms' })), sections };
}

/** First screen (traits visible) asks for the terms; the credential screen carries the acceptance. */
function termsMode(flow: KratosFlow): 'ask' | 'accepted' {
  const email = flow.ui.nodes.find((node) => node.attributes.name === 'traits.email');
  return email?.attributes.type === 'hidden' ? 'accepted' : 'ask';
}

/** A social sign-up Kratos sent back for missing traits: the provider's name, for the page to say so. */
function completing(screen: ScreenRequest, flow: KratosFlow): string | undefined {
  const provider = flow.ui.nodes.find(isSocialContinue)?.attributes.value;
  if (typeof provider !== 'string') return undefined;
  const known = knownProvider(provider);
  return known ? screen.t(`authPage.providers.${known}`) : provider;
}

/**
 * Kratos said the e-mail has an account (the email_exists family): sign in with it filled in and the caret
 * in the password, keeping where the person was going. Shown where the message is: under the e-mail field,
 * or on the form when the field is hidden (the credential step of a two-step sign-up).
 */
function existingAccount(screen: ScreenRequest, flow: KratosFlow): SignUpFormProps['existingAccount'] {
  const placed = placeMessages(flow);
  const exists = (messages: UiText[] | undefined) => (messages ?? []).some((message) => EMAIL_EXISTS_IDS.has(message.id));
  const under = exists(placed.fields['traits.email']) ? 'field' : exists(placed.form) ? 'form' : undefined;
  if (!under) return undefined;
  const entered = flow.ui.nodes.find((node) => node.attributes.name === 'traits.email')?.attributes.value;
  return { href: screen.link(ROUTES.signIn, { email: typeof entered === 'string' ? entered : undefined, highlight: 'password' }), under };
}

function view(screen: ScreenRequest, state: ScreenState) {
  allowChallengeClient(screen.res, state.flow);
  const { terms: termsErrors, ...fieldErrors } = state.form.fieldErrors;
  const completeWith = completing(screen, state.flow);
  const formProps = {
    form: { ...state.form, fieldErrors, omit: INTERNAL_TRAITS, values: { 'traits.email': screen.query.prefillEmail } },
    terms: termsMode(state.flow),
    termsError: termsErrors?.[0],
    termsSummary: termsSummary(screen.req),
    completeWith,
    // The widget on the step that creates the account (the one with the password), where the check is.
    captcha: state.flow.ui.nodes.some((node) => node.attributes.name === 'password') ? captchaWidget(screen.config) : undefined,
    existingAccount: existingAccount(screen, state.flow),
  };
  const { from, action, platform } = screen.query;
  return {
    title: completeWith ? screen.t('social.completeTitle', { provider: completeWith }) : screen.t('authPage.signUpTitle'),
    page: () => createElement(SignUpPage, { ...formProps, signInHref: screen.link(ROUTES.signIn), context: { from, action, platform } }),
    fragment: () => createElement(SignUpForm, formProps),
  };
}

function toKratos(body: SignUpBody): Record<string, unknown> {
  const csrf_token = body.csrf_token;
  if (body.provider !== undefined) {
    // The Continue screen posts the traits Kratos asked for with the provider: they go along, and Kratos
    // merges them over what the provider's claims gave.
    const known = knownProvider(body.provider);
    const traits: Record<string, string> = known ? { loginService: LOGIN_SERVICE_BY_PROVIDER[known] } : {};
    const email = body['traits.email']?.trim();
    const name = body['traits.name']?.trim();
    if (email) traits.email = email;
    if (name) traits.name = name;
    return { method: 'oidc', provider: body.provider, csrf_token, ...(Object.keys(traits).length > 0 ? { traits } : {}) };
  }
  const traits: Record<string, string> = { loginService: 'EMAIL_PASSWORD' };
  const email = body['traits.email']?.trim();
  const name = body['traits.name']?.trim();
  if (email) traits.email = email;
  if (name) traits.name = name;
  // Back: Kratos's profile strategy reads `screen=previous` only without `method` (method=profile
  // would validate the profile step again and stay on the credential screen).
  if (body.screen === 'previous') return { screen: 'previous', csrf_token, traits };
  if (body.method === 'password') return { method: 'password', password: body.password, csrf_token, traits };
  return { method: 'profile', csrf_token, traits };
}

export const signUpScreen: FlowScreen<SignUpBody> = {
  kind: 'registration',
  paths: [ROUTES.signUp],
  body: signUpBody,
  // return_to stays in our own query string, checked on success; Kratos gets our sign-in page carrying it
  // (a social sign-up it completes lands there signed in, and goes on through our allow-list).
  flowParams: (screen) => ({ returnTo: kratosReturnTo(screen.config, ROUTES.signIn, screen.query.returnTo), loginChallenge: screen.query.loginChallenge }),
  prepare: (flow, screen) => (socialSignInShown(screen.req.query) ? flow : withoutSocialButtons(flow)),
  // A failure Kratos wrote into the flow (a provider sign-up that failed, an expired flow) is a 4xx.
  showStatus: (flow) => ([...(flow.ui.messages ?? []), ...flow.ui.nodes.flatMap((node) => node.messages)].some((m) => m.type === 'error') ? 400 : 200),
  ownFields: ['terms'],
  toKratos,
  // reCAPTCHA v2 (decision 170): a password sign-up is checked before Kratos hears of it.
  precheck: async (screen, body) =>
    body.method === 'password' && captchaWidget(screen.config) && !(await verifyRecaptcha(screen.req, screen.config)) ? RECAPTCHA_FAILED : null,
  view,
  async onSuccess(screen, outcome, body) {
    countAgainstEmail(screen.res); // a completed sign-up (it mails the address) is what the per-address limit counts
    // Signed in at once only with Kratos's `session` hook (social sign-ups; password ones verify first and
    // are told to the backend at their first sign-in): the backend learns the account now (decision 150).
    if (outcome.data.session) await landSignedIn(screen.req, screen.res, outcome.data.session);
    const verification = outcome.data.continue_with?.find((item) => item.action === 'show_verification_ui' && item.flow?.id)?.flow?.id;
    if (verification)
      return respondRedirect(screen.req, screen.res, screen.link(ROUTES.verification, { flow: verification }), { verification_flow_id: verification });
    // No verification step configured: the account can sign in straight away.
    respondRedirect(screen.req, screen.res, screen.link(ROUTES.signIn, { email: body['traits.email']?.trim() }));
  },
  onLocation: (screen, outcome, body) => answerProviderRedirect(screen.req, screen.res, outcome, body.provider, screen.query.prefillEmail),
  // An unknown provider is a 404 of Kratos's, which the runner takes for a lost flow: say what it was.
  async onReplaced(screen, flow, outcome) {
    const unknown = socialFailureOf((outcome.body as KratosErrorBody | undefined)?.error?.reason) === 'unknownProvider';
    const notice = unknown ? 'social.error.unknownProvider' : restartNotice(outcome.type === 'csrf' ? 'foreign' : outcome.type);
    await renderScreen(signUpScreen, screen, prefillFlow(flow, screen.input), unknown ? 404 : outcome.status, { formErrors: notice ? [notice] : [] });
  },
  guards: [guestOrChallenge],
  rateLimit: 'sign-up',
  docs: {
    tag: 'sign-up',
    get: {
      summary: 'Sign-up form (Kratos registration flow)',
      ok: { description: 'The registration flow; post `ui.action` with its csrf_token', schema: flowStateResultSchema },
      more: SIGNED_IN,
    },
    post: {
      summary: 'Sign up: profile step (`method=profile`), credential step (`method=password`) or social (`provider`)',
      description:
        'A two-step registration answers the first step with the next state of the flow (200 in JSON, 303 back to the form in HTML). ' +
        'The credential step posts the values of its hidden nodes back too (`traits.email`, `traits.name`), as a browser does; a field missing is named in `meta.fields`.',
      ok: {
        description: 'Signed up: `redirect_to` is the verification screen; or the next step as `{ flow }`',
        schema: redirectResultSchema.or(flowStateResultSchema),
      },
      invalid: 'Validation error (code validation_error, email_exists, similarity_password, leaked_password, …)',
      more: { 422: errorResponse('Social sign-up: code browser_location_change_required, meta.redirect_browser_to') },
    },
  },
};

export function signUpRoutes() {
  const router = Router();
  router.get(ROUTES.signUp, loginChallengeGate); // Hydra's login challenge, before a flow is made
  router.use(flowScreenRoutes(signUpScreen));
  return router;
}
