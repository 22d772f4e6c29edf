/**
 * Social sign-in facts every side shares, in one place (spec §3 login services, contract §1.3).
 *
 *   SOCIAL_PROVIDERS                   the providers the product knows: google, microsoft, dropbox, apple
 *   knownProvider(idOrLabel)           → that provider's id, matched case-insensitively ("Google" → google)
 *   loginServiceOf(provider)           → the spec §3 login service (GOOGLE…), EMAIL_PASSWORD for `password`
 *   socialFailureOf(text)              → what went wrong in an OIDC sign-in, from Kratos's reason text
 *   SOCIAL_FAILURE_KEYS[failure]       → its `social.error.*` translation key
 *   socialFailureOfMessage(message)    → the same for a flow message (4000001/5000001 carry the reason)
 *   isProviderButton(node)             → a "continue with <provider>" button of a flow (oidc/saml submit)
 *   isSocialContinue(node)             → Kratos's "Continue" (1040003) of a social sign-up missing traits
 *
 * Kratos reports most OIDC failures as herodot errors whose only stable part is the reason text (no error
 * id): a callback without state, a state it cannot decrypt, a lost continuity cookie, the provider's
 * `error=access_denied`… Flow-tied ones become message 4000001 `{reason}` on the flow, the others land on
 * the error UI. The patterns below are the one place that reads those texts (Kratos v1.3.1,
 * selfservice/strategy/oidc/strategy.go ValidateCallback and processIDToken, continuity/manager_cookie.go,
 * provider_config.go); the stand-in writes the same texts.
 */
import type { UiNode, UiText } from './types.ts';

export const SOCIAL_PROVIDERS = ['google', 'microsoft', 'dropbox', 'apple'] as const;

export type SocialProvider = (typeof SOCIAL_PROVIDERS)[number];

/** Spec §3 login services, by provider id (the `traits.loginService` enum). */
export const LOGIN_SERVICE_BY_PROVIDER: Readonly<Record<SocialProvider, string>> = {
  google: 'GOOGLE',
  microsoft: 'MICROSOFT',
  dropbox: 'DROPBOX',
  apple: 'APPLE',
};

/** Kratos's credential type of an e-mail-and-password account. */
export const PASSWORD_METHOD = 'password';

export function knownProvider(value: unknown): SocialProvider | undefined {
  if (typeof value !== 'string') return undefined;
  const id = value.trim().toLowerCase();
  return (SOCIAL_PROVIDERS as readonly string[]).includes(id) ? (id as SocialProvider) : undefined;
}

/** `password` → EMAIL_PASSWORD, a known provider → its service, anything else → UNKNOWN. */
export function loginServiceOf(method: string): string {
  if (method === PASSWORD_METHOD) return 'EMAIL_PASSWORD';
  const provider = knownProvider(method);
  return provider ? LOGIN_SERVICE_BY_PROVIDER[provider] : 'UNKNOWN';
}

export const SOCIAL_FAILURES = [
  'cancelled',
  'providerError',
  'stateMissing',
  'stateInvalid',
  'providerMismatch',
  'stateMismatch',
  'continuityMissing',
  'codeMissing',
  'unknownProvider',
  'providerUnavailable',
  'exchangeFailed',
  'idTokenInvalid',
  'nonceMismatch',
] as const;

export type SocialFailure = (typeof SOCIAL_FAILURES)[number];

/** First match wins: the specific texts come before the general "Unable to complete OpenID Connect flow". */
const FAILURE_PATTERNS: readonly (readonly [RegExp, SocialFailure])[] = [
  [/OpenID Provider returned error "access_denied"/i, 'cancelled'],
  [/OpenID Provider returned error/i, 'providerError'],
  [/did not return the state query parameter/i, 'stateMissing'],
  [/state parameter is invalid|provider could not be retrieved from state|session cookie contains invalid values/i, 'stateInvalid'],
  [/provider mismatch between internal state and URL/i, 'providerMismatch'],
  [/query state parameter does not match the state parameter/i, 'stateMismatch'],
  [/does not contain the necessary cookie to resume the session|no resumable session found/i, 'continuityMissing'],
  [/did not return the code query parameter/i, 'codeMissing'],
  [/OpenID Connect Provider ".*" is unknown or has not been configured/i, 'unknownProvider'],
  [/nonce/i, 'nonceMismatch'],
  [/id_token|ID token|claim mismatch|^oidc: /i, 'idTokenInvalid'],
  [/Unable to initialize OpenID Connect Provider/i, 'providerUnavailable'],
  [/oauth2: |exchange (?:the )?(?:authorization )?code|OAuth 2\.0 code/i, 'exchangeFailed'],
  [/Unable to complete OpenID Connect flow/i, 'providerError'],
];

export function socialFailureOf(text: unknown): SocialFailure | undefined {
  if (typeof text !== 'string' || text === '') return undefined;
  return FAILURE_PATTERNS.find(([pattern]) => pattern.test(text))?.[1];
}

export const SOCIAL_FAILURE_KEYS: Readonly<Record<SocialFailure, string>> = {
  cancelled: 'social.error.cancelled',
  providerError: 'social.error.providerError',
  stateMissing: 'social.error.stateMissing',
  stateInvalid: 'social.error.stateInvalid',
  providerMismatch: 'social.error.providerMismatch',
  stateMismatch: 'social.error.stateMismatch',
  continuityMissing: 'social.error.continuityMissing',
  codeMissing: 'social.error.codeMissing',
  unknownProvider: 'social.error.unknownProvider',
  providerUnavailable: 'social.error.providerUnavailable',
  exchangeFailed: 'social.error.exchangeFailed',
  idTokenInvalid: 'social.error.idTokenInvalid',
  nonceMismatch: 'social.error.nonceMismatch',
};

/** Generic message ids whose only content is the reason (4000001 validation, 5000001 system error). */
const REASON_MESSAGE_IDS: ReadonlySet<number> = new Set([4000001, 5000001]);

export function socialFailureOfMessage(message: Pick<UiText, 'id' | 'text' | 'context'>): SocialFailure | undefined {
  if (!REASON_MESSAGE_IDS.has(message.id)) return undefined;
  const reason = message.context?.reason;
  return socialFailureOf(typeof reason === 'string' ? reason : message.text);
}

const SOCIAL_GROUPS: ReadonlySet<string> = new Set(['oidc', 'saml']);

/** Kratos's label on the provider submit of a registration re-rendered for missing traits. */
export const SOCIAL_CONTINUE_LABEL_ID = 1040003;

function isSocialSubmit(node: UiNode): boolean {
  const a = node.attributes;
  return SOCIAL_GROUPS.has(node.group) && a.node_type === 'input' && (a.type === 'submit' || a.type === 'button');
}

export function isSocialContinue(node: UiNode): boolean {
  return isSocialSubmit(node) && node.meta.label?.id === SOCIAL_CONTINUE_LABEL_ID;
}

export function isProviderButton(node: UiNode): boolean {
  return isSocialSubmit(node) && !isSocialContinue(node);
}
