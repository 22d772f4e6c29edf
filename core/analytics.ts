/**
 * Analytics facts shared by the server and the islands (spec §3, §9): the GA4 and attribute truncations,
 * the user-auth event cookie, the event names. Nothing personal goes out: events carry codes, methods and
 * durations, never an e-mail address, a name or a token (`safeParams` drops what looks like one).
 */
import { ANALYTICS_LIMITS } from './limits.ts';

export const ANONYMOUS_ID_COOKIE = 'anonymousUserId';
export const USER_AUTH_EVENT_COOKIE = 'user_auth_event';
/** The reason the spec gives for a tag manager that did not load (spec §8). */
export const GTM_LOAD_FAILURE = 'fail to load GTM';

export const ANALYTICS_EVENTS = {
  signUpStarted: 'sign_up_started',
  signUpCompleted: 'sign_up_completed',
  signInSucceeded: 'sign_in_succeeded',
  signInFailed: 'sign_in_failed',
  verification: 'verification_completed',
  recovery: 'recovery_requested',
  providerChosen: 'provider_chosen',
} as const;

type Params = Record<string, string | number | boolean>;

const cut = (value: string, max: number) => (value.length > max ? value.slice(0, max) : value);

/** GA4: keys cut to 40 characters, string values to 100. */
export function ga4Params(params: Params): Params {
  const out: Params = {};
  for (const [key, value] of Object.entries(params)) out[cut(key, ANALYTICS_LIMITS.ga4KeyMax)] = typeof value === 'string' ? cut(value, ANALYTICS_LIMITS.ga4ValueMax) : value;
  return out;
}

/** The analytics service: string attribute values cut to 200 characters. */
export function analyticsAttributes(params: Params): Params {
  const out: Params = {};
  for (const [key, value] of Object.entries(params)) out[key] = typeof value === 'string' ? cut(value, ANALYTICS_LIMITS.attributeMax) : value;
  return out;
}

const PERSONAL_KEY = /e-?mail|name|token|password|secret|credential|code_verifier|identifier/i;
const LOOKS_LIKE_EMAIL = /[^\s@]+@[^\s@]+/;

/** Drops any parameter whose key names personal data or whose value looks like an address. */
export function safeParams(params: Params): Params {
  const out: Params = {};
  for (const [key, value] of Object.entries(params)) {
    if (PERSONAL_KEY.test(key) || (typeof value === 'string' && LOOKS_LIKE_EMAIL.test(value))) continue;
    out[key] = value;
  }
  return out;
}

/** Spec §3: the user-auth event cookie, set when a sign-in or sign-up method is clicked. */
export type UserAuthEvent = { method: string; clickedAt: number; url: string; [extra: string]: string | number };

/** The cookie's value: JSON with `method`, `clickedAt` (epoch ms), `url` (origin plus path, no query), extras. */
export function userAuthEventValue(method: string, clickedAt: number, href: string, extra: Record<string, string | number> = {}): string {
  const url = new URL(href);
  const event: UserAuthEvent = { ...safeParams(extra), method: cut(method, 40), clickedAt, url: url.origin + url.pathname } as UserAuthEvent;
  return JSON.stringify(event);
}

/** The cookie read back; null when absent or not of this shape. */
export function parseUserAuthEvent(value: string | undefined): UserAuthEvent | null {
  if (!value) return null;
  try {
    const event = JSON.parse(value) as Partial<UserAuthEvent>;
    if (typeof event.method !== 'string' || typeof event.clickedAt !== 'number' || typeof event.url !== 'string') return null;
    return event as UserAuthEvent;
  } catch {
    return null;
  }
}
