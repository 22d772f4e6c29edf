/**
 * One zod schema per endpoint, shared by the three ways in (form post, enhanced post, JSON) and by the
 * OpenAPI document. Messages are `validation.*` keys, translated where they are shown. These checks only
 * spare Kratos obviously bad input (spec §5: email ≤ 255, name ≤ 32, password 8–72); Kratos stays the
 * authority and its own messages are shown as they come.
 *
 *   flowQuery                 ?flow=<uuid> plus the kept spec §2 parameters
 *   signInBody / signUpBody / logoutBody / forgetAccountBody
 *   csrfTokenField / codeField / codeMethodField / checkField   the code and link screens' pieces
 *   parseBody(schema, body)   → { ok: true, data } | { ok: false, fieldErrors: { [field]: key[] }, formErrors }
 *   flattenBody(body)         → JSON `{ traits: { email } }` becomes the form's `traits.email`
 */
import { z } from 'zod';
import { LIMITS } from '../../core/limits.ts';

/** Interpolation params of the `validation.*` messages used here. */
export const VALIDATION_PARAMS: Readonly<Record<string, Record<string, number>>> = {
  'validation.emailTooLong': { max: LIMITS.emailMax },
  'validation.nameTooLong': { max: LIMITS.nameMax },
  'validation.passwordTooShort': { min: LIMITS.passwordMin },
  'validation.passwordTooLong': { max: LIMITS.passwordMax },
};

/** Translates a validation key from parseBody with its params. */
export function translateValidation(t: (key: string, params?: Record<string, unknown>) => string, key: string): string {
  return t(key, VALIDATION_PARAMS[key]);
}

const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+$/;

const csrfToken = z.string({ error: 'validation.required' }).min(1, 'validation.required').max(1024, 'flowError.invalidInput');

export const emailField = z
  .string({ error: 'validation.required' })
  .trim()
  .min(1, 'validation.required')
  .max(LIMITS.emailMax, 'validation.emailTooLong')
  .regex(EMAIL_SHAPE, 'validation.emailInvalid');

export const passwordField = z
  .string({ error: 'validation.required' })
  .min(1, 'validation.required')
  .min(LIMITS.passwordMin, 'validation.passwordTooShort')
  .max(LIMITS.passwordMax, 'validation.passwordTooLong');

export const nameField = z.string().trim().max(LIMITS.nameMax, 'validation.nameTooLong');

const provider = z.string().regex(/^[a-z0-9_-]{1,64}$/, 'flowError.invalidInput');

const optionalQueryValue = z.string().max(2048).optional();

export const flowQuery = z.object({
  flow: z.uuid().optional().describe('Kratos flow id; a new flow is created when missing, expired or foreign'),
  return_to: optionalQueryValue.describe('Where to go after success (allow-listed)'),
  loginHint: optionalQueryValue,
  email: optionalQueryValue,
  highlight: z.enum(['email', 'password']).optional(),
  platform: optionalQueryValue,
  login_type: optionalQueryValue,
  request_login: optionalQueryValue,
  redirect: optionalQueryValue,
  social_sign_in_enabled: z.enum(['true', 'false', '1', '0']).optional().describe('false: no provider buttons (spec §2)'),
  login_challenge: z.string().max(4096).optional().describe("Hydra's login challenge: the flow carries it, Kratos accepts it after the sign-in (decision 130)"),
});

/** Sign-in's own query parameters (spec §2 social sign-in, the account-link sequence). */
export const signInQuery = flowQuery.extend({
  request_social_sign_in: z.enum(['true', '1']).optional().describe('With `provider`: start that provider’s sign-in at once (303 to it)'),
  provider: provider.optional().describe('The provider for request_social_sign_in'),
  account_link: z.literal('cancelled').optional().describe('The account-link sequence was cancelled: say so on a fresh form'),
  link_provider: provider.optional().describe('Account linking: the provider being linked (kept between its pages)'),
  link_by: z.string().max(200).optional().describe('Account linking: how the existing account signs in, comma-separated'),
});

