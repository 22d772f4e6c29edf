/**
 * /sign-in (guests only, except `refresh=true`: a signed-in user confirming who they are), on Kratos's login flow.
 *
 *   GET  /sign-in[?flow=&…]          no/expired/foreign flow → a new one (303 to ?flow=<id>, kept params);
 *                                    otherwise the page (JSON: `{ flow }`)
 *   POST /sign-in?flow=&…            e-mail + password, or `provider` for social sign-in
 *                                    → 303 to the allow-listed return_to (else /), or the form again (400…)
 *   POST /sign-in/forget-account     forgets the last-used account cookie (our CSRF token)
 *
 * return_to is kept in OUR query string and checked with safeReturnTo on success, rather than handed to
 * Kratos, so the allow-list lives in one place.
 */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { createElement } from 'react';
import { SignInForm, SignInPage } from '../../views/pages/SignInPage.tsx';
import { forgetLastAccount, readLastAccount, rememberLastAccount } from '../flows/app-cookies.ts';
import { isFlowId, loadFlow, submitFlow } from '../flows/kratos.ts';
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
import { mapIdentityProviderError } from '../../core/kratos/messages.ts';
import { errorBody, respondError, respondForm, respondRedirect, responseMode } from '../flows/respond.ts';
import { prefillFlow, replacementFlow, restartNotice } from '../flows/restart.ts';
import { echoedInput, translateValidation, flowQuery, flowStateResultSchema, forgetAccountBody, parseBody, redirectResultSchema, signInBody } from '../flows/schemas.ts';
import { guestOnly } from '../flows/session.ts';
import { screenQuery, withParams, type ScreenQuery } from '../flows/query.ts';
import { socialRedirect } from '../flows/social.ts';
import { documentEndpoint, errorResponse, TOO_MANY_REQUESTS } from '../openapi/registry.ts';
import { provideCsrfToken, requireCsrf } from '../security/csrf.ts';
import { authRateLimit } from '../security/rate-limit.ts';
import type { KratosFlow } from '../../core/kratos/types.ts';

export const SIGN_IN_PATH = '/sign-in';
const FORGET_ACCOUNT_PATH = '/sign-in/forget-account';

documentEndpoint({
  method: 'get',
  path: SIGN_IN_PATH,
  summary: 'Sign-in form (Kratos login flow)',
  description:
    'Without `flow` (or with an expired or foreign one) a new login flow is created: HTML answers 303 to `?flow=<id>`, JSON answers the new flow. Signed-in callers are sent on to return_to.',
  tags: ['sign-in'],
  query: flowQuery,
  responses: {
    200: { description: 'The login flow; post `ui.action` with its csrf_token', schema: flowStateResultSchema },
    303: { description: 'HTML: to the new flow, or (signed in) to return_to' },
    400: errorResponse('Already signed in (JSON): code session_already_available'),
  },
});

documentEndpoint({
  method: 'post',
  path: SIGN_IN_PATH,
  summary: 'Sign in with e-mail and password, or start social sign-in with `provider`',
  tags: ['sign-in'],
  query: flowQuery,
  body: signInBody,
  responses: {
    200: { description: 'Signed in: where to go next (HTML posts get 303)', schema: redirectResultSchema },
    400: errorResponse('Validation or credentials error (code incorrect_email_password, unactivated_account, validation_error, …)'),
    403: errorResponse('Flow from another browser: a new flow id is in meta.flowId'),
    410: errorResponse('Flow expired: a new flow id is in meta.flowId'),
    422: errorResponse('Social sign-in: code browser_location_change_required, meta.redirect_browser_to'),
    429: TOO_MANY_REQUESTS,
  },
});

documentEndpoint({
  method: 'post',
  path: FORGET_ACCOUNT_PATH,
  summary: 'Forget the last-used account shown on the sign-in page',
  tags: ['sign-in'],
  body: forgetAccountBody,
  responses: {
    200: { description: 'Forgotten (HTML posts get 303 back to /sign-in)', schema: redirectResultSchema },
    403: errorResponse('Missing or wrong CSRF token'),
  },
});

