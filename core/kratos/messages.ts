/**
 * Every Kratos message and identity-provider error → a translated message, in one module.
 *
 *   messageKey(text)                    → `kratos.<id>` (or the spec key for the §8 numeric codes)
 *   messageParams(text)                 → interpolation params from `context` (+ `minutes` for expiries)
 *   translateMessage(t, text)           → translated string; unknown ids (webhooks) fall back to `text`;
 *                                         a social sign-in failure (4000001 with Kratos's OIDC reason) → our
 *                                         `social.error.*` text (core/kratos/social.ts recognises it)
 *   specCodeOf(id)                      → spec §8 code: 4000006 → incorrect_email_password, 4000010 →
 *                                         unactivated_account, 4000007 → email_exists, 4000031 →
 *                                         similarity_password, 4000034 → leaked_password, 4070001 →
 *                                         already_verified
 *   messageAction(text)                 → a follow-up link (4000010 → resend verification)
 *   placeMessages(flow)                 → { form: UiText[], fields: { [nodeName]: UiText[] } }:
 *                                         email_exists family on the email field, node messages under their
 *                                         node (hidden nodes' go form-level), the rest form-level
 *   mapIdentityProviderError(status, body, t) → the spec's `{ status, code, message, meta }`
 *                                         by HTTP status (400, 401, 403, 422, 429, others), spec §8;
 *                                         an OIDC failure → our text, a 4xx (`meta.socialFailure`)
 *
 * `t` is any `(key, params) => string` that returns the key itself when missing (i18next's behaviour).
 */
import { AppError, ERROR_CODES } from '../errors.ts';
import { pathWithQuery, ROUTES } from '../routes.ts';
import type { Translate } from '../translate.ts';
import type { KratosMessageId } from './catalogue.ts';
import { SOCIAL_FAILURE_KEYS, socialFailureOf, socialFailureOfMessage } from './social.ts';
import type { KratosErrorBody, KratosFlow, UiNode, UiText } from './types.ts';

export type { Translate };

export const SPEC_CODE_BY_MESSAGE_ID: Readonly<Partial<Record<KratosMessageId, string>>> = {
  4000006: 'incorrect_email_password',
  4000010: 'unactivated_account',
  4000007: 'email_exists',
  4000031: 'similarity_password',
  4000034: 'leaked_password',
  4070001: 'already_verified',
};

/** Spec §8 code → its `errorMessage.*` key. */
export const ERROR_MESSAGE_KEY_BY_CODE: Readonly<Record<string, string>> = {
  incorrect_email_password: 'errorMessage.incorrectEmailOrPassword',
  unactivated_account: 'errorMessage.unVerifyAccount',
  email_exists: 'errorMessage.emailExisted',
  similarity_password: 'errorMessage.similarPassword',
  leaked_password: 'errorMessage.leakedPassword',
  already_verified: 'errorMessage.alreadyVerified',
  email_is_banned: 'errorMessage.emailIsBanned',
  password_expired: 'errorMessage.passwordExpired',
  third_party_account: 'errorMessage.alreadySignupByThirdParty',
  user_not_found: 'errorMessage.userNotFound',
  recaptcha_v2_validation_failed: 'errorMessage.verifyRecaptchaFailed',
  already_signed_in_another_method: 'errorMessage.alreadySignedInAnotherMethod',
};

/** Messages that mean "this e-mail is taken": shown under the e-mail field, not as a banner. */
export const EMAIL_EXISTS_IDS: ReadonlySet<number> = new Set<KratosMessageId>([4000007, 4000027, 4000028]);

/** Where the e-mail lives in each flow's nodes, first match wins. */
const EMAIL_FIELDS = ['traits.email', 'identifier', 'email'];

export function specCodeOf(id: number): string | undefined {
  return SPEC_CODE_BY_MESSAGE_ID[id as KratosMessageId];
}

export function messageKey(text: Pick<UiText, 'id'>): string {
  const code = specCodeOf(text.id);
  const specKey = code ? ERROR_MESSAGE_KEY_BY_CODE[code] : undefined;
  return specKey ?? `kratos.${text.id}`;
}

