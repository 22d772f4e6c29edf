/**
 * Email verification on Kratos's verification flow (contract §10), at both addresses of spec §2:
 * `/sign-up/verification` (where sign-up and Kratos's ui_url send the browser) and `/verify-account`
 * (where emailed links land). Served by the flow-screen runner.
 *
 *   GET  ?flow=<id>[&code=<code>]   ask for the email, enter the code (prefilled from an emailed link's
 *                                   `code`), or the success screen. `flow` + `token` (link method) → 303 to
 *                                   Kratos's own link endpoint, which verifies and comes back here.
 *   POST ?flow=<id>                 `code` (verify) or `email` (send / resend a code)
 *
 * After success "Continue" leads into the product (allow-listed return_to, else /) when signed in, and
 * to sign-in otherwise (Kratos issues no session after registration here). Kratos's 4070001 ("token
 * invalid or used") is shown as spec §8 already_verified, with a link to sign in.
 */
import { createElement } from 'react';
import { z } from 'zod';
import { ROUTES, VERIFICATION_PATHS } from '../../core/routes.ts';
import { VerificationForm, VerificationPage, type VerificationFormProps } from '../../views/pages/VerificationPage.tsx';
import { codeSubmitLabels, kratosLinkUrl, sentToEmail, withCode } from '../flows/code-method.ts';
import { flowScreenRoutes, type FlowScreen, type ScreenRequest, type ScreenState } from '../flows/flow-screen.ts';
import { whoami } from '../flows/kratos.ts';
import { respondRedirect } from '../flows/respond.ts';
import { checkField, codeField, codeMethodField, csrfTokenField, emailField, flowAnswerSchema, flowQuery } from '../flows/schemas.ts';
import { flowError, TOO_MANY_REQUESTS } from '../openapi/registry.ts';
import { safeReturnTo } from '../security/return-to.ts';

const verificationQuery = flowQuery.extend({
  code: z.string().max(16).optional().describe('The code from the emailed link: prefills the code field'),
  token: z.string().max(256).optional().describe('Link method: the token from the emailed link (forwarded to Kratos)'),
});

export const verificationBody = z
  .object({
    csrf_token: csrfTokenField,
    method: codeMethodField,
    code: z.string().optional().describe('The emailed code: verifies the address'),
    email: z.string().optional().describe('Without `code`: sends a (new) code to this address'),
  })
  .superRefine((body, ctx) => {
    if (body.code !== undefined && body.code !== '') checkField(codeField, body.code, 'code', ctx);
    else checkField(emailField, body.email, 'email', ctx);
  });

type VerificationBody = z.infer<typeof verificationBody>;

/** Where "Continue" goes after success: into the product when signed in, else to sign-in. */
async function continueTo(screen: ScreenRequest, state: ScreenState) {
  if (state.flow.state !== 'passed_challenge') return undefined;
  const session = await whoami(screen.req, screen.res);
  if (session) return { href: screen.query.returnTo ?? safeReturnTo(state.flow.return_to, screen.config) ?? '/', signedIn: true };
  return { href: screen.link(ROUTES.signIn), signedIn: false };
}

async function view(screen: ScreenRequest, state: ScreenState) {
  const { t, query } = screen;
  const flow = state.flow;
  const next = await continueTo(screen, state);
  const signInHref = screen.link(ROUTES.signIn);
  const form: VerificationFormProps = {
    action: state.action,
    ui: flow.ui,
    values: { email: query.prefillEmail },
    fieldErrors: state.fieldErrors,
    formErrors: state.formErrors,
    submitLabels: codeSubmitLabels(flow, { submit: t('verification.submitCode'), send: t('verification.sendCode'), sendLink: t('verification.sendLink'), resend: t('verification.resendCode') }),
    signInHref,
  };
  return {
    title: t('verification.title'),
    page: () =>
      createElement(VerificationPage, {
        state: flow.state ?? 'choose_method',
        method: flow.active,
        form,
        email: sentToEmail(flow),
        continueHref: next?.href ?? signInHref,
        signedIn: next?.signedIn ?? false,
        resendHref: screen.link(ROUTES.resendVerification),
        signInHref,
      }),
    fragment: () => createElement(VerificationForm, form),
    jsonExtra: next ? { continue_to: next.href } : undefined,
  };
}

export const verificationScreen: FlowScreen<VerificationBody> = {
  kind: 'verification',
  paths: VERIFICATION_PATHS,
  rateLimit: 'verification',
  body: verificationBody,
  flowParams: (screen) => ({ returnTo: screen.query.returnTo }),
  redirectBeforeShow: (screen) => kratosLinkUrl(screen.req, 'verification', screen.req.query.flow, screen.req.query.token),
  prepare: (flow, screen) => withCode(flow, screen.req.query.code),
  view,
  toKratos: (body) =>
    body.code ? { method: 'code', code: body.code.trim(), csrf_token: body.csrf_token } : { method: body.method, email: body.email?.trim(), csrf_token: body.csrf_token },
  // Kratos answers a verified code with the flow (state passed_challenge); a plain 200 is shown the same way.
  onSuccess: (screen) => respondRedirect(screen.req, screen.res, screen.action(String(screen.req.query.flow))),
  onSignedIn: (screen, _outcome, submittedId) => respondRedirect(screen.req, screen.res, screen.action(submittedId)),
  // 410 self_service_flow_replaced (a finished flow submitted again, contract §10.3): the replacement
  // Kratos made carries message 4070002, so browsers simply move to it.
  followExpiredFlow: true,
  docs: {
    get: {
      summary: 'Email verification form (Kratos verification flow)',
      description: 'Without `flow` (or with an expired or foreign one) a new flow is created; HTML answers 303 to `?flow=<id>`.',
      tags: ['verification'],
      query: verificationQuery,
      responses: {
        200: { description: 'The flow: state choose_method, sent_email or passed_challenge', schema: flowAnswerSchema },
        303: { description: 'HTML: to the new flow, or (link method) to Kratos to check the token' },
      },
    },
    post: {
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
  },
};

export function verificationRoutes() {
  return flowScreenRoutes(verificationScreen);
}
