/**
 * Email verification on Kratos's verification flow (contract §10), at both addresses of spec §2:
 * `/sign-up/verification` (where sign-up and Kratos's ui_url send the browser) and `/verify-account`
 * (where emailed links land).
 *
 *   GET  ?flow=<id>[&code=<code>]   the flow: ask for the email, enter the code (prefilled from an emailed
 *                                   link's `code`), or the success screen. No/expired/foreign flow → a new
 *                                   one (303 to ?flow=<id>). `flow` + `token` (link method) → 303 to
 *                                   Kratos's own link endpoint, which verifies and comes back here.
 *   POST ?flow=<id>                 `code` (verify) or `email` (send / resend a code)
 *
 * After success "Continue" leads into the product (allow-listed return_to, else /) when signed in, and
 * to sign-in otherwise (Kratos issues no session after registration here). Kratos's 4070001 ("token
 * invalid or used") is shown as spec §8 already_verified, with a link to sign in.
 *
 * Also exports the small helpers the resend and recovery routes share (same owner, same shapes).
 */
import { Router, type Request, type Response } from 'express';
import { createElement } from 'react';
import { z } from 'zod';
import { VerificationForm, VerificationPage, type VerificationFormProps } from '../../views/pages/VerificationPage.tsx';
import { isFlowId, loadFlow, submitFlow, whoami, type LoadedFlow, type SubmitOutcome } from '../flows/kratos.ts';
import { flowHasErrors, mapIdentityProviderError } from '../../core/kratos/messages.ts';
import { screenQuery, withParams, type ScreenQuery } from '../flows/query.ts';
import { errorBody, respondError, respondForm, respondRedirect, responseMode } from '../flows/respond.ts';

export { configOf, respondWithoutFlow, translator };
import { flowState, prefillFlow, replacementFlow, restartNotice } from '../flows/flow-replacement.ts';
import { configOf, translator } from '../request-context.ts';
import { formJson, respondWithoutFlow, splitFieldErrors, translateFieldErrors, visibleFieldNames } from '../flows/form-answers.ts';
import { echoedInput, emailField, flowQuery, flowStateSchema, parseBody, translateValidation } from '../flows/schemas.ts';
import type { FlowKind, KratosFlow, UiNode } from '../../core/kratos/types.ts';
import { TOO_MANY_REQUESTS, documentEndpoint, errorResponseSchema, type EndpointDoc } from '../openapi/registry.ts';
import { authRateLimit } from '../security/rate-limit.ts';
import { safeReturnTo } from '../security/return-to.ts';

export const VERIFICATION_PATHS = ['/sign-up/verification', '/verify-account'] as const;
const SIGN_IN_PATH = '/sign-in';
const RESEND_PATH = '/sign-up/resend-verification-email';

// ---- shared by verification, resend and recovery (on top of server/flows/handlers.ts) -------------

export const csrfTokenField = z.string({ error: 'validation.required' }).min(1, 'validation.required').max(1024, 'validation.required');

/** Spec §5: at most 255; Kratos validates the format again (4000040). */
export const emailInput = emailField;

export const codeInput = z.string({ error: 'validation.required' }).trim().regex(/^[0-9]{4,16}$/, 'validation.codeInvalid');

/** Attaches the first issue of `schema` for `value` to `path`. */
export function checkField(schema: z.ZodType, value: unknown, path: string, ctx: z.RefinementCtx): void {
  const result = schema.safeParse(value);
  if (!result.success) ctx.addIssue({ code: 'custom', path: [path], message: result.error.issues[0]?.message ?? 'validation.required' });
}

/** JSON answer of a screen: the flow to continue with; `continue_to` once the flow is done. */
export const flowAnswerSchema = z
  .object({
    flow: flowStateSchema,
    continue_to: z.string().optional().describe('Set when the flow is complete: where the browser goes next'),
  })
  .meta({ id: 'FlowAnswer' });

/** JSON error answer of a screen: the spec's error shape plus the flow to retry with. */
export const flowErrorSchema = z
  .looseObject({
    code: z.union([z.string(), z.number()]),
    message: z.string(),
    meta: z.record(z.string(), z.unknown()).optional(),
    flow: flowStateSchema.optional(),
  })
  .meta({ id: 'FlowError' });

export const errorOnly = (description: string) => ({ description, schema: errorResponseSchema });
export const flowError = (description: string) => ({ description, schema: flowErrorSchema });