type RenderOptions = {
  flow: KratosFlow;
  status: number;
  query: ScreenQuery;
  fieldErrors?: Record<string, string[]>;
  formErrors?: string[];
  email?: string;
};

function actionFor(flowId: string, query: ScreenQuery): string {
  return withParams(SIGN_IN_PATH, query.kept, { flow: flowId });
}

function renderSignIn(req: Request, res: Response, options: RenderOptions): void {
  const { flow, query } = options;
  const t = translator(req);
  const action = actionFor(flow.id, query);
  const form = {
    action,
    ui: flow.ui,
    values: { identifier: query.prefillEmail },
    fieldErrors: translateFieldErrors(t, options.fieldErrors),
    formErrors: (options.formErrors ?? []).map((key) => translateValidation(t, key)),
    highlight: query.highlight === 'password' ? 'password' : query.highlight === 'email' ? 'identifier' : undefined,
  };
  const forgotPasswordHref = withParams('/forgot-password', query.kept);
  const lastAccount = readLastAccount(req);
  respondForm(req, res, {
    status: options.status,
    title: t('authPage.signInTitle'),
    page: () =>
      createElement(SignInPage, {
        form,
        signUpHref: withParams('/sign-up', query.kept),
        forgotPasswordHref,
        lastAccount,
        continueAsHref: lastAccount ? withParams(SIGN_IN_PATH, query.kept, { flow: flow.id, email: lastAccount.email, loginHint: undefined }) : undefined,
        forgetAccountAction: withParams(FORGET_ACCOUNT_PATH, query.kept),
        clearStorage: req.query.logged_out === '1' ? ['token'] : undefined,
        email: options.email,
        context: { from: query.from, action: query.action, platform: query.platform },
      }),
    fragment: () => createElement(SignInForm, { form, forgotPasswordHref, email: options.email }),
    json: () => formJson(t, flow, action, options.status, options),
  });
}

async function show(req: Request, res: Response): Promise<void> {
  const query = screenQuery(req, configOf(req));
  const loaded = await loadFlow(req, res, 'login', req.query.flow, { refresh: query.refresh });
  if (!loaded.ok) return respondWithoutFlow(req, res, loaded, query.returnTo ?? '/');
  if (loaded.created && responseMode(req) !== 'json') {
    // The logout marker must survive this hop: the page it lands on clears the stored token.
    const loggedOut = req.query.logged_out === '1' ? '1' : undefined;
    const to = withParams(SIGN_IN_PATH, query.kept, { flow: loaded.flow.id, logged_out: loggedOut });
    return void res.set('Cache-Control', 'no-store').redirect(303, to);
  }
  renderSignIn(req, res, { flow: loaded.flow, status: 200, query });
}

