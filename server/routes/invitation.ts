/**
 * /sign-up/invitation (no login required): creating an account from an invitation.
 *
 *   GET  /sign-up/invitation?token=…   the form, with the invited e-mail locked; a bad, used or expired
 *                                      token gets a translated page (404/410) instead
 *   POST /sign-up/invitation           _csrf, token, password, name?, terms → backend auth/sign-up-invitation,
 *                                      which creates the identity with the invited address verified; then
 *                                      we sign the new user in through a Kratos login flow and go to /
 *
 * The backend creates the identity through Kratos's admin API, which applies no password policy. So the
 * backend is given a random strong password, and the chosen one is then set through a Kratos settings flow
 * of the new session, where Kratos's whole policy applies (breached, too similar to the address, …). A
 * password it refuses leaves the account with the random one: the person lands on the profile's password
 * form, Kratos's reason shown, to choose another (nothing else can sign in with it meanwhile).
 *
 * The e-mail is never read from the request: the backend takes it from the invitation.
 */
import { randomBytes } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import { createElement } from 'react';
import { z } from 'zod';
import { AppError, errorBody, ERROR_CODES } from '../../core/errors.ts';
import { mapIdentityProviderError } from '../../core/kratos/messages.ts';
import type { KratosFlow } from '../../core/kratos/types.ts';
import { pathWithQuery, ROUTES } from '../../core/routes.ts';
import { InvitationForm, InvitationPage, type InvitationFormProps, type InvitationProblem } from '../../views/pages/InvitationPage.tsx';
import { backendClientFor, type Invitation } from '../backend-client.ts';
import { translator } from '../request-context.ts';
import { createFlow, flowCsrfToken, submitFlow } from '../flows/kratos.ts';
import { respondForm, respondRedirect, responseMode } from '../flows/respond.ts';
import { nameField, passwordField, translateValidation } from '../flows/schemas.ts';
import { LOG_REASONS } from '../log-reasons.ts';
import { documentEndpoint, errorResponse, TOO_MANY_REQUESTS } from '../openapi/registry.ts';
import { ensureCsrfToken, provideCsrfToken, requireCsrf } from '../security/csrf.ts';
import { authRateLimit } from '../security/rate-limit.ts';
import { settingsAction } from './profile/context.ts';
import { addFlash } from './profile/flash.ts';

const TOKEN = /^[A-Za-z0-9_-]{1,200}$/;
const ACCEPTED = new Set(['on', 'true', '1', 'yes', 'accepted']);

const invitationQuery = z.object({ token: z.string().max(200).describe('The invitation token from the invitation e-mail') });

const invitationBody = z.object({
  _csrf: z.string().optional().describe('Our CSRF token (or the x-csrf-token header)'),
  token: z.string().max(200),
  password: passwordField,
  name: nameField.optional(),
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
  description:
    'The e-mail comes from the invitation, never from the request. On success the new user is signed in (session cookie set). ' +
    "The password is set under the identity service's password policy: one it refuses leaves the account signed in without a usable password, " +
    'redirect_to then leads to the profile password form and passwordRefused says why.',
  tags: ['sign-up'],
  body: invitationBody,
  responses: {
    200: {
      description: 'Created and signed in; HTML posts get 303',
      schema: z.object({
        redirect_to: z.string(),
        email: z.string(),
        signedIn: z.boolean(),
        passwordRefused: z.string().optional().describe('The password was not accepted (why, translated): choose another on the profile'),
      }),
    },
    400: errorResponse('validation_error (meta.fields), invalid_invitation_token, or what else the backend refused (e.g. identity_rejected)'),
    403: errorResponse('Missing or wrong CSRF token'),
    409: errorResponse('email_exists: an account with the invited address exists'),
    410: errorResponse('invitation_token_used or invitation_token_expired'),
    429: TOO_MANY_REQUESTS,
    503: errorResponse('Invitations cannot be accepted right now'),
  },
});

type Problem = { problem: InvitationProblem; status: number };