/** Documents GET and POST of one screen at each of its paths. */
export function documentScreen(paths: readonly string[], get: Omit<EndpointDoc, 'method' | 'path'>, post: Omit<EndpointDoc, 'method' | 'path'>): void {
  for (const path of paths) {
    documentEndpoint({ ...get, method: 'get', path });
    documentEndpoint({ ...post, method: 'post', path });
  }
}

/** Answers a JSON caller with a flow error: the mapped error, the flow id and the flow to retry with. */
export function jsonFlowError(res: Response, status: number, error: ReturnType<typeof mapIdentityProviderError>, flow: KratosFlow | undefined, action: string | undefined, extra: Record<string, unknown> = {}): void {
  res
    .status(status)
    .set('Cache-Control', 'no-store')
    .json({
      ...errorBody(error),
      meta: { ...error.meta, ...(flow ? { flowId: flow.id } : {}), ...extra },
      ...(flow && action ? { flow: flowState(flow, action) } : {}),
    });
}

/** Kratos's "submit again with this token" endpoint for link methods: only a uuid flow and a plain token. */
export function kratosLinkUrl(req: Request, kind: FlowKind, flowId: unknown, token: unknown): string | undefined {
  if (!isFlowId(flowId) || typeof token !== 'string' || !/^[A-Za-z0-9_-]{8,256}$/.test(token)) return undefined;
  const base = configOf(req).KRATOS_PUBLIC_URL.replace(/\/+$/, '');
  return `${base}/self-service/${kind}?${new URLSearchParams({ flow: flowId, token })}`;
}

/** The address a code flow was sent to: the value of its "resend" (email submit) node. */
export function sentToEmail(flow: KratosFlow): string | undefined {
  const node = flow.ui.nodes.find((candidate) => candidate.attributes.name === 'email' && candidate.attributes.type === 'submit');
  const value = node?.attributes.value;
  return typeof value === 'string' && value ? value : undefined;
}

/** Submit labels by `name:value` for the code screens: the main button and "send a new code". */
export function codeSubmitLabels(flow: KratosFlow, labels: { submit: string; send: string; sendLink: string; resend: string }): Record<string, string> {
  const out: Record<string, string> = { 'method:code': flow.state === 'sent_email' ? labels.submit : labels.send, 'method:link': labels.sendLink };
  const email = sentToEmail(flow);
  if (email) out[`email:${email}`] = labels.resend;
  return out;
}

/** Puts the code from an emailed link into the code field (Kratos does the same on its own link). */
function withCode(flow: KratosFlow, code: string | undefined): KratosFlow {
  if (!code || flow.state !== 'sent_email') return flow;
  const nodes = flow.ui.nodes.map((node): UiNode =>
    node.attributes.name === 'code' && node.attributes.type !== 'submit' && !node.attributes.value ? { ...node, attributes: { ...node.attributes, value: code } } : node,
  );
  return { ...flow, ui: { ...flow.ui, nodes } };
}

// ---- this screen ---------------------------------------------------------------------------------

const verificationQuery = flowQuery.extend({
  code: z.string().max(16).optional().describe('The code from the emailed link: prefills the code field'),
  token: z.string().max(256).optional().describe('Link method: the token from the emailed link (forwarded to Kratos)'),
});

export const verificationBody = z
  .object({
    csrf_token: csrfTokenField.describe('The csrf_token node of the flow'),
    method: z.enum(['code', 'link']).default('code').describe('The flow\'s method: code (default) or link'),
    code: z.string().optional().describe('The emailed code: verifies the address'),
    email: z.string().optional().describe('Without `code`: sends a (new) code to this address'),
  })
  .superRefine((body, ctx) => {
    if (body.code !== undefined && body.code !== '') checkField(codeInput, body.code, 'code', ctx);
    else checkField(emailInput, body.email, 'email', ctx);
  });

