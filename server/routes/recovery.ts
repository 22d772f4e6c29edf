/**
 * Password recovery on Kratos's recovery flow (contract §9), then a new password on the settings flow
 * that recovery opens.
 *
 *   GET  /forgot-password[?flow=]          guests only. No/expired/foreign flow → a new one (303 to
 *                                          ?flow=<id>). A signed-in browser (also Kratos's
 *                                          session_already_available while creating the flow) is sent on to
 *                                          return_to or /. `flow` + `token` (link method) → 303 to Kratos.
 *   POST /forgot-password?flow=            `email` (send a code; same answer and timing for unknown
 *                                          addresses) or `code` (check it). A right code makes Kratos open a
 *                                          session and a settings flow, answered as 422
 *                                          browser_location_change_required to its settings ui_url (or
 *                                          continue_with show_settings_ui): we send the browser to
 *                                          /forgot-password/reset?flow=<settings flow> instead.
 *   GET  /forgot-password/reset?flow=      the settings flow narrowed to "new password" (needs the recovery
 *                                          session; without one → /forgot-password)
 *   POST /forgot-password/reset?flow=      `password` → the confirmation, then on to return_to or /
 *
 * Rate limited ('recovery') by IP and, for the email step, by email.
 */
import { Router, type Request, type Response } from 'express';
import { createElement } from 'react';
import { z } from 'zod';
import { ForgotPasswordForm, ForgotPasswordPage, type ForgotPasswordFormProps } from '../../views/pages/ForgotPasswordPage.tsx';
import { ResetPasswordForm, ResetPasswordPage, type ResetPasswordFormProps } from '../../views/pages/ResetPasswordPage.tsx';
import { isFlowId, loadFlow, submitFlow, whoami, type SubmitOutcome } from '../flows/kratos.ts';
import { flowHasErrors, mapIdentityProviderError } from '../../core/kratos/messages.ts';
import { screenQuery, withParams, type ScreenQuery } from '../flows/query.ts';
import { errorBody, respondError, respondForm, respondRedirect, responseMode } from '../flows/respond.ts';
import { flowState, prefillFlow, replacementFlow, restartNotice } from '../flows/flow-replacement.ts';
import { formJson, splitFieldErrors, translateFieldErrors, visibleFieldNames } from '../flows/form-answers.ts';
import { echoedInput, flowQuery, parseBody, passwordField, translateValidation } from '../flows/schemas.ts';
import { guestOnly } from '../flows/session.ts';
import type { ContinueWithItem, KratosFlow } from '../../core/kratos/types.ts';
import { TOO_MANY_REQUESTS } from '../openapi/registry.ts';
import { authRateLimit } from '../security/rate-limit.ts';
import { safeReturnTo } from '../security/return-to.ts';
import { startTimer, waitForFloor } from '../security/uniform-timing.ts';
import {
  checkField,
  codeInput,
  codeSubmitLabels,
  configOf,
  csrfTokenField,
  documentScreen,
  emailInput,
  errorOnly,
  flowAnswerSchema,
  flowError,
  jsonFlowError,
  kratosLinkUrl,
  respondWithoutFlow,
  translator,
} from './verification.ts';

export const RECOVERY_PATH = '/forgot-password';
export const RESET_PASSWORD_PATH = '/forgot-password/reset';
/** Kratos's settings ui_url (contract: the app's /profile-settings), where it sends a recovered browser. */
const SETTINGS_UI_PATH = '/profile-settings';

const redirectAnswerSchema = z.object({ redirect_to: z.string().describe('Where the browser goes next') }).meta({ id: 'RedirectAnswer' });

export const recoveryBody = z
  .object({
    csrf_token: csrfTokenField.describe('The csrf_token node of the flow'),
    method: z.enum(['code', 'link']).default('code').describe('The flow\'s method: code (default) or link'),
    email: z.string().optional().describe('Step one (and "send a new code"): the account address'),
    code: z.string().optional().describe('Step two: the emailed recovery code'),
  })
  .superRefine((body, ctx) => {
    if (body.code !== undefined && body.code !== '' && (body.email === undefined || body.email === '')) checkField(codeInput, body.code, 'code', ctx);
    else checkField(emailInput, body.email, 'email', ctx);
  });