/** Context values as params; expiry messages get `minutes` (Kratos's "{minutes} minutes ago"). */
export function messageParams(text: UiText, now = Date.now()): Record<string, unknown> {
  const params: Record<string, unknown> = { ...(text.context ?? {}) };
  const expiredAt = params.expired_at_unix ?? (typeof params.expired_at === 'string' ? Date.parse(params.expired_at) / 1000 : undefined);
  if (typeof expiredAt === 'number' && Number.isFinite(expiredAt) && params.minutes === undefined) {
    params.minutes = Math.max(0, Math.round((now / 1000 - expiredAt) / 60));
  }
  for (const [key, value] of Object.entries(params)) {
    if (Array.isArray(value)) params[key] = value.join(', ');
  }
  return params;
}

export function translateMessage(t: Translate, text: UiText): string {
  const failure = socialFailureOfMessage(text);
  if (failure) {
    const social = t(SOCIAL_FAILURE_KEYS[failure]);
    if (social && social !== SOCIAL_FAILURE_KEYS[failure]) return social;
  }
  const key = messageKey(text);
  const params = messageParams(text);
  const translated = t(key, params);
  if (translated && translated !== key) return translated;
  // A spec key not (yet) in the catalogue: try the plain Kratos key before the English text.
  const kratosKey = `kratos.${text.id}`;
  if (key !== kratosKey) {
    const fallback = t(kratosKey, params);
    if (fallback && fallback !== kratosKey) return fallback;
  }
  return text.text;
}

export type MessageAction = { href: string; labelKey: string };

export function messageAction(text: Pick<UiText, 'id'>, email?: string): MessageAction | undefined {
  if (text.id === 4000010) {
    const href = pathWithQuery(ROUTES.resendVerification, { email });
    return { href, labelKey: 'authPage.resendVerificationEmail' };
  }
  return undefined;
}

export type PlacedMessages = { form: UiText[]; fields: Record<string, UiText[]> };

function isVisibleInput(node: UiNode): boolean {
  return node.attributes.node_type === 'input' && node.attributes.type !== 'hidden';
}

/**
 * Field placement of spec §5: email_exists (and its linking variants) on the e-mail field, others by node
 * name, the rest form-level. Messages on hidden nodes cannot be shown there and move to the form.
 */
export function placeMessages(flow: Pick<KratosFlow, 'ui'>): PlacedMessages {
  const form: UiText[] = [];
  const fields: Record<string, UiText[]> = {};
  const add = (name: string, message: UiText) => {
    (fields[name] ??= []).push(message);
  };
  const visibleNames = new Set(flow.ui.nodes.filter(isVisibleInput).map((node) => node.attributes.name ?? ''));
  const emailField = EMAIL_FIELDS.find((name) => visibleNames.has(name));

  for (const message of flow.ui.messages ?? []) {
    if (EMAIL_EXISTS_IDS.has(message.id) && emailField) add(emailField, message);
    else form.push(message);
  }
  for (const node of flow.ui.nodes) {
    if (node.messages.length === 0) continue;
    const name = node.attributes.name;
    if (name && isVisibleInput(node)) {
      for (const message of node.messages) add(name, message);
    } else {
      form.push(...node.messages);
    }
  }
  return { form, fields };
}

/** The first error a flow carries (form-level first, then by node), for JSON answers and toasts. */
export function firstFlowError(flow: Pick<KratosFlow, 'ui'>): UiText | undefined {
  const formError = flow.ui.messages?.find((message) => message.type === 'error');
  if (formError) return formError;
  for (const node of flow.ui.nodes) {
    const nodeError = node.messages.find((message) => message.type === 'error');
    if (nodeError) return nodeError;
  }
  return undefined;
}

export function flowHasErrors(flow: Pick<KratosFlow, 'ui'>): boolean {
  return firstFlowError(flow) !== undefined;
}

function translateOr(t: Translate, key: string, fallback: string, params?: Record<string, unknown>): string {
  const value = t(key, params);
  return value && value !== key ? value : fallback;
}