async function submit(req: Request, res: Response): Promise<void> {
  const config = configOf(req);
  const query = screenQuery(req, config);
  const t = translator(req);
  const input = echoedInput(req.body);
  const email = input.identifier;
  const flowId = req.query.flow;

  const parsed = parseBody(signInBody, req.body);
  if (!parsed.ok || !isFlowId(flowId)) {
    const loaded = await loadFlow(req, res, 'login', flowId, { refresh: query.refresh });
    if (!loaded.ok) return respondWithoutFlow(req, res, loaded, query.returnTo ?? '/');
    const split = splitFieldErrors(parsed.ok ? {} : parsed.fieldErrors, visibleFieldNames(loaded.flow));
    const fieldErrors = split.fields;
    const formErrors = [...(parsed.ok ? [] : parsed.formErrors), ...split.form];
    const notice = restartNotice(loaded.restarted);
    return renderSignIn(req, res, {
      flow: prefillFlow(loaded.flow, input),
      status: 400,
      query,
      fieldErrors,
      formErrors: notice ? [notice, ...formErrors] : formErrors,
      email,
    });
  }

  const body = parsed.data;
  const social = body.provider !== undefined;
  const outcome = await submitFlow(
    req,
    res,
    'login',
    flowId,
    social
      ? { method: 'oidc', provider: body.provider, csrf_token: body.csrf_token }
      : { method: 'password', identifier: body.identifier, password: body.password, csrf_token: body.csrf_token },
  );

  switch (outcome.type) {
    case 'success': {
      const target = query.returnTo ?? '/';
      const identity = outcome.data.session?.identity;
      const signedInEmail = typeof identity?.traits?.email === 'string' ? identity.traits.email : body.identifier;
      if (signedInEmail) {
        const name = typeof identity?.traits?.name === 'string' ? identity.traits.name : undefined;
        rememberLastAccount(res, config, { email: signedInEmail, ...(name ? { name } : {}) });
      }
      const session = outcome.data.session;
      return respondRedirect(req, res, target, session?.identity ? { session: { id: session.id, identity: { id: session.identity.id, traits: session.identity.traits } } } : {});
    }
    case 'location': {
      const to = socialRedirect(outcome.redirectTo, body.provider, query.prefillEmail ?? body.identifier);
      if (responseMode(req) === 'json') {
        const error = mapIdentityProviderError(422, { ...outcome.body, redirect_browser_to: to }, t);
        return void res.status(422).set('Cache-Control', 'no-store').json(errorBody(error));
      }
      return respondRedirect(req, res, to);
    }
    case 'invalid':
      return renderSignIn(req, res, { flow: prefillFlow(outcome.flow, input), status: 400, query, email });
    case 'signed_in':
      return respondRedirect(req, res, query.returnTo ?? '/');
    case 'expired':
    case 'csrf':
    case 'missing': {
      const next = await replacementFlow(req, res, 'login', outcome, { refresh: query.refresh });
      if (!next.ok) return respondWithoutFlow(req, res, next, query.returnTo ?? '/');
      const notice = restartNotice(next.restarted);
      if (responseMode(req) === 'json') {
        const json = restartJson(t, outcome.status, outcome.body, next.flow, actionFor(next.flow.id, query));
        return void res.status(outcome.status).set('Cache-Control', 'no-store').json(json);
      }
      return renderSignIn(req, res, {
        flow: prefillFlow(next.flow, input),
        status: outcome.status,
        query,
        formErrors: notice ? [notice] : [],
        email,
      });
    }
    case 'error':
      return respondError(req, res, mapIdentityProviderError(outcome.status, outcome.body, t));
  }
}

async function forgetAccount(req: Request, res: Response): Promise<void> {
  forgetLastAccount(res, configOf(req));
  respondRedirect(req, res, withParams(SIGN_IN_PATH, screenQuery(req, configOf(req)).kept));
}


/**
 * Our CSRF token is only needed by the "forget this account" form, so a server-side session is only
 * started when that form is shown: the plain sign-in page stays free of per-visitor session writes.
 */
/** Guests only, but a signed-in user asked to sign in again (`refresh=true`) gets the refresh flow. */
const guestOrRefresh: RequestHandler = (req, res, next) => (req.query.refresh === 'true' ? next() : guestOnly(req, res, next));

const csrfForLastAccount: RequestHandler = (req, res, next) => (readLastAccount(req) ? provideCsrfToken(req, res, next) : next());

export function signInRoutes(): Router {
  const router = Router();
  router.get(SIGN_IN_PATH, guestOrRefresh, csrfForLastAccount, show);
  router.post(SIGN_IN_PATH, ...authRateLimit('sign-in'), guestOrRefresh, csrfForLastAccount, submit);
  router.post(FORGET_ACCOUNT_PATH, requireCsrf, forgetAccount);
  return router;
}