export const resetPasswordBody = z
  .object({
    csrf_token: csrfTokenField.describe('The csrf_token node of the settings flow'),
    method: z.enum(['password']).default('password'),
    password: z.string().optional().describe('The new password, 8 to 72 characters'),
  })
  .superRefine((body, ctx) => checkField(passwordField, body.password, 'password', ctx));

const recoveryQuery = flowQuery.extend({
  token: z.string().max(256).optional().describe('Link method: the token from the emailed link (forwarded to Kratos)'),
});

documentScreen(
  [RECOVERY_PATH],
  {
    summary: 'Forgot-password form (Kratos recovery flow)',
    description: 'Guests only. Without `flow` (or with an expired or foreign one) a new flow is created; HTML answers 303 to `?flow=<id>`.',
    tags: ['recovery'],
    query: recoveryQuery,
    responses: {
      200: { description: 'The flow: state choose_method (ask for the email) or sent_email (ask for the code)', schema: flowAnswerSchema },
      303: { description: 'HTML: to the new flow; signed in: on to return_to' },
      400: errorOnly('Signed in (code session_already_available)'),
    },
  },
  {
    summary: 'Send a recovery code (`email`) or check it (`code`)',
    description:
      'The email step answers the same, in about the same time, whether or not the address has an account. A right code opens a session (cookie) and answers `redirect_to` = the reset-password screen.',
    tags: ['recovery'],
    query: recoveryQuery,
    body: recoveryBody,
    responses: {
      200: {
        description: 'Code sent or wrong code (a flow, messages in `ui.messages`), or recovered (`redirect_to`)',
        schema: z.union([flowAnswerSchema, redirectAnswerSchema]),
      },
      400: flowError('Invalid email or code format (meta.fields), or Kratos refused the input'),
      403: flowError('Flow from another browser: start again with the new flow'),
      404: flowError('Unknown flow: start again with the new flow'),
      410: flowError('Flow replaced (too many attempts, code used, expired): continue with the new flow'),
      429: TOO_MANY_REQUESTS,
    },
  },
);

documentScreen(
  [RESET_PASSWORD_PATH],
  {
    summary: 'Reset-password form: the settings flow opened by recovery, narrowed to the password',
    tags: ['recovery'],
    query: flowQuery,
    responses: {
      200: { description: 'The settings flow (password nodes only); state success once saved', schema: flowAnswerSchema },
      303: { description: 'HTML: to the new flow; without the recovery session: to /forgot-password' },
      401: errorOnly('No session: start recovery again'),
    },
  },
  {
    summary: 'Set the new password',
    tags: ['recovery'],
    query: flowQuery,
    body: resetPasswordBody,
    responses: {
      200: { description: 'Saved: the flow in state success and `continue_to`', schema: flowAnswerSchema },
      400: flowError('Too short, too long, too similar to the email, or found in a breach'),
      401: errorOnly('No session: start recovery again'),
      403: flowError('Session too old for a password change, or flow from another browser'),
      410: flowError('Flow expired: continue with the new flow'),
      429: TOO_MANY_REQUESTS,
    },
  },
);

// ---- step 1 and 2: /forgot-password ---------------------------------------------------------------

function actionFor(query: ScreenQuery, flowId: string): string {
  return withParams(RECOVERY_PATH, query.kept, { flow: flowId });
}

function resetHref(query: ScreenQuery, settingsFlowId: string): string {
  const kept = new URLSearchParams(query.kept);
  kept.delete('email');
  kept.delete('loginHint');
  return withParams(RESET_PASSWORD_PATH, kept, { flow: settingsFlowId });
}

type RenderOptions = { status: number; fieldErrors?: Record<string, string[]>; formErrors?: string[] };

