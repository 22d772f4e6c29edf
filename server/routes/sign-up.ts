/**
 * /sign-up (guests only), on Kratos's registration flow.
 *
 *   GET  /sign-up[?flow=&…]   no/expired/foreign flow → a new one (303 to ?flow=<id>); else the page
 *   POST /sign-up?flow=&…     e-mail, name, password (or `provider`), terms acceptance
 *
 * Kratos's registration may be two-step (`profile_first`: traits, then a credential screen) or one step
 * (`unified`); the page renders whatever nodes come back, so both work. A step that Kratos answers with
 * 400 + flow and no error message is progress (contract §20.1), not a failure. On success the browser
 * goes to the verification screen with the flow from `continue_with` (show_verification_ui).
 */
import { Router, type Request, type Response } from 'express';
import { createElement } from 'react';
import { SignUpForm, SignUpPage, type TermsSummary } from '../../views/pages/SignUpPage.tsx';
import {
  configOf,
  formJson,
  respondWithoutFlow,
  restartJson,
  splitFieldErrors,
  translateFieldErrors,
  translator,
  visibleFieldNames,
} from '../flows/handlers.ts';
import { isFlowId, loadFlow, submitFlow } from '../flows/kratos.ts';
import { flowHasErrors, mapIdentityProviderError, type Translate } from '../../core/kratos/messages.ts';
import { screenQuery, withParams, type ScreenQuery } from '../flows/query.ts';
import { errorBody, respondError, respondForm, respondRedirect, responseMode } from '../flows/respond.ts';
import { prefillFlow, replacementFlow, restartNotice } from '../flows/restart.ts';
import {
  echoedInput,
  flowQuery,
  flowStateResultSchema,
  parseBody,
  redirectResultSchema,
  signUpBody,
  translateValidation,
  type SignUpBody,
} from '../flows/schemas.ts';
import { guestOnly } from '../flows/session.ts';
import { socialRedirect } from '../flows/social.ts';
import type { KratosFlow } from '../../core/kratos/types.ts';
import { documentEndpoint, errorResponse, TOO_MANY_REQUESTS } from '../openapi/registry.ts';
import { authRateLimit } from '../security/rate-limit.ts';

export const SIGN_UP_PATH = '/sign-up';
export const VERIFICATION_PATH = '/sign-up/verification';

/** Traits the app fills itself: never shown as fields. */
const INTERNAL_TRAITS = ['traits.avatarRemoteId', 'traits.loginService'] as const;

/** Spec §3 login service names, by Kratos provider id. */
const LOGIN_SERVICE_BY_PROVIDER: Readonly<Record<string, string>> = {
  google: 'GOOGLE',
  microsoft: 'MICROSOFT',
  dropbox: 'DROPBOX',
  apple: 'APPLE',
};

documentEndpoint({
  method: 'get',
  path: SIGN_UP_PATH,
  summary: 'Sign-up form (Kratos registration flow)',
  description: 'Without `flow` (or with an expired or foreign one) a new registration flow is created: HTML answers 303 to `?flow=<id>`, JSON the flow.',
  tags: ['sign-up'],
  query: flowQuery,
  responses: {
    200: { description: 'The registration flow; post `ui.action` with its csrf_token', schema: flowStateResultSchema },
    303: { description: 'HTML: to the new flow, or (signed in) to return_to' },
    400: errorResponse('Already signed in (JSON): code session_already_available'),
  },
});

documentEndpoint({
  method: 'post',
  path: SIGN_UP_PATH,
  summary: 'Sign up: profile step (`method=profile`), credential step (`method=password`) or social (`provider`)',
  description: 'A two-step registration answers the first step with the next state of the flow (200 in JSON, 303 back to the form in HTML).',
  tags: ['sign-up'],
  query: flowQuery,
  body: signUpBody,
  responses: {
    200: { description: 'Signed up: `redirect_to` is the verification screen; or the next step as `{ flow }`', schema: redirectResultSchema.or(flowStateResultSchema) },
    400: errorResponse('Validation error (code validation_error, email_exists, similarity_password, leaked_password, …)'),
    403: errorResponse('Flow from another browser: a new flow id is in meta.flowId'),
    410: errorResponse('Flow expired: a new flow id is in meta.flowId'),
    422: errorResponse('Social sign-up: code browser_location_change_required, meta.redirect_browser_to'),
    429: TOO_MANY_REQUESTS,
  },
});