/** Why an invitation cannot be used, by code: the first three are the backend's refusals of the token. */
const PROBLEMS: Readonly<Record<string, Problem>> = {
  invitation_token_used: { problem: 'used', status: 410 },
  invitation_token_expired: { problem: 'expired', status: 410 },
  invalid_invitation_token: { problem: 'invalid', status: 404 },
  invitation_token_missing: { problem: 'missing', status: 400 },
  invitation_unavailable: { problem: 'unavailable', status: 503 },
};
const TOKEN_REFUSALS = new Set(['invitation_token_used', 'invitation_token_expired', 'invalid_invitation_token']);

function respondProblem(req: Request, res: Response, code: string): void {
  const t = translator(req);
  const { problem, status } = PROBLEMS[code]!;
  const page = () => createElement(InvitationPage, { problem });
  const json = () => errorBody(new AppError(status, code, t(`invitation.${problem}`)));
  respondForm(req, res, { status, title: t('invitation.invalidTitle'), page, fragment: page, json });
}

/** A failed backend call: the token's refusal, else the service is unavailable (logged). */
function problemCode(req: Request, error: unknown): string {
  if (!(error instanceof AppError)) throw error;
  if (TOKEN_REFUSALS.has(error.code)) return error.code;
  req.log?.warn({ code: error.code, status: error.status }, 'invitation service failed');
  return 'invitation_unavailable';
}

const tokenOf = (value: unknown): string | null => (typeof value === 'string' && TOKEN.test(value) ? value : null);

/** Looks the invitation up; answers for itself (problem page) when it cannot be used. */
async function invitationOrAnswer(req: Request, res: Response, token: string | null): Promise<Invitation | null> {
  if (!token) {
    respondProblem(req, res, req.query.token || req.body?.token ? 'invalid_invitation_token' : 'invitation_token_missing');
    return null;
  }
  try {
    return await backendClientFor(req).getInvitation(token);
  } catch (error) {
    respondProblem(req, res, problemCode(req, error));
    return null;
  }
}

function renderForm(req: Request, res: Response, status: number, form: InvitationFormProps, error?: AppError): void {
  respondForm(req, res, {
    status,
    title: translator(req)('invitation.title'),
    page: () => createElement(InvitationPage, { form }),
    fragment: () => createElement(InvitationForm, form),
    json: () => (error ? errorBody(error) : { email: form.email }),
  });
}

/** The sign-in page with the invited address filled in. */
const signInAs = (email: string) => pathWithQuery(ROUTES.signIn, { loginHint: email });

async function show(req: Request, res: Response): Promise<void> {
  const token = tokenOf(req.query.token);
  const invitation = await invitationOrAnswer(req, res, token);
  if (!invitation) return;
  if (responseMode(req) === 'json') return void res.set('Cache-Control', 'no-store').json({ email: invitation.email, expiresAt: invitation.expiresAt });
  await ensureCsrfToken(req, res); // only a token the backend accepted earns a stored session (decision 080)
  renderForm(req, res, 200, { token: token!, email: invitation.email });
}

type ChosenPassword = { result: 'set' } | { result: 'refused'; flow: KratosFlow } | { result: 'failed' };

/** Sets the chosen password through a settings flow of the new session, under Kratos's whole password policy. */
async function setChosenPassword(req: Request, res: Response, password: string): Promise<ChosenPassword> {
  const flow = await createFlow(req, res, 'settings');
  if (!flow.ok) return { result: 'failed' };
  const body = { method: 'password', password, csrf_token: flowCsrfToken(flow.data) ?? '' };
  const outcome = await submitFlow(req, res, 'settings', flow.data.id, body);
  // Kratos answers a settings save with the flow itself, in state success.
  if (outcome.type === 'success' || (outcome.type === 'invalid' && outcome.flow.state === 'success')) return { result: 'set' };
  return outcome.type === 'invalid' ? { result: 'refused', flow: outcome.flow } : { result: 'failed' };
}

