// Why linking or unlinking a login service failed, as one of our translated texts. The provider round
// trip fails the way a social sign-in does, and core/kratos/social.ts reads those reasons (the one
// place that does); here they are grouped into what a user linking a service needs to know. The
// settings strategy's own refusals are 4000001 messages too, with texts fixed in Kratos
// (selfservice/strategy/oidc/strategy_settings.go, mirrored by the identity stand-in), read below.
import { socialFailureOf, type SocialFailure } from '../../../core/kratos/social.ts';
import type { UiText } from '../../../core/kratos/types.ts';

export const LINK_FAILURES = [
  'cancelled',
  'providerError',
  'unavailable',
  'interrupted',
  'alreadyLinkedElsewhere',
  'lastWayIn',
  'notLinkable',
  'notLinked',
  'failed',
] as const;
export type LinkFailure = (typeof LINK_FAILURES)[number];

/** Kratos's duplicate-credentials messages: the provider account already signs in to another identity. */
const DUPLICATE_IDS = new Set([4000007, 4000027, 4000028]);

const SETTINGS_REFUSALS: readonly (readonly [RegExp, LinkFailure])[] = [
  [/last remaining first factor credential/, 'lastWayIn'],
  [/can not link unknown or already existing/, 'notLinkable'],
  [/can not unlink non-existing/, 'notLinked'],
];

const BY_SOCIAL_FAILURE: Readonly<Record<SocialFailure, LinkFailure>> = {
  cancelled: 'cancelled',
  providerError: 'providerError',
  exchangeFailed: 'providerError',
  idTokenInvalid: 'providerError',
  nonceMismatch: 'providerError',
  providerUnavailable: 'unavailable',
  unknownProvider: 'notLinkable',
  // The browser came back without the state Kratos gave it: another tab or browser, a stale or forged return.
  stateMissing: 'interrupted',
  stateInvalid: 'interrupted',
  providerMismatch: 'interrupted',
  stateMismatch: 'interrupted',
  continuityMissing: 'interrupted',
  codeMissing: 'interrupted',
};

/** The failure a Kratos flow message or error reason stands for. */
export function linkFailureOf(message: Pick<UiText, 'id' | 'text' | 'context'>): LinkFailure {
  if (DUPLICATE_IDS.has(message.id)) return 'alreadyLinkedElsewhere';
  const reason = typeof message.context?.reason === 'string' ? message.context.reason : message.text;
  for (const [pattern, failure] of SETTINGS_REFUSALS) if (pattern.test(reason)) return failure;
  const social = socialFailureOf(reason);
  return social ? BY_SOCIAL_FAILURE[social] : 'failed';
}

/** The translation key of a failure's text (interpolated with the provider's name). */
export function linkFailureKey(failure: LinkFailure): string {
  return `profile.linkedLogins.error.${failure}`;
}

/** The code of the failure in JSON answers. */
export function linkFailureCode(failure: LinkFailure): string {
  return `link_${failure.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)}`;
}