function actionFor(flowId: string, query: ScreenQuery): string {
  return withParams(SIGN_UP_PATH, query.kept, { flow: flowId });
}

/** The terms summary of the `terms` namespace, translated for this request. */
function termsSummary(req: Request): TermsSummary {
  const tree = (key: string) => req.t(key, { ns: 'terms', returnObjects: true }) as unknown;
  const sections = (['termsOfUse', 'privacy'] as const).map((id) => {
    const summary = tree(`${id}.summary`);
    const items = summary && typeof summary === 'object' ? Object.values(summary as Record<string, unknown>).filter((v): v is string => typeof v === 'string') : [];
    return { id, title: String(req.t(`${id}.title`, { ns: 'terms' })), items };
  });
  return { title: String(req.t('title', { ns: 'terms' })), intro: String(req.t('intro', { ns: 'terms' })), sections };
}

/** First screen (traits visible) asks for the terms; the credential screen carries the acceptance. */
function termsMode(flow: KratosFlow): 'ask' | 'accepted' | 'none' {
  const email = flow.ui.nodes.find((node) => node.attributes.name === 'traits.email');
  if (!email) return 'ask';
  return email.attributes.type === 'hidden' ? 'accepted' : 'ask';
}

type RenderOptions = {
  flow: KratosFlow;
  status: number;
  query: ScreenQuery;
  fieldErrors?: Record<string, string[]>;
  formErrors?: string[];
  termsError?: string;
};

function renderSignUp(req: Request, res: Response, options: RenderOptions): void {
  const { flow, query } = options;
  const t = translator(req);
  const action = actionFor(flow.id, query);
  const form = {
    action,
    ui: flow.ui,
    omit: INTERNAL_TRAITS,
    values: { 'traits.email': query.prefillEmail },
    fieldErrors: translateFieldErrors(t, options.fieldErrors),
    formErrors: (options.formErrors ?? []).map((key) => translateValidation(t, key)),
  };
  const formProps = {
    form,
    terms: termsMode(flow),
    termsError: options.termsError ? translateValidation(t, options.termsError) : undefined,
    termsSummary: termsSummary(req),
  };
  const errors = {
    fieldErrors: { ...options.fieldErrors, ...(options.termsError ? { terms: [options.termsError] } : {}) },
    formErrors: options.formErrors,
  };
  respondForm(req, res, {
    status: options.status,
    title: t('authPage.signUpTitle'),
    page: () =>
      createElement(SignUpPage, {
        ...formProps,
        signInHref: withParams('/sign-in', query.kept),
        context: { from: query.from, action: query.action, platform: query.platform },
      }),
    fragment: () => createElement(SignUpForm, formProps),
    json: () => formJson(t, flow, action, options.status, errors),
  });
}

function traitsOf(body: SignUpBody, loginService: string): Record<string, string> {
  const traits: Record<string, string> = { loginService };
  const email = body['traits.email']?.trim();
  const name = body['traits.name']?.trim();
  if (email) traits.email = email;
  if (name) traits.name = name;
  return traits;
}

function kratosBody(body: SignUpBody): Record<string, unknown> {
  const csrf_token = body.csrf_token;
  if (body.provider !== undefined) {
    const loginService = LOGIN_SERVICE_BY_PROVIDER[body.provider];
    return { method: 'oidc', provider: body.provider, csrf_token, ...(loginService ? { traits: { loginService } } : {}) };
  }
  const traits = traitsOf(body, 'EMAIL_PASSWORD');
  if (body.screen === 'previous') return { method: 'profile', screen: 'previous', csrf_token, traits };
  if (body.method === 'password') return { method: 'password', password: body.password, csrf_token, traits };
  return { method: 'profile', csrf_token, traits };
}

async function show(req: Request, res: Response): Promise<void> {
  const query = screenQuery(req, configOf(req));
  const loaded = await loadFlow(req, res, 'registration', req.query.flow);
  if (!loaded.ok) return respondWithoutFlow(req, res, loaded, query.returnTo ?? '/');
  if (loaded.created && responseMode(req) !== 'json') {
    return void res.set('Cache-Control', 'no-store').redirect(303, actionFor(loaded.flow.id, query));
  }
  renderSignUp(req, res, { flow: loaded.flow, status: 200, query });
}

