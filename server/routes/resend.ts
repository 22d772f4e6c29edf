/**
 * `/sign-up/resend-verification-email`: asks for the email and sends a new verification code through a
 * fresh Kratos verification flow, then continues on the verification screen with that flow (enter the
 * code). No login required (spec §2).
 *
 *   GET  [?flow=&email=]   the form (a new flow: 303 to ?flow=<id>; `email` prefills the field)
 *   POST ?flow=            `email` → 303 to /sign-up/verification?flow=<id>
 *
 * Anti-enumeration: Kratos answers the same for known and unknown addresses (contract §10.3); this
 * handler adds the same timing (server/security/uniform-timing.ts) and never mentions the account.
 * Rate limited by IP and by email ('resend').
 */
import { Router, type Request, type Response } from 'express';
import { createElement } from 'react';
import { z } from 'zod';
import { ResendVerificationForm, ResendVerificationPage, type ResendFormProps } from '../../views/pages/ResendVerificationPage.tsx';
import { isFlowId, loadFlow, submitFlow } from '../flows/kratos.ts';
import { flowHasErrors, mapIdentityProviderError } from '../../core/kratos/messages.ts';
import { screenQuery, withParams, type ScreenQuery } from '../flows/query.ts';
import { respondError, respondForm, respondRedirect, responseMode } from '../flows/respond.ts';
import { flowState, prefillFlow, replacementFlow, restartNotice } from '../flows/flow-replacement.ts';
import { formJson, splitFieldErrors, translateFieldErrors, visibleFieldNames } from '../flows/form-answers.ts';
import { echoedInput, flowQuery, parseBody, translateValidation } from '../flows/schemas.ts';
import type { KratosFlow } from '../../core/kratos/types.ts';
import { TOO_MANY_REQUESTS } from '../openapi/registry.ts';
import { authRateLimit } from '../security/rate-limit.ts';
import { startTimer, waitForFloor } from '../security/uniform-timing.ts';
import {
  checkField,
  configOf,
  csrfTokenField,
  documentScreen,
  emailInput,
  flowAnswerSchema,
  flowError,
  jsonFlowError,
  respondWithoutFlow,
  translator,
} from './verification.ts';

export const RESEND_PATH = '/sign-up/resend-verification-email';
const VERIFICATION_PATH = '/sign-up/verification';

export const resendBody = z
  .object({
    csrf_token: csrfTokenField.describe('The csrf_token node of the flow'),
    method: z.enum(['code', 'link']).default('code').describe('The flow\'s method: code (default) or link'),
    email: z.string().optional().describe('The address to send a new verification code to'),
  })
  .superRefine((body, ctx) => checkField(emailInput, body.email, 'email', ctx));

documentScreen(
  [RESEND_PATH],
  {
    summary: 'Resend-verification form (a fresh Kratos verification flow)',
    tags: ['verification'],
    query: flowQuery,
    responses: { 200: { description: 'The flow (state choose_method): post the email to `ui.action`', schema: flowAnswerSchema } },
  },
  {
    summary: 'Send a new verification code to an address',
    description:
      'Answers the same, in about the same time, whether or not the address has an account. On success the flow is in state sent_email and `continue_to` is the verification screen where the code is entered.',
    tags: ['verification'],
    query: flowQuery,
    body: resendBody,
    responses: {
      200: { description: 'Sent (or silently ignored for unknown addresses): continue at continue_to', schema: flowAnswerSchema },
      400: flowError('Invalid email (meta.fields) or Kratos refused it'),
      403: flowError('Flow from another browser: start again with the new flow'),
      404: flowError('Unknown flow: start again with the new flow'),
      410: flowError('Flow expired: continue with the new flow'),
      429: TOO_MANY_REQUESTS,
    },
  },
);

function actionFor(query: ScreenQuery, flowId: string): string {
  return withParams(RESEND_PATH, query.kept, { flow: flowId });
}

function verificationHref(query: ScreenQuery, flowId: string): string {
  const kept = new URLSearchParams(query.kept);
  kept.delete('email'); // the address stays out of the next URL: the flow knows it
  return withParams(VERIFICATION_PATH, kept, { flow: flowId });
}

type RenderOptions = { status: number; fieldErrors?: Record<string, string[]>; formErrors?: string[] };

function render(req: Request, res: Response, query: ScreenQuery, flow: KratosFlow, options: RenderOptions): void {
  const t = translator(req);
  const action = actionFor(query, flow.id);
  const fieldErrors = translateFieldErrors(t, options.fieldErrors) ?? {};
  const formErrors = (options.formErrors ?? []).map((key) => translateValidation(t, key));
  const form: ResendFormProps = {
    action,
    ui: flow.ui,
    values: { email: query.prefillEmail },
    fieldErrors,
    formErrors,
    submitLabels: { 'method:code': t('resend.submit'), 'method:link': t('resend.submit') },
  };
  respondForm(req, res, {
    status: options.status,
    title: t('resend.title'),
    page: () => createElement(ResendVerificationPage, { form, signInHref: withParams('/sign-in', query.kept) }),
    fragment: () => createElement(ResendVerificationForm, form),
    json: () => (options.status < 400 ? { flow: flowState(flow, action) } : formJson(t, flow, action, options.status, options)),
  });
}

