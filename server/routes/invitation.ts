/**
 * /sign-up/invitation (no login required): creating an account from an invitation.
 *
 *   GET  /sign-up/invitation?token=…   the form, with the invited e-mail locked; a bad, used or expired
 *                                      token gets a translated page (404/410) instead
 *   POST /sign-up/invitation           _csrf, token, password, name?, terms → backend auth/sign-up-invitation,
 *                                      which creates the identity with the invited address verified; then
 *                                      we sign the new user in through a Kratos login flow and go to /
 *
 * The e-mail is never read from the request: the backend takes it from the invitation.
 */
import { ROUTES } from '../../core/routes.ts';
import { Router, type Request, type Response } from 'express';
import { createElement } from 'react';
import { z } from 'zod';
import { InvitationForm, InvitationPage, type InvitationFormProps, type InvitationProblem } from '../../views/pages/InvitationPage.tsx';
import { BackendError, backendClientFor, type Invitation } from '../backend-client.ts';
import { translator } from '../request-context.ts';
import { createFlow, flowCsrfToken, submitFlow } from '../flows/kratos.ts';
import { errorBody, respondForm, respondRedirect, responseMode } from '../flows/respond.ts';
import { LIMITS, nameField, passwordField, translateValidation } from '../flows/schemas.ts';
import { SIGN_IN_PATH } from '../flows/session.ts';
import { documentEndpoint, errorResponse, TOO_MANY_REQUESTS } from '../openapi/registry.ts';
import { provideCsrfToken, requireCsrf } from '../security/csrf.ts';
import { authRateLimit } from '../security/rate-limit.ts';

const TOKEN = /^[A-Za-z0-9_-]{1,200}$/;
const ACCEPTED = new Set(['on', 'true', '1', 'yes', 'accepted']);
const AFTER_SIGN_UP = '/';

const invitationQuery = z.object({ token: z.string().max(200).describe('The invitation token from the invitation e-mail') });

const invitationBody = z.object({
  _csrf: z.string().optional().describe('Our CSRF token (or the x-csrf-token header)'),
  token: z.string().max(200),
  password: z.string().min(LIMITS.passwordMin).max(LIMITS.passwordMax),
  name: z.string().max(LIMITS.nameMax).optional(),
  terms: z.union([z.string(), z.boolean()]).describe('Acceptance of the terms of use: "on" or true'),
});

documentEndpoint({
  method: 'get',
  path: ROUTES.invitation,
  summary: 'The invitation sign-up form (the invited e-mail is locked)',
  tags: ['sign-up'],
  query: invitationQuery,
  responses: {
    200: { description: 'The invitation', schema: z.object({ email: z.string(), expiresAt: z.string().nullable() }) },
    400: errorResponse('invitation_token_missing: no token in the link'),
    404: errorResponse('invalid_invitation_token'),
    410: errorResponse('invitation_token_used or invitation_token_expired'),
    503: errorResponse('Invitations cannot be checked right now'),
  },
});

documentEndpoint({
  method: 'post',
  path: ROUTES.invitation,
  summary: 'Create the account of an invitation and sign in',
  description: 'The e-mail comes from the invitation, never from the request. On success the new user is signed in (session cookie set).',
  tags: ['sign-up'],
  body: invitationBody,
  responses: {
    200: { description: 'Created and signed in; HTML posts get 303', schema: z.object({ redirect_to: z.string(), email: z.string(), signedIn: z.boolean() }) },
    400: errorResponse('validation_error (meta.fields) or invalid_invitation_token'),
    403: errorResponse('Missing or wrong CSRF token'),
    409: errorResponse('email_exists: an account with the invited address exists'),
    410: errorResponse('invitation_token_used or invitation_token_expired'),
    429: TOO_MANY_REQUESTS,
    503: errorResponse('Invitations cannot be accepted right now'),
  },
});

type Problem = { problem: InvitationProblem; status: number; code: string };

/** A backend refusal of the token → which page to show. */
function problemOf(error: unknown): Problem | null {
  if (!(error instanceof BackendError)) throw error;
  if (error.code === 'invitation_token_used') return { problem: 'used', status: 410, code: error.code };
  if (error.code === 'invitation_token_expired') return { problem: 'expired', status: 410, code: error.code };
  if (error.code === 'invalid_invitation_token') return { problem: 'invalid', status: 404, code: error.code };
  return null;
}

function respondProblem(req: Request, res: Response, problem: Problem): void {
  const t = translator(req);
  const message = t(`invitation.${problem.problem}`);
  respondForm(req, res, {
    status: problem.status,
    title: t('invitation.invalidTitle'),
    page: () => createElement(InvitationPage, { problem: problem.problem }),
    fragment: () => createElement(InvitationPage, { problem: problem.problem }),
    json: () => errorBody({ status: problem.status, code: problem.code, message, meta: {} }),
  });
}

function unavailable(req: Request, error: unknown): Problem {
  if (error instanceof BackendError) req.log?.warn({ code: error.code, status: error.status }, 'invitation service failed');
  return { problem: 'unavailable', status: 503, code: 'invitation_unavailable' };
}