documentScreen(
  VERIFICATION_PATHS,
  {
    summary: 'Email verification form (Kratos verification flow)',
    description: 'Without `flow` (or with an expired or foreign one) a new flow is created; HTML answers 303 to `?flow=<id>`.',
    tags: ['verification'],
    query: verificationQuery,
    responses: {
      200: { description: 'The flow: state choose_method, sent_email or passed_challenge', schema: flowAnswerSchema },
      303: { description: 'HTML: to the new flow, or (link method) to Kratos to check the token' },
    },
  },
  {
    summary: 'Verify the address with the emailed code, or (with `email` only) send a new code',
    tags: ['verification'],
    query: verificationQuery,
    body: verificationBody,
    responses: {
      200: { description: 'Code sent (state sent_email) or address verified (state passed_challenge, with continue_to)', schema: flowAnswerSchema },
      400: flowError('Wrong or expired code, invalid email, or validation errors (meta.fields)'),
      403: flowError('Flow from another browser: start again with the new flow'),
      404: flowError('Unknown flow: start again with the new flow'),
      410: flowError('Flow replaced or expired: continue with the new flow'),
      429: TOO_MANY_REQUESTS,
    },
  },
);

type Screen = { path: string; query: ScreenQuery };

function actionFor(screen: Screen, flowId: string): string {
  return withParams(screen.path, screen.query.kept, { flow: flowId });
}

function signInHref(screen: Screen): string {
  return withParams(SIGN_IN_PATH, screen.query.kept);
}

/** Where "Continue" goes after success. */
async function continueHref(req: Request, res: Response, screen: Screen, flow: KratosFlow): Promise<{ href: string; signedIn: boolean }> {
  const session = await whoami(req, res);
  if (session) return { href: screen.query.returnTo ?? safeReturnTo(flow.return_to, configOf(req)) ?? '/', signedIn: true };
  return { href: signInHref(screen), signedIn: false };
}

type RenderOptions = { status: number; fieldErrors?: Record<string, string[]>; formErrors?: string[] };

async function render(req: Request, res: Response, screen: Screen, flow: KratosFlow, options: RenderOptions): Promise<void> {
  const t = translator(req);
  const action = actionFor(screen, flow.id);
  const next = flow.state === 'passed_challenge' ? await continueHref(req, res, screen, flow) : undefined;
  const fieldErrors = translateFieldErrors(t, options.fieldErrors) ?? {};
  const formErrors = (options.formErrors ?? []).map((key) => translateValidation(t, key));
  const form: VerificationFormProps = {
    action,
    ui: flow.ui,
    values: { email: screen.query.prefillEmail },
    fieldErrors,
    formErrors,
    submitLabels: codeSubmitLabels(flow, { submit: t('verification.submitCode'), send: t('verification.sendCode'), sendLink: t('verification.sendLink'), resend: t('verification.resendCode') }),
    signInHref: signInHref(screen),
  };
  respondForm(req, res, {
    status: options.status,
    title: t('verification.title'),
    page: () =>
      createElement(VerificationPage, {
        state: flow.state ?? 'choose_method',
        method: flow.active,
        form,
        email: sentToEmail(flow),
        continueHref: next?.href ?? signInHref(screen),
        signedIn: next?.signedIn ?? false,
        resendHref: withParams(RESEND_PATH, screen.query.kept),
        signInHref: signInHref(screen),
      }),
    fragment: () => createElement(VerificationForm, form),
    json: () =>
      options.status < 400
        ? { flow: flowState(flow, action), ...(next ? { continue_to: next.href } : {}) }
        : formJson(t, flow, action, options.status, options),
  });
}

async function show(req: Request, res: Response, path: string): Promise<void> {
  const screen: Screen = { path, query: screenQuery(req, configOf(req)) };
  const link = kratosLinkUrl(req, 'verification', req.query.flow, req.query.token);
  if (link) return respondRedirect(req, res, link);
  const loaded = await loadFlow(req, res, 'verification', req.query.flow, { returnTo: screen.query.returnTo });
  if (!loaded.ok) return respondWithoutFlow(req, res, loaded, screen.query.returnTo ?? '/');
  if (loaded.created && responseMode(req) !== 'json') {
    return void res.set('Cache-Control', 'no-store').redirect(303, actionFor(screen, loaded.flow.id));
  }
  const code = typeof req.query.code === 'string' && /^[0-9]{4,16}$/.test(req.query.code) ? req.query.code : undefined;
  const notice = restartNotice(loaded.restarted);
  await render(req, res, screen, withCode(loaded.flow, code), { status: 200, formErrors: notice ? [notice] : [] });
}