/** Signs the new account in through a Kratos login flow, relaying its cookies; false if that did not work. */
async function signInNewAccount(req: Request, res: Response, email: string, password: string): Promise<boolean> {
  const flow = await createFlow(req, res, 'login');
  if (!flow.ok) return false;
  const body = { method: 'password', identifier: email, password, csrf_token: flowCsrfToken(flow.data) ?? '' };
  return (await submitFlow(req, res, 'login', flow.data.id, body)).type === 'success';
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
  const check = (field: string, schema: z.ZodType, value: string, fallback: string) => {
    const checked = schema.safeParse(value);
    if (!checked.success) fieldErrors[field] = translateValidation(t, checked.error.issues[0]?.message ?? fallback);
  };
  check('name', nameField, name, 'validation.nameTooLong');
  check('password', passwordField, password, 'validation.required');
  const { terms } = body; // "on", true or "true"; never String() of a JSON object (its toString may throw)
  if (terms !== true && !(typeof terms === 'string' && ACCEPTED.has(terms.toLowerCase()))) fieldErrors.terms = t('validation.termsRequired');
  if (Object.keys(fieldErrors).length > 0) {
    const invalid = new AppError(400, ERROR_CODES.validation, t('flowError.validationFailed'), { fields: fieldErrors });
    return renderForm(req, res, 400, { ...form, fieldErrors }, invalid);
  }

  let created: { identityId: string; email: string };
  const placeholder = randomBytes(32).toString('base64url'); // never shown: replaced by the chosen password below
  try {
    created = await backendClientFor(req).signUpInvitation({ token: token!, password: placeholder, ...(name ? { name } : {}) });
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    if (TOKEN_REFUSALS.has(error.code)) return respondProblem(req, res, error.code);
    if (error.code === 'email_exists') {
      const message = t('invitation.emailExists');
      return renderForm(req, res, 409, { ...form, formError: message, signInHref: signInAs(invitation.email) }, new AppError(409, error.code, message));
    }
    if (error.status === 400) {
      // What we check ourselves has passed, so the backend or its identity service refused something we
      // cannot name (identity_rejected carries no field): a form-level message, the form kept to try again.
      req.log?.warn({ code: error.code, status: error.status, reason: LOG_REASONS.unknown }, 'invitation sign-up refused');
      const message = t('errorMessage.unknownError');
      return renderForm(req, res, 400, { ...form, formError: message }, new AppError(400, error.code, message));
    }
    const message = t('invitation.unavailable');
    return renderForm(req, res, 503, { ...form, formError: message }, new AppError(503, problemCode(req, error), message));
  }

  const signedIn = await signInNewAccount(req, res, created.email, placeholder).catch(() => false);
  if (!signedIn) {
    // The account exists with a password nobody knows: a new one is set by e-mail (the address is verified).
    req.log?.warn({ reason: LOG_REASONS.ory }, 'invitation account created but not signed in');
    return respondRedirect(req, res, pathWithQuery(ROUTES.forgotPassword, { email: created.email }), { email: created.email, signedIn });
  }
  const chosen = await setChosenPassword(req, res, password).catch((): ChosenPassword => ({ result: 'failed' }));
  if (chosen.result === 'set') return respondRedirect(req, res, ROUTES.home, { email: created.email, signedIn });
  // Signed in, the password still to choose: the profile's password form (with Kratos's reason when it refused).
  if (chosen.result === 'failed') req.log?.warn({ reason: LOG_REASONS.ory }, 'invitation password not set');
  if (responseMode(req) !== 'json') addFlash(req, { toasts: [{ key: 'invitation.choosePassword', variant: 'warning' }] });
  const refusal = chosen.result === 'refused' ? mapIdentityProviderError(400, chosen.flow, t).message : t('invitation.choosePassword');
  const to = chosen.result === 'refused' ? settingsAction(chosen.flow.id) : ROUTES.profile;
  respondRedirect(req, res, `${to}#password`, { email: created.email, signedIn, passwordRefused: refusal });
}

export function invitationRoutes(): Router {
  const router = Router();
  router.get(ROUTES.invitation, show);
  router.post(ROUTES.invitation, ...authRateLimit('sign-up'), requireCsrf, provideCsrfToken, submit);
  return router;
}