function render(req: Request, res: Response, query: ScreenQuery, flow: KratosFlow, options: RenderOptions): void {
  const t = translator(req);
  const action = actionFor(query, flow.id);
  const fieldErrors = translateFieldErrors(t, options.fieldErrors) ?? {};
  const formErrors = (options.formErrors ?? []).map((key) => translateValidation(t, key));
  const form: ForgotPasswordFormProps = {
    action,
    ui: flow.ui,
    values: { email: query.prefillEmail },
    fieldErrors,
    formErrors,
    submitLabels: codeSubmitLabels(flow, { submit: t('recovery.submitCode'), send: t('recovery.sendCode'), sendLink: t('recovery.sendLink'), resend: t('recovery.resendCode') }),
  };
  respondForm(req, res, {
    status: options.status,
    title: flow.state === 'sent_email' ? t('recovery.codeTitle') : t('recovery.title'),
    page: () => createElement(ForgotPasswordPage, { state: flow.state ?? 'choose_method', method: flow.active, form, signInHref: withParams('/sign-in', query.kept) }),
    fragment: () => createElement(ForgotPasswordForm, form),
    json: () => (options.status < 400 ? { flow: flowState(flow, action) } : formJson(t, flow, action, options.status, options)),
  });
}

/**
 * Where a recovered browser goes: Kratos points at its settings ui_url (our /profile-settings) with
 * the new settings flow; we show the focused reset screen for that flow instead. Any other target
 * (skip_settings with a return_to) is honoured only when allow-listed.
 */
export function recoveredTarget(req: Request, query: ScreenQuery, redirectTo: string | undefined, continueWith?: ContinueWithItem[]): string {
  const config = configOf(req);
  const settings = continueWith?.find((item) => item.action === 'show_settings_ui')?.flow?.id;
  if (isFlowId(settings)) return resetHref(query, settings);
  if (redirectTo) {
    try {
      const url = new URL(redirectTo, config.PUBLIC_URL);
      const flow = url.searchParams.get('flow');
      const ours = url.origin === new URL(config.PUBLIC_URL).origin;
      if (ours && url.pathname === SETTINGS_UI_PATH && isFlowId(flow)) return resetHref(query, flow);
    } catch {
      // fall through to the allow-list check
    }
  }
  return safeReturnTo(redirectTo, config) ?? query.returnTo ?? '/';
}

async function show(req: Request, res: Response): Promise<void> {
  const query = screenQuery(req, configOf(req));
  const link = kratosLinkUrl(req, 'recovery', req.query.flow, req.query.token);
  if (link) return respondRedirect(req, res, link);
  const loaded = await loadFlow(req, res, 'recovery', req.query.flow, { returnTo: query.returnTo });
  // session_already_available while creating the flow (spec §4: "the page reloads"): the reload would
  // meet the guest-only guard, so send the browser straight on.
  if (!loaded.ok) return respondWithoutFlow(req, res, loaded, query.returnTo ?? '/');
  if (loaded.created && responseMode(req) !== 'json') {
    return void res.set('Cache-Control', 'no-store').redirect(303, actionFor(query, loaded.flow.id));
  }
  const notice = restartNotice(loaded.restarted);
  render(req, res, query, loaded.flow, { status: 200, formErrors: notice ? [notice] : [] });
}

async function afterSubmit(req: Request, res: Response, query: ScreenQuery, submittedId: string, outcome: SubmitOutcome, input: Record<string, string | undefined>): Promise<void> {
  const t = translator(req);
  switch (outcome.type) {
    case 'invalid': {
      const flow = outcome.flow;
      const settings = flow.continue_with?.some((item) => item.action === 'show_settings_ui');
      if (settings) return respondRedirect(req, res, recoveredTarget(req, query, undefined, flow.continue_with));
      if (flow.id !== submittedId) {
        // Replaced by Kratos (too many attempts, code used, expired, already done): the new flow says why.
        if (responseMode(req) === 'json') {
          return jsonFlowError(res, 410, mapIdentityProviderError(400, flow, t), flow, actionFor(query, flow.id));
        }
        return respondRedirect(req, res, actionFor(query, flow.id));
      }
      if (flowHasErrors(flow)) return render(req, res, query, prefillFlow(flow, input), { status: 400 });
      if (responseMode(req) === 'json') return render(req, res, query, flow, { status: 200 });
      return respondRedirect(req, res, actionFor(query, flow.id)); // code sent: ask for it with a GET
    }
    case 'location':
      return respondRedirect(req, res, recoveredTarget(req, query, outcome.redirectTo));
    case 'success':
      return respondRedirect(req, res, recoveredTarget(req, query, undefined, outcome.data.continue_with));
    case 'signed_in':
      return respondRedirect(req, res, query.returnTo ?? '/');
    case 'expired':
    case 'csrf':
    case 'missing': {
      const next = await replacementFlow(req, res, 'recovery', outcome, { returnTo: query.returnTo });
      if (!next.ok) return respondWithoutFlow(req, res, next, query.returnTo ?? '/');
      const notice = restartNotice(next.restarted);
      if (responseMode(req) === 'json') {
        return jsonFlowError(res, outcome.status, mapIdentityProviderError(outcome.status, outcome.body, t), next.flow, actionFor(query, next.flow.id));
      }
      return render(req, res, query, prefillFlow(next.flow, input), { status: outcome.status, formErrors: notice ? [notice] : [] });
    }
    case 'error':
      return respondError(req, res, mapIdentityProviderError(outcome.status, outcome.body, t));
  }
}