export const signInBody = z
  .object({
    csrf_token: csrfToken,
    method: z.enum(['password', 'oidc']).default('password'),
    identifier: z.string().optional(),
    password: z.string().optional(),
    provider: provider.optional(),
  })
  .superRefine((body, ctx) => {
    if (body.provider !== undefined || body.method === 'oidc') {
      if (!body.provider) ctx.addIssue({ code: 'custom', path: ['provider'], message: 'validation.required' });
      return;
    }
    check(emailField, body.identifier, ['identifier'], ctx);
    check(passwordField, body.password, ['password'], ctx);
  });

export type SignInBody = z.infer<typeof signInBody>;

/** Checkbox values a browser or an integrator may send for "I accept the terms". */
const ACCEPTED = new Set(['on', 'true', '1', 'yes', 'accepted']);

export const signUpBody = z
  .object({
    csrf_token: csrfToken,
    method: z.enum(['profile', 'password', 'oidc']).default('profile'),
    screen: z.enum(['previous', 'credential-selection']).optional(),
    'traits.email': z.string().optional(),
    'traits.name': z.string().optional(),
    password: z.string().optional(),
    provider: provider.optional(),
    terms: z.union([z.string(), z.boolean()]).optional().describe('Acceptance of the terms of use: "on" or true (also "true", "1", "yes", "accepted")'),
  })
  .superRefine((body, ctx) => {
    if (body.screen === 'previous') return; // "Back": nothing to validate
    const social = body.provider !== undefined || body.method === 'oidc';
    if (social) {
      if (!body.provider) ctx.addIssue({ code: 'custom', path: ['provider'], message: 'validation.required' });
    } else {
      check(emailField, body['traits.email'], ['traits.email'], ctx);
      if (body['traits.name'] !== undefined) check(nameField, body['traits.name'], ['traits.name'], ctx);
      if (body.method === 'password') check(passwordField, body.password, ['password'], ctx);
    }
    if (!ACCEPTED.has(String(body.terms ?? '').toLowerCase())) {
      ctx.addIssue({ code: 'custom', path: ['terms'], message: 'validation.termsRequired' });
    }
  });

export type SignUpBody = z.infer<typeof signUpBody>;

/** Code and link screens (recovery, verification, resend): the fields they share. */
export const csrfTokenField = csrfToken.describe('The csrf_token node of the flow');
export const codeField = z
  .string({ error: 'validation.required' })
  .trim()
  .regex(/^[0-9]{4,16}$/, 'validation.codeInvalid');
export const codeMethodField = z.enum(['code', 'link']).default('code').describe("The flow's method: code (default) or link");

/** Attaches the first issue of `schema` for `value` to the field `path`. */
export function checkField(schema: z.ZodType, value: unknown, path: string, ctx: z.RefinementCtx): void {
  check(schema, value, [path], ctx);
}

/**
 * The body of a code screen: `code` checks an emailed code, `email` sends one (again). When both come,
 * `codeWins` says which one the screen acts on (verification checks the code; recovery resends).
 */
export function codeOrEmailBody(descriptions: { code: string; email: string }, codeWins: boolean) {
  return z
    .object({
      csrf_token: csrfTokenField,
      method: codeMethodField,
      email: z.string().optional().describe(descriptions.email),
      code: z.string().optional().describe(descriptions.code),
    })
    .superRefine((body, ctx) => {
      const hasCode = body.code !== undefined && body.code !== '';
      const hasEmail = body.email !== undefined && body.email !== '';
      if (hasCode && (codeWins || !hasEmail)) checkField(codeField, body.code, 'code', ctx);
      else checkField(emailField, body.email, 'email', ctx);
    });
}

export const logoutBody = z.object({ _csrf: z.string().optional().describe('Our CSRF token (or the x-csrf-token header)') });

export const forgetAccountBody = z.object({ _csrf: z.string().optional().describe('Our CSRF token (or the x-csrf-token header)') });

function check(schema: z.ZodType, value: unknown, path: string[], ctx: z.RefinementCtx): void {
  const result = schema.safeParse(value);
  if (result.success) return;
  const first = result.error.issues[0];
  ctx.addIssue({ code: 'custom', path, message: first?.message ?? 'flowError.invalidInput' });
}

