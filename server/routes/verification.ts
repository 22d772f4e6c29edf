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
import { codeOrEmailBody, flowAnswerSchema, flowQuery } from '../flows/schemas.ts';
import { safeReturnTo } from '../security/return-to.ts';

const verificationQuery = flowQuery.extend({
  code: z.string().max(16).optional().describe('The code from the emailed link: prefills the code field'),
  token: z.string().max(256).optional().describe('Link method: the token from the emailed link (forwarded to Kratos)'),
});

export const verificationBody = codeOrEmailBody(
  { code: 'The emailed code: verifies the address', email: 'Without `code`: sends a (new) code to this address' },
  true,
);

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
    ...state.form,
    values: { email: query.prefillEmail },
    submitLabels: codeSubmitLabels(flow, t, 'verification'),
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
  body: verificationBody,
  redirectBeforeShow: (screen) => kratosLinkUrl(screen.req, 'verification', screen.req.query.flow, screen.req.query.token),
  prepare: (flow, screen) => withCode(flow, screen.req.query.code),
  toKratos: (body) =>
    body.code
      ? { method: 'code', code: body.code.trim(), csrf_token: body.csrf_token }
      : { method: body.method, email: body.email?.trim(), csrf_token: body.csrf_token },
  view,
  // Kratos answers a verified code with the flow (state passed_challenge); a plain 200 is shown the same way.
  onSuccess: (screen) => respondRedirect(screen.req, screen.res, screen.action(String(screen.req.query.flow))),
  onSignedIn: (screen, _outcome, submittedId) => respondRedirect(screen.req, screen.res, screen.action(submittedId)),
  // 410 self_service_flow_replaced (a finished flow submitted again, contract §10.3): the replacement
  // Kratos made carries message 4070002, so browsers simply move to it.
  followExpiredFlow: true,
  rateLimit: 'verification',
  docs: {
    tag: 'verification',
    query: verificationQuery,
    get: {
      summary: 'Email verification form (Kratos verification flow)',
      description: "`flow` with an emailed link's `token` (link method) answers 303 to Kratos, which checks it and comes back.",
      ok: { description: 'The flow: state choose_method, sent_email or passed_challenge', schema: flowAnswerSchema },
    },
    post: {
      summary: 'Verify the address with the emailed code, or (with `email` only) send a new code',
      ok: { description: 'Code sent (state sent_email) or address verified (state passed_challenge, with continue_to)', schema: flowAnswerSchema },
      invalid: 'Wrong or expired code, invalid email, or validation errors (meta.fields)',
    },
  },
};

export function verificationRoutes() {
  return flowScreenRoutes(verificationScreen);
}