async function submit(req: Request, res: Response): Promise<void> {
  const started = startTimer();
  const query = screenQuery(req, configOf(req));
  const input = echoedInput(req.body);
  const flowId = req.query.flow;
  const parsed = parseBody(recoveryBody, req.body);
  if (!parsed.ok || !isFlowId(flowId)) {
    const loaded = await loadFlow(req, res, 'recovery', flowId, { returnTo: query.returnTo });
    if (!loaded.ok) return respondWithoutFlow(req, res, loaded, query.returnTo ?? '/');
    const notice = restartNotice(loaded.restarted);
    const split = splitFieldErrors(parsed.ok ? {} : parsed.fieldErrors, visibleFieldNames(loaded.flow));
    const fieldErrors = split.fields;
    const formErrors = [...(notice ? [notice] : []), ...(parsed.ok ? [] : parsed.formErrors), ...split.form];
    return render(req, res, query, prefillFlow(loaded.flow, input), { status: 400, fieldErrors, formErrors });
  }
  const body = parsed.data;
  const sendsEmail = Boolean(body.email);
  const outcome = await submitFlow(
    req,
    res,
    'recovery',
    flowId,
    sendsEmail ? { method: body.method, email: body.email!.trim(), csrf_token: body.csrf_token } : { method: 'code', code: body.code!.trim(), csrf_token: body.csrf_token },
  );
  if (sendsEmail) await waitForFloor(started);
  await afterSubmit(req, res, query, flowId, outcome, input);
}

// ---- step 3: /forgot-password/reset ---------------------------------------------------------------

function resetActionFor(query: ScreenQuery, flowId: string): string {
  return withParams(RESET_PASSWORD_PATH, query.kept, { flow: flowId });
}

/** The settings flow reduced to what this screen is about: the CSRF token and the password group. */
function passwordOnly(flow: KratosFlow): KratosFlow {
  const nodes = flow.ui.nodes.filter((node) => node.attributes.name === 'csrf_token' || node.group === 'password');
  return { ...flow, ui: { ...flow.ui, nodes } };
}

function renderReset(req: Request, res: Response, query: ScreenQuery, flow: KratosFlow, options: RenderOptions): void {
  const t = translator(req);
  const action = resetActionFor(query, flow.id);
  const narrowed = passwordOnly(flow);
  const done = flow.state === 'success';
  const continueHref = query.returnTo ?? '/';
  const fieldErrors = translateFieldErrors(t, options.fieldErrors) ?? {};
  const formErrors = (options.formErrors ?? []).map((key) => translateValidation(t, key));
  const form: ResetPasswordFormProps = {
    action,
    ui: narrowed.ui,
    fieldErrors,
    formErrors,
    submitLabels: { 'method:password': t('recovery.savePassword') },
  };
  respondForm(req, res, {
    status: options.status,
    title: done ? t('recovery.doneTitle') : t('recovery.resetTitle'),
    page: () => createElement(ResetPasswordPage, { done, form, continueHref }),
    fragment: () => createElement(ResetPasswordForm, form),
    json: () => (options.status < 400 ? { flow: flowState(narrowed, action), ...(done ? { continue_to: continueHref } : {}) } : formJson(t, narrowed, action, options.status, options)),
  });
}

