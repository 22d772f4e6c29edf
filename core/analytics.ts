/**
 * Analytics facts shared by the server and the islands (spec §3, §9): the GA4 and attribute truncations,
 * the user-auth event cookie, the event names. Nothing personal goes out: events carry codes, methods and
 * durations, never an e-mail address, a name or a token (`safeParams` drops what looks like one).
 * The islands import this file: no destructuring (Safari 13 is among their build targets).
 */
import { ANALYTICS_LIMITS } from './limits.ts';

export const ANONYMOUS_ID_COOKIE = 'anonymousUserId';
export const USER_AUTH_EVENT_COOKIE = 'user_auth_event';
/** The reason the spec gives for a tag manager that did not load (spec §8). */
export const GTM_LOAD_FAILURE = 'fail to load GTM';

// The funnel events (spec "Events"), one constant each so an island carries only those it sends.
export const EVENT_SIGN_UP_STARTED = 'sign_up_started';
export const EVENT_SIGN_UP_COMPLETED = 'sign_up_completed';
export const EVENT_SIGN_IN_SUCCEEDED = 'sign_in_succeeded';
export const EVENT_SIGN_IN_FAILED = 'sign_in_failed';
export const EVENT_VERIFICATION = 'verification_completed';
export const EVENT_RECOVERY = 'recovery_requested';
export const EVENT_PROVIDER_CHOSEN = 'provider_chosen';

type Params = Record<string, string | number | boolean>;

const cut = (value: string, max: number) => (value.length > max ? value.slice(0, max) : value);

function truncated(params: Params, keyMax: number, valueMax: number): Params {
  const out: Params = {};
  for (const key of Object.keys(params)) {
    const value = params[key]!;
    out[cut(key, keyMax)] = typeof value === 'string' ? cut(value, valueMax) : value;
  }
  return out;
}

/** GA4: keys cut to 40 characters, string values to 100. */
export const ga4Params = (params: Params): Params => truncated(params, ANALYTICS_LIMITS.ga4KeyMax, ANALYTICS_LIMITS.ga4ValueMax);

/** The analytics service: string attribute values cut to 200 characters (keys as they are). */
export const analyticsAttributes = (params: Params): Params => truncated(params, Infinity, ANALYTICS_LIMITS.attributeMax);

const PERSONAL_KEY = /e-?mail|name|token|password|secret|credential|code_verifier|identifier/i;
const LOOKS_LIKE_EMAIL = /[^\s@]+@[^\s@]+/;

/** Drops any parameter whose key names personal data or whose value looks like an address. */
export function safeParams(params: Params): Params {
  const out: Params = {};
  for (const key of Object.keys(params)) {
    const value = params[key]!;
    if (PERSONAL_KEY.test(key) || (typeof value === 'string' && LOOKS_LIKE_EMAIL.test(value))) continue;
    out[key] = value;
  }
  return out;
}

/** Spec §3: the user-auth event cookie, set when a sign-in or sign-up method is clicked. */
export type UserAuthEvent = { method: string; clickedAt: number; url: string; [extra: string]: string | number };

/** The cookie's value: JSON with `method`, `clickedAt` (epoch ms), `url` (origin plus path: query and hash dropped), extras. */
export function userAuthEventValue(method: string, clickedAt: number, href: string, extra: Record<string, string | number> = {}): string {
  return JSON.stringify({ ...safeParams(extra), method: cut(method, 40), clickedAt, url: href.split(/[?#]/)[0] });
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