/** Handles a submit answer that carries a flow (sent, wrong code, verified, or a replacement). */
async function afterSubmit(req: Request, res: Response, screen: Screen, submittedId: string, outcome: SubmitOutcome, input: Record<string, string | undefined>): Promise<void> {
  const t = translator(req);
  switch (outcome.type) {
    case 'invalid': {
      const flow = outcome.flow;
      // A new id means Kratos replaced the flow (expired, too many attempts, used code): the new one
      // carries the explanation. Browsers move to it; JSON callers get it with a 410.
      if (flow.id !== submittedId) {
        if (responseMode(req) === 'json') {
          return jsonFlowError(res, 410, mapIdentityProviderError(400, flow, t), flow, actionFor(screen, flow.id));
        }
        return respondRedirect(req, res, actionFor(screen, flow.id));
      }
      if (flowHasErrors(flow)) return render(req, res, screen, prefillFlow(flow, input), { status: 400 });
      if (responseMode(req) === 'json') return render(req, res, screen, flow, { status: 200 });
      return respondRedirect(req, res, actionFor(screen, flow.id)); // sent or verified: show it with a GET
    }
    case 'expired': {
      // 410 self_service_flow_replaced (submitting to a finished flow, contract §10.3): Kratos already
      // made the replacement, with message 4070002.
      const next = await replacementFlow(req, res, 'verification', outcome, { returnTo: screen.query.returnTo });
      if (!next.ok) return respondWithoutFlow(req, res, next, screen.query.returnTo ?? '/');
      if (responseMode(req) === 'json') {
        return jsonFlowError(res, 410, mapIdentityProviderError(outcome.status, outcome.body, t), next.flow, actionFor(screen, next.flow.id));
      }
      return respondRedirect(req, res, actionFor(screen, next.flow.id));
    }
    case 'csrf':
    case 'missing': {
      const next = await replacementFlow(req, res, 'verification', outcome, { returnTo: screen.query.returnTo });
      if (!next.ok) return respondWithoutFlow(req, res, next, screen.query.returnTo ?? '/');
      const notice = restartNotice(next.restarted);
      if (responseMode(req) === 'json') {
        return jsonFlowError(res, outcome.status, mapIdentityProviderError(outcome.status, outcome.body, t), next.flow, actionFor(screen, next.flow.id));
      }
      return render(req, res, screen, prefillFlow(next.flow, input), { status: outcome.status, formErrors: notice ? [notice] : [] });
    }
    case 'location':
      return respondRedirect(req, res, outcome.redirectTo);
    case 'success':
    case 'signed_in':
      return respondRedirect(req, res, actionFor(screen, submittedId));
    case 'error':
      return respondError(req, res, mapIdentityProviderError(outcome.status, outcome.body, t));
  }
}

async function submit(req: Request, res: Response, path: string): Promise<void> {
  const screen: Screen = { path, query: screenQuery(req, configOf(req)) };
  const input = echoedInput(req.body);
  const flowId = req.query.flow;
  const parsed = parseBody(verificationBody, req.body);
  if (!parsed.ok || !isFlowId(flowId)) {
    const loaded = await loadFlow(req, res, 'verification', flowId, { returnTo: screen.query.returnTo });
    if (!loaded.ok) return respondWithoutFlow(req, res, loaded, screen.query.returnTo ?? '/');
    const notice = restartNotice(loaded.restarted);
    // A field the current step does not show (e.g. `email` while the code is asked) goes form-level.
    const split = splitFieldErrors(parsed.ok ? {} : parsed.fieldErrors, visibleFieldNames(loaded.flow));
    const fieldErrors = split.fields;
    const formErrors = [...(notice ? [notice] : []), ...(parsed.ok ? [] : parsed.formErrors), ...split.form];
    return render(req, res, screen, prefillFlow(loaded.flow, input), { status: 400, fieldErrors, formErrors });
  }
  const body = parsed.data;
  const kratosBody = body.code
    ? { method: 'code', code: body.code.trim(), csrf_token: body.csrf_token }
    : { method: body.method, email: body.email?.trim(), csrf_token: body.csrf_token };
  const outcome = await submitFlow(req, res, 'verification', flowId, kratosBody);
  await afterSubmit(req, res, screen, flowId, outcome, input);
}

export function verificationRoutes(): Router {
  const router = Router();
  for (const path of VERIFICATION_PATHS) {
    router.get(path, (req, res) => show(req, res, path));
    router.post(path, ...authRateLimit('verification'), (req, res) => submit(req, res, path));
  }
  return router;
}