/** Without the session recovery opened there is nothing to reset: back to the start. */
async function requireRecoverySession(req: Request, res: Response): Promise<boolean> {
  if (await whoami(req, res)) return true;
  if (responseMode(req) === 'json') {
    const error = mapIdentityProviderError(401, undefined, translator(req));
    res.status(401).set('Cache-Control', 'no-store').json(errorBody(error));
    return false;
  }
  respondRedirect(req, res, withParams(RECOVERY_PATH, screenQuery(req, configOf(req)).kept));
  return false;
}

async function showReset(req: Request, res: Response): Promise<void> {
  if (!(await requireRecoverySession(req, res))) return;
  const query = screenQuery(req, configOf(req));
  const loaded = await loadFlow(req, res, 'settings', req.query.flow, { returnTo: query.returnTo });
  if (!loaded.ok) return respondWithoutFlow(req, res, loaded, query.returnTo ?? '/');
  if (loaded.created && responseMode(req) !== 'json') {
    return void res.set('Cache-Control', 'no-store').redirect(303, resetActionFor(query, loaded.flow.id));
  }
  const notice = restartNotice(loaded.restarted);
  renderReset(req, res, query, loaded.flow, { status: 200, formErrors: notice ? [notice] : [] });
}

async function submitReset(req: Request, res: Response): Promise<void> {
  if (!(await requireRecoverySession(req, res))) return;
  const query = screenQuery(req, configOf(req));
  const t = translator(req);
  const flowId = req.query.flow;
  const parsed = parseBody(resetPasswordBody, req.body);
  if (!parsed.ok || !isFlowId(flowId)) {
    const loaded = await loadFlow(req, res, 'settings', flowId, { returnTo: query.returnTo });
    if (!loaded.ok) return respondWithoutFlow(req, res, loaded, query.returnTo ?? '/');
    const notice = restartNotice(loaded.restarted);
    return renderReset(req, res, query, loaded.flow, {
      status: 400,
      fieldErrors: parsed.ok ? {} : parsed.fieldErrors,
      formErrors: [...(notice ? [notice] : []), ...(parsed.ok ? [] : parsed.formErrors)],
    });
  }
  const outcome = await submitFlow(req, res, 'settings', flowId, { method: 'password', password: parsed.data.password, csrf_token: parsed.data.csrf_token });
  switch (outcome.type) {
    case 'invalid': {
      const flow = outcome.flow;
      if (flow.state === 'success') {
        if (responseMode(req) === 'json') return renderReset(req, res, query, flow, { status: 200 });
        return respondRedirect(req, res, resetActionFor(query, flow.id)); // the confirmation, with a GET
      }
      return renderReset(req, res, query, flow, { status: 400 });
    }
    case 'success':
      return respondRedirect(req, res, resetActionFor(query, flowId));
    case 'expired':
    case 'csrf':
    case 'missing': {
      const next = await replacementFlow(req, res, 'settings', outcome, { returnTo: query.returnTo });
      if (!next.ok) return respondWithoutFlow(req, res, next, query.returnTo ?? '/');
      const notice = restartNotice(next.restarted);
      if (responseMode(req) === 'json') {
        return jsonFlowError(res, outcome.status, mapIdentityProviderError(outcome.status, outcome.body, t), passwordOnly(next.flow), resetActionFor(query, next.flow.id));
      }
      return renderReset(req, res, query, next.flow, { status: outcome.status, formErrors: notice ? [notice] : [] });
    }
    case 'location':
    case 'signed_in':
    case 'error': {
      // 401 (session gone) or 403 session_refresh_required (the recovery session is older than the
      // privileged window): the only way on is a new recovery.
      const status = outcome.status;
      if (status === 401 || (status === 403 && outcome.type !== 'location')) {
        if (responseMode(req) !== 'json') return respondRedirect(req, res, withParams(RECOVERY_PATH, query.kept));
      }
      return respondError(req, res, mapIdentityProviderError(status, 'body' in outcome ? outcome.body : undefined, t));
    }
  }
}

export function recoveryRoutes(): Router {
  const router = Router();
  router.get(RECOVERY_PATH, guestOnly, show);
  router.post(RECOVERY_PATH, ...authRateLimit('recovery'), guestOnly, submit);
  router.get(RESET_PASSWORD_PATH, showReset);
  router.post(RESET_PASSWORD_PATH, ...authRateLimit('recovery'), submitReset);
  return router;
}