function tokenOf(value: unknown): string | null {
  return typeof value === 'string' && TOKEN.test(value) ? value : null;
}

/** Looks the invitation up; answers for itself (problem page) when it cannot be used. */
async function invitationOrAnswer(req: Request, res: Response, token: string | null): Promise<Invitation | null> {
  if (!token) {
    const sent = Boolean(req.query.token || req.body?.token);
    respondProblem(
      req,
      res,
      sent
        ? { problem: 'invalid', status: 404, code: 'invalid_invitation_token' }
        : { problem: 'missing', status: 400, code: 'invitation_token_missing' },
    );
    return null;
  }
  try {
    return await backendClientFor(req).getInvitation(token);
  } catch (error) {
    respondProblem(req, res, problemOf(error) ?? unavailable(req, error));
    return null;
  }
}

function renderForm(req: Request, res: Response, status: number, form: InvitationFormProps, error?: { code: string; message: string; meta?: Record<string, unknown> }): void {
  const t = translator(req);
  respondForm(req, res, {
    status,
    title: t('invitation.title'),
    page: () => createElement(InvitationPage, { form }),
    fragment: () => createElement(InvitationForm, form),
    json: () => (error ? errorBody({ status, code: error.code, message: error.message, meta: error.meta ?? {} }) : { email: form.email }),
  });
}

async function show(req: Request, res: Response): Promise<void> {
  const token = tokenOf(req.query.token);
  const invitation = await invitationOrAnswer(req, res, token);
  if (!invitation) return;
  if (responseMode(req) === 'json') return void res.set('Cache-Control', 'no-store').json({ email: invitation.email, expiresAt: invitation.expiresAt });
  renderForm(req, res, 200, { token: token!, email: invitation.email });
}

/** Signs the new account in through a Kratos login flow, relaying its cookies; false if that did not work. */
async function signInNewAccount(req: Request, res: Response, email: string, password: string): Promise<boolean> {
  const flow = await createFlow(req, res, 'login');
  if (!flow.ok) return false;
  const outcome = await submitFlow(req, res, 'login', flow.data.id, {
    method: 'password',
    identifier: email,
    password,
    csrf_token: flowCsrfToken(flow.data) ?? '',
  });
  return outcome.type === 'success';
}

async function submit(req: Request, res: Response): Promise<void> {
  const t = translator(req);
  const body = (req.body ?? {}) as Record<string, unknown>;
  const token = tokenOf(body.token);
  const invitation = await invitationOrAnswer(req, res, token);
  if (!invitation) return;
  const name = typeof body.name === 'string' ? body.name.trim() : '';
  const password = typeof body.password === 'string' ? body.password : '';
  const form: InvitationFormProps = { token: token!, email: invitation.email, name };

  const fieldErrors: Record<string, string> = {};
  const checkedName = nameField.safeParse(name);
  if (!checkedName.success) fieldErrors.name = translateValidation(t, checkedName.error.issues[0]?.message ?? 'validation.nameTooLong');
  const checkedPassword = passwordField.safeParse(password);
  if (!checkedPassword.success) fieldErrors.password = translateValidation(t, checkedPassword.error.issues[0]?.message ?? 'validation.required');
  if (!ACCEPTED.has(String(body.terms ?? '').toLowerCase())) fieldErrors.terms = t('validation.termsRequired');
  if (Object.keys(fieldErrors).length > 0) {
    return renderForm(req, res, 400, { ...form, fieldErrors }, { code: 'validation_error', message: t('flowError.validationFailed'), meta: { fields: fieldErrors } });
  }

  let created: { identityId: string; email: string };
  try {
    created = await backendClientFor(req).signUpInvitation({ token: token!, password, ...(name ? { name } : {}) });
  } catch (error) {
    const problem = problemOf(error);
    if (problem) return respondProblem(req, res, problem);
    if (error instanceof BackendError && error.code === 'email_exists') {
      const signInHref = `${SIGN_IN_PATH}?loginHint=${encodeURIComponent(invitation.email)}`;
      return renderForm(req, res, 409, { ...form, formError: t('invitation.emailExists'), signInHref }, { code: 'email_exists', message: t('invitation.emailExists') });
    }
    if (error instanceof BackendError && error.status === 400) {
      // The identity service refused the password (its own policy): say so on the password field.
      const message = t('errorMessage.unknownError');
      return renderForm(req, res, 400, { ...form, fieldErrors: { password: message } }, { code: error.code, message });
    }
    const failure = unavailable(req, error);
    return renderForm(req, res, 503, { ...form, formError: t('invitation.unavailable') }, { code: failure.code, message: t('invitation.unavailable') });
  }

  const signedIn = await signInNewAccount(req, res, created.email, password).catch(() => false);
  const target = signedIn ? AFTER_SIGN_UP : `${SIGN_IN_PATH}?loginHint=${encodeURIComponent(created.email)}`;
  respondRedirect(req, res, target, { email: created.email, signedIn });
}

export function invitationRoutes(): Router {
  const router = Router();
  router.get(ROUTES.invitation, provideCsrfToken, show);
  router.post(ROUTES.invitation, ...authRateLimit('sign-up'), requireCsrf, provideCsrfToken, submit);
  return router;
}