/** A verification flow still asking for the email; a used one (code already sent) is replaced. */
async function freshFlow(req: Request, res: Response, query: ScreenQuery, id: unknown) {
  const loaded = await loadFlow(req, res, 'verification', id, { returnTo: query.returnTo });
  if (loaded.ok && loaded.flow.state !== 'choose_method') return loadFlow(req, res, 'verification', undefined, { returnTo: query.returnTo });
  return loaded;
}

async function show(req: Request, res: Response): Promise<void> {
  const query = screenQuery(req, configOf(req));
  const loaded = await freshFlow(req, res, query, req.query.flow);
  if (!loaded.ok) return respondWithoutFlow(req, res, loaded, query.returnTo ?? '/');
  if (loaded.created && responseMode(req) !== 'json') {
    return void res.set('Cache-Control', 'no-store').redirect(303, actionFor(query, loaded.flow.id));
  }
  const notice = restartNotice(loaded.restarted);
  render(req, res, query, loaded.flow, { status: 200, formErrors: notice ? [notice] : [] });
}

async function submit(req: Request, res: Response): Promise<void> {
  const started = startTimer();
  const query = screenQuery(req, configOf(req));
  const t = translator(req);
  const input = echoedInput(req.body);
  const flowId = req.query.flow;
  const parsed = parseBody(resendBody, req.body);
  if (!parsed.ok || !isFlowId(flowId)) {
    const loaded = await freshFlow(req, res, query, flowId);
    if (!loaded.ok) return respondWithoutFlow(req, res, loaded, query.returnTo ?? '/');
    const notice = restartNotice(loaded.restarted);
    const split = splitFieldErrors(parsed.ok ? {} : parsed.fieldErrors, visibleFieldNames(loaded.flow));
    return render(req, res, query, prefillFlow(loaded.flow, input), {
      status: 400,
      fieldErrors: split.fields,
      formErrors: [...(notice ? [notice] : []), ...(parsed.ok ? [] : parsed.formErrors), ...split.form],
    });
  }
  const outcome = await submitFlow(req, res, 'verification', flowId, { method: parsed.data.method, email: parsed.data.email?.trim(), csrf_token: parsed.data.csrf_token });
  await waitForFloor(started);
  switch (outcome.type) {
    case 'invalid': {
      const flow = outcome.flow;
      if (flow.id === flowId && flowHasErrors(flow)) return render(req, res, query, prefillFlow(flow, input), { status: 400 });
      if (flow.id !== flowId || flow.state !== 'sent_email') {
        // Replaced (expired, or already used): start over on a fresh flow, keeping the address.
        const next = await freshFlow(req, res, query, undefined);
        if (!next.ok) return respondWithoutFlow(req, res, next, query.returnTo ?? '/');
        return render(req, res, query, prefillFlow(next.flow, input), { status: 400, formErrors: ['flowError.restartedMissing'] });
      }
      const to = verificationHref(query, flow.id);
      if (responseMode(req) === 'json') {
        return void res.status(200).set('Cache-Control', 'no-store').json({ flow: flowState(flow, withParams(VERIFICATION_PATH, new URLSearchParams(), { flow: flow.id })), continue_to: to });
      }
      return respondRedirect(req, res, to);
    }
    case 'expired':
    case 'csrf':
    case 'missing': {
      const next = await replacementFlow(req, res, 'verification', outcome, { returnTo: query.returnTo });
      if (!next.ok) return respondWithoutFlow(req, res, next, query.returnTo ?? '/');
      const notice = restartNotice(next.restarted);
      if (responseMode(req) === 'json') {
        return jsonFlowError(res, outcome.status, mapIdentityProviderError(outcome.status, outcome.body, t), next.flow, actionFor(query, next.flow.id));
      }
      return render(req, res, query, prefillFlow(next.flow, input), { status: outcome.status, formErrors: notice ? [notice] : [] });
    }
    case 'location':
      return respondRedirect(req, res, outcome.redirectTo);
    case 'success':
    case 'signed_in':
      return respondRedirect(req, res, verificationHref(query, flowId));
    case 'error':
      return respondError(req, res, mapIdentityProviderError(outcome.status, outcome.body, t));
  }
}

export function resendRoutes(): Router {
  const router = Router();
  router.get(RESEND_PATH, show);
  router.post(RESEND_PATH, ...authRateLimit('resend'), submit);
  return router;
}