function verificationTarget(data: { continue_with?: KratosFlow['continue_with'] }, query: ScreenQuery, email?: string): { to: string; flowId?: string } {
  const verification = data.continue_with?.find((item) => item.action === 'show_verification_ui' && item.flow?.id);
  if (verification?.flow) return { to: withParams(VERIFICATION_PATH, query.kept, { flow: verification.flow.id }), flowId: verification.flow.id };
  // No verification step configured: the account can sign in straight away.
  return { to: withParams('/sign-in', query.kept, { email }) };
}

async function submit(req: Request, res: Response): Promise<void> {
  const query = screenQuery(req, configOf(req));
  const t: Translate = translator(req);
  const input = echoedInput(req.body);
  const flowId = req.query.flow;

  const parsed = parseBody(signUpBody, req.body);
  if (!parsed.ok || !isFlowId(flowId)) {
    const loaded = await loadFlow(req, res, 'registration', flowId);
    if (!loaded.ok) return respondWithoutFlow(req, res, loaded, query.returnTo ?? '/');
    const all = parsed.ok ? {} : { ...parsed.fieldErrors };
    const termsError = all.terms?.[0];
    delete all.terms;
    const split = splitFieldErrors(all, visibleFieldNames(loaded.flow));
    const notice = restartNotice(loaded.restarted);
    return renderSignUp(req, res, {
      flow: prefillFlow(loaded.flow, input),
      status: 400,
      query,
      fieldErrors: split.fields,
      formErrors: [...(notice ? [notice] : []), ...(parsed.ok ? [] : parsed.formErrors), ...split.form],
      termsError,
    });
  }

  const body = parsed.data;
  const outcome = await submitFlow(req, res, 'registration', flowId, kratosBody(body));
  switch (outcome.type) {
    case 'success': {
      const { to, flowId: verificationFlowId } = verificationTarget(outcome.data, query, body['traits.email']?.trim());
      return respondRedirect(req, res, to, verificationFlowId ? { verification_flow_id: verificationFlowId } : {});
    }
    case 'invalid': {
      if (flowHasErrors(outcome.flow)) return renderSignUp(req, res, { flow: prefillFlow(outcome.flow, input), status: 400, query });
      // Step progress (profile → credentials, or "Back"): the flow now shows the next screen. Browsers
      // (plain or enhanced) load it with a GET; integrators get the next state at once.
      if (responseMode(req) !== 'json') return respondRedirect(req, res, actionFor(outcome.flow.id, query));
      return renderSignUp(req, res, { flow: outcome.flow, status: 200, query });
    }
    case 'location': {
      const to = socialRedirect(outcome.redirectTo, body.provider, query.prefillEmail);
      if (responseMode(req) === 'json') {
        return void res.status(422).set('Cache-Control', 'no-store').json(errorBody(mapIdentityProviderError(422, { ...outcome.body, redirect_browser_to: to }, t)));
      }
      return respondRedirect(req, res, to);
    }
    case 'signed_in':
      return respondRedirect(req, res, query.returnTo ?? '/');
    case 'expired':
    case 'csrf':
    case 'missing': {
      const next = await replacementFlow(req, res, 'registration', outcome);
      if (!next.ok) return respondWithoutFlow(req, res, next, query.returnTo ?? '/');
      if (responseMode(req) === 'json') {
        return void res.status(outcome.status).set('Cache-Control', 'no-store').json(restartJson(t, outcome.status, outcome.body, next.flow, actionFor(next.flow.id, query)));
      }
      const notice = restartNotice(next.restarted);
      return renderSignUp(req, res, { flow: prefillFlow(next.flow, input), status: outcome.status, query, formErrors: notice ? [notice] : [] });
    }
    case 'error':
      return respondError(req, res, mapIdentityProviderError(outcome.status, outcome.body, t));
  }
}


export function signUpRoutes(): Router {
  const router = Router();
  router.get(SIGN_UP_PATH, guestOnly, show);
  router.post(SIGN_UP_PATH, ...authRateLimit('sign-up'), guestOnly, submit);
  return router;
}