/** Nested JSON (`{ traits: { email } }`) → the flat names HTML forms use (`traits.email`). */
export function flattenBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return {};
  const out: Record<string, unknown> = {};
  const walk = (value: unknown, prefix: string) => {
    if (typeof value === 'object' && value !== null && !Array.isArray(value) && prefix === 'traits') {
      for (const [key, inner] of Object.entries(value)) walk(inner, `${prefix}.${key}`);
      return;
    }
    out[prefix] = value;
  };
  for (const [key, value] of Object.entries(body)) walk(value, key);
  // Kratos forms carry some names twice (a hidden `method=code` next to the `method=code` submit
  // button), so browsers post them twice: identical repeats are one value.
  for (const [key, value] of Object.entries(out)) {
    if (Array.isArray(value) && value.length > 0 && value.every((item) => item === value[0])) out[key] = value[0];
  }
  return out;
}

export type ParsedBody<T> = { ok: true; data: T } | { ok: false; fieldErrors: Record<string, string[]>; formErrors: string[] };

export function parseBody<T>(schema: z.ZodType<T>, body: unknown): ParsedBody<T> {
  const result = schema.safeParse(flattenBody(body));
  if (result.success) return { ok: true, data: result.data };
  const fieldErrors: Record<string, string[]> = {};
  const formErrors: string[] = [];
  for (const issue of result.error.issues) {
    const field = issue.path.map(String).join('.');
    const key = issue.message.startsWith('validation.') || issue.message.startsWith('flowError.') ? issue.message : 'flowError.invalidInput';
    if (field) (fieldErrors[field] ??= []).push(key);
    else formErrors.push(key);
  }
  return { ok: false, fieldErrors, formErrors };
}

/** The submitted values worth showing again (never passwords or tokens). */
export function echoedInput(body: unknown): Record<string, string | undefined> {
  const flat = flattenBody(body);
  const out: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(flat)) {
    if (key === 'password' || key === 'csrf_token' || key === '_csrf') continue;
    if (typeof value === 'string' && value.length <= 1024) out[key] = value;
  }
  return out;
}

// ---- Response shapes (JSON mode), for the OpenAPI document and the JSON tests ----

const uiTextSchema = z.object({
  id: z.number(),
  text: z.string(),
  type: z.string(),
  context: z.record(z.string(), z.unknown()).optional(),
});

const uiNodeSchema = z.object({
  type: z.string(),
  group: z.string(),
  attributes: z.record(z.string(), z.unknown()),
  messages: z.array(uiTextSchema),
  meta: z.object({ label: uiTextSchema.optional() }),
});

/** A Kratos flow as our JSON answers show it: `ui.action` is OUR endpoint, post there with `csrf_token`. */
export const flowStateSchema = z.object({
  id: z.string(),
  type: z.string().optional(),
  state: z.string().optional(),
  expires_at: z.string().optional(),
  return_to: z.string().optional(),
  ui: z.object({
    action: z.string(),
    method: z.literal('POST'),
    nodes: z.array(uiNodeSchema),
    messages: z.array(uiTextSchema).optional(),
  }),
});

export const redirectResultSchema = z.object({
  redirect_to: z.string().describe('Where the browser goes next'),
  session: z.object({ id: z.string(), identity: z.object({ id: z.string(), traits: z.record(z.string(), z.unknown()) }) }).optional(),
  verification_flow_id: z.string().optional(),
});

export const flowStateResultSchema = z.object({ flow: flowStateSchema });

/** A flow screen's JSON answer: the flow to continue with; `continue_to` once the flow is done. */
export const flowAnswerSchema = z
  .object({
    flow: flowStateSchema,
    continue_to: z.string().optional().describe('Set when the flow is complete: where the browser goes next'),
  })
  .meta({ id: 'FlowAnswer' });

/** A flow screen's JSON error answer: the spec's error shape plus the flow to retry with. */
export const flowErrorSchema = z
  .looseObject({
    code: z.union([z.string(), z.number()]),
    message: z.string(),
    meta: z.record(z.string(), z.unknown()).optional(),
    flow: flowStateSchema.optional(),
  })
  .meta({ id: 'FlowError' });
