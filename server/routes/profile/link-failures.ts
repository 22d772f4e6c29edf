// Why linking or unlinking a login service failed, from what Kratos says, as one of our translated
// texts. Kratos words most of these as generic 4000001 messages ("{reason}") or as errors of its error
// flow; their texts are fixed in Kratos (selfservice/strategy/oidc: strategy.go ValidateCallback,
// strategy_settings.go) and mirrored by the identity stand-in, so the reason is read from the text.
import type { UiText } from '../../../core/kratos/types.ts';

export const LINK_FAILURES = [
  'cancelled',
  'providerError',
  'alreadyLinkedElsewhere',
  'lastWayIn',
  'notLinkable',
  'notLinked',
  'interrupted',
  'failed',
] as const;
export type LinkFailure = (typeof LINK_FAILURES)[number];

/** Kratos's duplicate-credentials messages: the provider account already signs in to another identity. */
const DUPLICATE_IDS = new Set([4000007, 4000027, 4000028]);

const BY_TEXT: readonly (readonly [RegExp, LinkFailure])[] = [
  // The user pressed "cancel" at the provider (OAuth2 error access_denied).
  [/OpenID Provider returned error "access_denied"/, 'cancelled'],
  [/OpenID Provider returned error/, 'providerError'],
  [/last remaining first factor credential/, 'lastWayIn'],
  [/can not link unknown or already existing/, 'notLinkable'],
  [/can not unlink non-existing/, 'notLinked'],
  // The browser came back without the state Kratos gave it (another browser, a stale tab, a forged return).
  [/state parameter|did not return the code|provider mismatch|provider could not be retrieved/, 'interrupted'],
];

/** The failure a Kratos message or error reason stands for. */
export function linkFailureOf(message: Pick<UiText, 'id' | 'text'>): LinkFailure {
  if (DUPLICATE_IDS.has(message.id)) return 'alreadyLinkedElsewhere';
  for (const [pattern, failure] of BY_TEXT) if (pattern.test(message.text)) return failure;
  return 'failed';
}

/** The translation key of a failure's text (interpolated with the provider's name). */
export function linkFailureKey(failure: LinkFailure): string {
  return `profile.linkedLogins.error.${failure}`;
}

/** The code of the failure in JSON answers. */
export function linkFailureCode(failure: LinkFailure): string {
  return `link_${failure.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)}`;
}
