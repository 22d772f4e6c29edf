/**
 * /forgot-password (guests only): password recovery on Kratos's recovery flow (contract §9), served by
 * the flow-screen runner. The new password is then set on /forgot-password/reset (reset-password.ts).
 *
 *   GET  [?flow=]    `flow` + `token` (link method) → 303 to Kratos's own link endpoint
 *   POST ?flow=      `email` (send a code; same answer and timing for unknown addresses) or `code` (check
 *                    it). A right code makes Kratos open a session and a settings flow, answered as 422
 *                    browser_location_change_required to its settings ui_url (or continue_with
 *                    show_settings_ui): we send the browser to the reset screen for that flow instead.
 *
 * Rate limited ('recovery') by IP and, for the email step, by email.
 */
import { createElement } from 'react';
import { z } from 'zod';
import type { Request } from 'express';
import { ROUTES } from '../../core/routes.ts';
import type { ContinueWithItem } from '../../core/kratos/types.ts';
import { ForgotPasswordForm, ForgotPasswordPage, type ForgotPasswordFormProps } from '../../views/pages/ForgotPasswordPage.tsx';
import { codeSubmitLabels, kratosLinkUrl } from '../flows/code-method.ts';
import { flowScreenRoutes, type FlowScreen, type ScreenRequest, type ScreenState } from '../flows/flow-screen.ts';
import { isFlowId } from '../flows/kratos.ts';
import { withParams, type ScreenQuery } from '../flows/query.ts';
import { respondRedirect } from '../flows/respond.ts';
import { codeOrEmailBody, flowAnswerSchema, flowQuery } from '../flows/schemas.ts';
import { guestOnly } from '../flows/session.ts';
import { configOf } from '../request-context.ts';
import { backendClientFor } from '../backend-client.ts';
import { safeReturnTo } from '../security/return-to.ts';
import { SIGNED_IN } from '../flows/flow-screen-docs.ts';

const redirectAnswerSchema = z.object({ redirect_to: z.string().describe('Where the browser goes next') }).meta({ id: 'RedirectAnswer' });

export const recoveryBody = codeOrEmailBody(
  { code: 'Step two: the emailed recovery code', email: 'Step one (and "send a new code"): the account address' },
  false,
);

type RecoveryBody = z.infer<typeof recoveryBody>;

const recoveryQuery = flowQuery.extend({
  token: z.string().max(256).optional().describe('Link method: the token from the emailed link (forwarded to Kratos)'),
});

function resetHref(query: ScreenQuery, settingsFlowId: string): string {
  const kept = new URLSearchParams(query.kept);
  kept.delete('email');
  kept.delete('loginHint');
  return withParams(ROUTES.resetPassword, kept, { flow: settingsFlowId });
}

/**
 * Where a recovered browser goes: Kratos points at its settings ui_url (our profile screen) with the new
 * settings flow; we show the focused reset screen for that flow instead. Any other target
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
      if (ours && url.pathname === ROUTES.profile && isFlowId(flow)) return resetHref(query, flow);
    } catch {
      // fall through to the allow-list check
    }
  }
  return safeReturnTo(redirectTo, config) ?? query.returnTo ?? '/';
}

// Kratos's "an email containing a recovery link / code has been sent": the sent screen's subtitle says it,
// hedged for an address that may have no account (recovery.codeSubtitle), so the flat claim is left out.
const SAID_BY_SUBTITLE = new Set([1060002, 1060003]);

function view(screen: ScreenRequest, state: ScreenState) {
  const { t, query } = screen;
  const flow = state.flow;
  const messages = state.form.ui.messages?.filter((message) => !SAID_BY_SUBTITLE.has(message.id));
  const form: ForgotPasswordFormProps = {
    ...state.form,
    ui: { ...state.form.ui, messages },
    values: { email: query.prefillEmail },
    submitLabels: codeSubmitLabels(flow, t, 'recovery'),
  };
  return {
    title: flow.state === 'sent_email' ? t('recovery.codeTitle') : t('recovery.title'),
    page: () => createElement(ForgotPasswordPage, { state: flow.state ?? 'choose_method', method: flow.active, form, signInHref: screen.link(ROUTES.signIn) }),
    fragment: () => createElement(ForgotPasswordForm, form),
  };
}

/**
 * Spec §7 `auth/forgot-password`, once a recovery code was requested for an address (Kratos sent the code,
 * or answered as if it had). In the background, for every address alike, so the answer and its timing say
 * nothing more than before; a failure is logged and the user goes on with Kratos's code (decision 150).
 */
function tellBackend(screen: ScreenRequest): void {
  const email = screen.req.method === 'POST' && !screen.input.code ? screen.input.email?.trim() : undefined;
  if (!email) return;
  const log = screen.req.log;
  backendClientFor(screen.req)
    .forgotPassword(email)
    .catch((error: unknown) => log?.warn({ code: (error as { code?: string }).code }, 'backend forgot-password failed'));
}

export const forgotPasswordScreen: FlowScreen<RecoveryBody> = {
  kind: 'recovery',
  paths: [ROUTES.forgotPassword],
  body: recoveryBody,
  redirectBeforeShow: (screen) => kratosLinkUrl(screen.req, 'recovery', screen.req.query.flow, screen.req.query.token),
  toKratos: (body) =>
    body.email
      ? { method: body.method, email: body.email.trim(), csrf_token: body.csrf_token }
      : { method: 'code', code: body.code?.trim(), csrf_token: body.csrf_token },
  view,
  uniformTiming: (body) => Boolean(body.email),
  onFlow(screen, flow, submittedId) {
    if (flow.id === submittedId && flow.state === 'sent_email') tellBackend(screen);
    if (!flow.continue_with?.some((item) => item.action === 'show_settings_ui')) return false;
    respondRedirect(screen.req, screen.res, recoveredTarget(screen.req, screen.query, undefined, flow.continue_with));
    return true;
  },
  onSuccess: (screen, outcome) => respondRedirect(screen.req, screen.res, recoveredTarget(screen.req, screen.query, undefined, outcome.data.continue_with)),
  onLocation: (screen, outcome) => respondRedirect(screen.req, screen.res, recoveredTarget(screen.req, screen.query, outcome.redirectTo)),
  guards: [guestOnly],
  rateLimit: 'recovery',
  docs: {
    tag: 'recovery',
    query: recoveryQuery,
    get: {
      summary: 'Forgot-password form (Kratos recovery flow)',
      ok: { description: 'The flow: state choose_method (ask for the email) or sent_email (ask for the code)', schema: flowAnswerSchema },
      more: SIGNED_IN,
    },
    post: {
      summary: 'Send a recovery code (`email`) or check it (`code`)',
      description:
        'The email step answers the same, in about the same time, whether or not the address has an account. A right code opens a session (cookie) and answers `redirect_to` = the reset-password screen.',
      ok: {
        description: 'Code sent or wrong code (a flow, messages in `ui.messages`), or recovered (`redirect_to`)',
        schema: z.union([flowAnswerSchema, redirectAnswerSchema]),
      },
      invalid: 'Invalid email or code format (meta.fields), or Kratos refused the input',
    },
  },
};

export function forgotPasswordRoutes() {
  return flowScreenRoutes(forgotPasswordScreen);
}
