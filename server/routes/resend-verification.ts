/**
 * `/sign-up/resend-verification-email`: asks for the email and sends a new verification code through a
 * fresh Kratos verification flow, then continues on the verification screen with that flow (enter the
 * code). No login required (spec §2). Served by the flow-screen runner.
 *
 * Anti-enumeration: Kratos answers the same for known and unknown addresses (contract §10.3); the
 * runner adds the same timing (server/security/uniform-timing.ts) and the page never mentions the
 * account. Rate limited by IP and by email ('resend').
 */
import { createElement } from 'react';
import { z } from 'zod';
import { flowHasErrors } from '../../core/kratos/messages.ts';
import { ROUTES } from '../../core/routes.ts';
import { ResendVerificationForm, ResendVerificationPage, type ResendFormProps } from '../../views/pages/ResendVerificationPage.tsx';
import { flowScreenRoutes, renderScreen, type FlowScreen, type ScreenRequest, type ScreenState } from '../flows/flow-screen.ts';
import { flowState, prefillFlow } from '../flows/flow-replacement.ts';
import { respondWithoutFlow } from '../flows/form-answers.ts';
import { loadFlow } from '../flows/kratos.ts';
import { respondRedirect, responseMode } from '../flows/respond.ts';
import { checkField, codeMethodField, csrfTokenField, emailField, flowAnswerSchema } from '../flows/schemas.ts';

export const resendBody = z
  .object({
    csrf_token: csrfTokenField,
    method: codeMethodField,
    email: z.string().optional().describe('The address to send a new verification code to'),
  })
  .superRefine((body, ctx) => checkField(emailField, body.email, 'email', ctx));

type ResendBody = z.infer<typeof resendBody>;

/** The verification screen for a flow; the address stays out of the URL (the flow knows it). */
function verificationHref(screen: ScreenRequest, flowId: string): string {
  return screen.link(ROUTES.verification, { flow: flowId, email: undefined });
}

/** A verification flow still asking for the email; a used one (code already sent) is replaced. */
async function freshFlow(screen: ScreenRequest, id: unknown) {
  const params = { returnTo: screen.query.returnTo };
  const loaded = await loadFlow(screen.req, screen.res, 'verification', id, params);
  if (loaded.ok && loaded.flow.state !== 'choose_method') return loadFlow(screen.req, screen.res, 'verification', undefined, params);
  return loaded;
}

function view(screen: ScreenRequest, state: ScreenState) {
  const { t, query } = screen;
  const submitLabels = { 'method:code': t('resend.submit'), 'method:link': t('resend.submit') };
  const form: ResendFormProps = { ...state.form, values: { email: query.prefillEmail }, submitLabels };
  return {
    title: t('resend.title'),
    page: () => createElement(ResendVerificationPage, { form, signInHref: screen.link(ROUTES.signIn) }),
    fragment: () => createElement(ResendVerificationForm, form),
  };
}

export const resendVerificationScreen: FlowScreen<ResendBody> = {
  kind: 'verification',
  paths: [ROUTES.resendVerification],
  body: resendBody,
  load: freshFlow,
  toKratos: (body) => ({ method: body.method, email: body.email?.trim(), csrf_token: body.csrf_token }),
  view,
  uniformTiming: () => true,
  async onFlow(screen, flow, submittedId) {
    const { req, res } = screen;
    if (flow.id === submittedId && flow.state === 'sent_email') {
      // Sent: the code is entered on the verification screen.
      const to = verificationHref(screen, flow.id);
      if (responseMode(req) !== 'json') respondRedirect(req, res, to);
      else
        res
          .status(200)
          .set('Cache-Control', 'no-store')
          .json({ flow: flowState(flow, verificationHref(screen, flow.id)), continue_to: to });
      return true;
    }
    if (flow.id === submittedId && flowHasErrors(flow)) return false; // the form again, with its errors
    // Replaced (expired), or used already: start over on a fresh flow, keeping the address.
    const next = await freshFlow(screen, undefined);
    if (!next.ok) respondWithoutFlow(req, res, next, screen.query.returnTo ?? '/');
    else await renderScreen(resendVerificationScreen, screen, prefillFlow(next.flow, screen.input), 400, { formErrors: ['flowError.restartedMissing'] });
    return true;
  },
  onSuccess: (screen) => respondRedirect(screen.req, screen.res, verificationHref(screen, String(screen.req.query.flow))),
  onSignedIn: (screen, _outcome, submittedId) => respondRedirect(screen.req, screen.res, verificationHref(screen, submittedId)),
  rateLimit: 'resend',
  docs: {
    tag: 'verification',
    get: {
      summary: 'Resend-verification form (a fresh Kratos verification flow)',
      ok: { description: 'The flow (state choose_method): post the email to `ui.action`', schema: flowAnswerSchema },
    },
    post: {
      summary: 'Send a new verification code to an address',
      description:
        'Answers the same, in about the same time, whether or not the address has an account. On success the flow is in state sent_email and `continue_to` is the verification screen where the code is entered.',
      ok: { description: 'Sent (or silently ignored for unknown addresses): continue at continue_to', schema: flowAnswerSchema },
      invalid: 'Invalid email (meta.fields) or Kratos refused it',
    },
  },
};

export function resendVerificationRoutes() {
  return flowScreenRoutes(resendVerificationScreen);
}