/** Catalogue keys for Kratos error ids whose wording the spec's catalogue already has. */
const ERROR_ID_KEYS: Readonly<Record<string, string>> = {
  security_csrf_violation: 'errorMessage.csrfInvalid',
  self_service_flow_expired: 'errorMessage.flowExpired',
  session_refresh_required: 'errorMessage.sessionRefreshRequired',
};

/** The translated text for a Kratos error id: the spec code text, a known key, then our `flowError.<id>`. */
export function translateErrorId(t: Translate, id: string | undefined): string | undefined {
  if (!id) return undefined;
  for (const key of [`errorMessage.code.${id}`, ERROR_ID_KEYS[id], `flowError.${id}`]) {
    if (!key) continue;
    const value = t(key);
    if (value && value !== key) return value;
  }
  return undefined;
}

function isFlowBody(body: unknown): body is KratosFlow {
  return typeof body === 'object' && body !== null && 'ui' in body;
}

/**
 * Identity-provider errors by HTTP status (spec §8):
 * 400 → the first message and code of the flow or of the raw error (a bad request);
 * 401 → 'unauthorized', code 401; 403 → the reason, meta.errorCode = the error id;
 * 422 browser_location_change_required → meta.redirect_browser_to (+ the set-cookie it came with);
 * 429 → 'too many requests'; others → the reason or 'Something went wrong'.
 */
export function mapIdentityProviderError(status: number, body: unknown, t: Translate): AppError {
  const envelope = (body ?? {}) as KratosErrorBody;
  const error = envelope.error ?? {};
  const reason = error.reason ?? error.message;
  // (A redirect's reason quotes the provider's URL: never read as a failure.)
  // A plain Go error (the token endpoint refused the code) reaches the error UI with its text as the message.
  const failure = isFlowBody(body) || envelope.redirect_browser_to ? undefined : (socialFailureOf(error.reason) ?? socialFailureOf(error.message));
  if (failure) {
    // A social sign-in that failed is the user's request refused, never our fault: a 4xx (an unknown
    // provider stays 404), even where Kratos answers 500 (a bad id_token, a nonce mismatch).
    const code = status >= 400 && status < 500 ? status : 400;
    return new AppError(code, error.id ?? 'social_sign_in_failed', translateOr(t, SOCIAL_FAILURE_KEYS[failure], reason ?? ''), { socialFailure: failure });
  }
  switch (status) {
    case 400: {
      if (isFlowBody(body)) {
        const first = firstFlowError(body);
        if (first) {
          return new AppError(400, specCodeOf(first.id) ?? String(first.id), translateMessage(t, first), { messageId: first.id, flowId: body.id });
        }
      }
      const message = translateErrorId(t, error.id) ?? reason ?? translateOr(t, 'errorMessage.badRequest', 'Bad request');
      return new AppError(400, error.id ?? '400', message);
    }
    case 401:
      return new AppError(401, ERROR_CODES.unauthorized, translateOr(t, 'errorMessage.unauthorized', 'unauthorized'));
    case 403:
      return new AppError(403, error.id ?? '403', translateErrorId(t, error.id) ?? reason ?? translateOr(t, 'flowError.forbidden', 'forbidden'), {
        errorCode: error.id ?? null,
      });
    case 422:
      if (error.id === 'browser_location_change_required' || envelope.redirect_browser_to) {
        return new AppError(
          422,
          ERROR_CODES.browserLocationChangeRequired,
          translateErrorId(t, 'browser_location_change_required') ?? reason ?? 'browser location change required',
          // The Set-Cookie that came with it is relayed as a header by kratosCall, never put in the body.
          { redirect_browser_to: envelope.redirect_browser_to },
        );
      }
      break;
    case 429:
      return new AppError(429, '429', translateOr(t, 'flowError.tooManyRequests', 'too many requests'));
  }
  return new AppError(
    status >= 400 && status < 600 ? status : 500,
    error.id ?? String(status),
    translateErrorId(t, error.id) ?? reason ?? translateOr(t, 'errorMessage.unknownError', 'Something went wrong'),
  );
}
