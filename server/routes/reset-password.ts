/**
 * /forgot-password/reset: the settings flow that recovery opens, narrowed to "new password", served by
 * the flow-screen runner. It needs the session recovery opened; without one the browser goes back to
 * /forgot-password.
 *
 *   GET  ?flow=   the password form, or the confirmation once saved (state success)
 *   POST ?flow=   `password` → the confirmation, then on to return_to or /
 */
import type { RequestHandler } from 'express';
import { createElement } from 'react';
import { z } from 'zod';
import { mapIdentityProviderError } from '../../core/kratos/messages.ts';
import { ROUTES } from '../../core/routes.ts';
import type { KratosFlow } from '../../core/kratos/types.ts';
import { ResetPasswordForm, ResetPasswordPage, type ResetPasswordFormProps } from '../../views/pages/ResetPasswordPage.tsx';
import { flowScreenRoutes, type FlowScreen, type ScreenRequest, type ScreenState } from '../flows/flow-screen.ts';
import { whoami } from '../flows/kratos.ts';
import { screenQuery, withParams } from '../flows/query.ts';
import { respondError, respondRedirect, responseMode } from '../flows/respond.ts';
import { checkField, csrfTokenField, flowAnswerSchema, passwordField } from '../flows/schemas.ts';
import { errorResponse, flowError } from '../openapi/registry.ts';
import { configOf, translator } from '../request-context.ts';

export const resetPasswordBody = z
  .object({
    csrf_token: csrfTokenField,
    method: z.enum(['password']).default('password'),
    password: z.string().optional().describe('The new password, 8 to 72 characters'),
  })
  .superRefine((body, ctx) => checkField(passwordField, body.password, 'password', ctx));

type ResetPasswordBody = z.infer<typeof resetPasswordBody>;

/** Without the session recovery opened there is nothing to reset: back to the start. */
const requireRecoverySession: RequestHandler = async (req, res, next) => {
  if (await whoami(req, res)) return next();
  if (responseMode(req) === 'json') return respondError(req, res, mapIdentityProviderError(401, undefined, translator(req)));
  respondRedirect(req, res, withParams(ROUTES.forgotPassword, screenQuery(req, configOf(req)).kept));
};

/** The settings flow reduced to what this screen is about: the CSRF token and the password group. */
function passwordOnly(flow: KratosFlow): KratosFlow {
  const nodes = flow.ui.nodes.filter((node) => node.attributes.name === 'csrf_token' || node.group === 'password');
  return { ...flow, ui: { ...flow.ui, nodes } };
}

function view(screen: ScreenRequest, state: ScreenState) {
  const { t } = screen;
  const done = state.flow.state === 'success';
  const continueHref = screen.query.returnTo ?? '/';
  const form: ResetPasswordFormProps = { ...state.form, submitLabels: { 'method:password': t('recovery.savePassword') } };
  return {
    title: done ? t('recovery.doneTitle') : t('recovery.resetTitle'),
    page: () => createElement(ResetPasswordPage, { done, form, continueHref }),
    fragment: () => createElement(ResetPasswordForm, form),
    jsonExtra: done ? { continue_to: continueHref } : undefined,
  };
}

/**
 * 401 (session gone) or 403 session_refresh_required (the recovery session is older than the
 * privileged window): the only way on for a browser is a new recovery. Anything else is an error.
 */
function startOver(screen: ScreenRequest, status: number, body: unknown): void {
  const { req, res } = screen;
  if ((status === 401 || status === 403) && responseMode(req) !== 'json') return respondRedirect(req, res, screen.link(ROUTES.forgotPassword));
  respondError(req, res, mapIdentityProviderError(status, body, screen.t));
}

export const resetPasswordScreen: FlowScreen<ResetPasswordBody> = {
  kind: 'settings',
  paths: [ROUTES.resetPassword],
  body: resetPasswordBody,
  prepare: passwordOnly,
  toKratos: (body) => ({ method: 'password', password: body.password, csrf_token: body.csrf_token }),
  view,
  onSuccess: (screen) => respondRedirect(screen.req, screen.res, screen.action(String(screen.req.query.flow))),
  onLocation: (screen, outcome) => startOver(screen, outcome.status, outcome.body),
  onSignedIn: (screen, outcome) => startOver(screen, outcome.status, outcome.body),
  onError: (screen, outcome) => startOver(screen, outcome.status, outcome.body),
  guards: [requireRecoverySession],
  rateLimit: 'recovery',
  docs: {
    tag: 'recovery',
    get: {
      summary: 'Reset-password form: the settings flow opened by recovery, narrowed to the password',
      ok: { description: 'The settings flow (password nodes only); state success once saved', schema: flowAnswerSchema },
      more: { 401: errorResponse('No session: start recovery again') },
    },
    post: {
      summary: 'Set the new password',
      ok: { description: 'Saved: the flow in state success and `continue_to`', schema: flowAnswerSchema },
      invalid: 'Too short, too long, too similar to the email, or found in a breach',
      more: { 401: errorResponse('No session: start recovery again'), 403: flowError('Session too old for a password change, or flow from another browser') },
    },
  },
};

export function resetPasswordRoutes() {
  return flowScreenRoutes(resetPasswordScreen);
}
