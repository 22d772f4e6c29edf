// The analytics island (decision 170), a bundle of its own, loaded only once non-essential cookies are
// allowed (by the page's markup, or by the banner island after an accept). It sets `anonymousUserId`
// (360 days), loads the tag manager (a failure is only logged: `fail to load GTM`), and sends the
// sign-up/sign-in funnel events to GA4 (dataLayer, 40/100 cuts) and the log service (sendBeacon, 200 cut).
// Events carry methods, codes and durations only, and `safeParams` drops anything personal. Kept small:
// /sign-in with consent given stays within its 6 KB of JS (scripts/bench-size.mjs).
import { ANONYMOUS_ID_COOKIE, GTM_LOAD_FAILURE, USER_AUTH_EVENT_COOKIE as AUTH_COOKIE } from '../core/analytics.ts';
import { analyticsAttributes, ga4Params, parseUserAuthEvent, safeParams, userAuthEventValue } from '../core/analytics.ts';
import * as EVENTS from '../core/analytics.ts';
import { COOKIE_MAX_AGE_DAYS } from '../core/limits.ts';

type Params = Record<string, string | number | boolean>;
// The page's settings, the sign-in and sign-up form ids included (FORM_IDS, given by the server: not bundled).
// No `?.` or `??` here: for Safari 13 esbuild would spell each out at length, and bytes count on /sign-in.
const settings = document.querySelector<HTMLElement>('[data-island="analytics"]')!.dataset;
const signInForm = settings.signInForm!;
const signUpForm = settings.signUpForm!;
const w = window as unknown as { dataLayer?: unknown[] };
const dataLayer = (w.dataLayer ||= []);
const byId = (id: string) => document.getElementById(id);

const readCookie = (name: string) => decodeURIComponent((document.cookie.match(`(?:^|; )${name}=([^;]*)`) || [])[1] || '');
const writeCookie = (name: string, value: string, maxAgeSeconds: number) =>
  (document.cookie = `${name}=${encodeURIComponent(value)};Max-Age=${maxAgeSeconds};Path=/;SameSite=Lax${location.protocol === 'https:' ? ';Secure' : ''}`);

// Refreshed on every visit: 360 days from the last one (spec §9).
const userId = readCookie(ANONYMOUS_ID_COOKIE) || crypto.randomUUID();
writeCookie(ANONYMOUS_ID_COOKIE, userId, COOKIE_MAX_AGE_DAYS * 86_400);

function log(event: string, params: Params): void {
  // A string body goes as text/plain: a simple request, no preflight, sent even while the page unloads.
  if (settings.logUrl)
    navigator.sendBeacon(settings.logUrl, JSON.stringify({ ...analyticsAttributes(params), event, anonymousUserId: userId, path: location.pathname }));
}

function track(event: string, params: Params = {}): void {
  const safe = safeParams(params);
  dataLayer.push({ ...ga4Params(safe), event });
  log(event, safe);
}

if (settings.gtmSrc) {
  dataLayer.push({ 'gtm.start': Date.now(), event: 'gtm.js' });
  const script = document.createElement('script');
  script.async = true;
  script.src = settings.gtmSrc;
  script.onerror = () => log('error', { reason: GTM_LOAD_FAILURE });
  document.head.append(script);
}

// A sign-in or sign-up method clicked: the user-auth event cookie (spec §3), read back after the outcome.
document.addEventListener('submit', (event) => {
  const flow = { [signInForm]: 'sign_in', [signUpForm]: 'sign_up' }[(event.target as HTMLFormElement).id];
  const button = event.submitter as HTMLButtonElement | null;
  if (!flow || !button || (button.name !== 'method' && button.name !== 'provider')) return;
  if (button.name === 'provider') track(EVENTS.EVENT_PROVIDER_CHOSEN, { provider: button.value, flow });
  // `profile` is the first step of a two-step sign-up, not a method.
  if (button.value !== 'profile') writeCookie(AUTH_COOKIE, userAuthEventValue(button.value, Date.now(), location.href, { flow }), 3600);
});

/** The outcome of the last click: failed (an error on the sign-in form), or done once off the forms. */
function reportOutcome(): void {
  const clicked = parseUserAuthEvent(readCookie(AUTH_COOKIE));
  if (!clicked) return;
  const params = { method: clicked.method, durationMs: Date.now() - clicked.clickedAt };
  const form = byId(signInForm);
  const failure = form && form.querySelector<HTMLElement>('[data-message-id]');
  if (failure && clicked.flow === 'sign_in') track(EVENTS.EVENT_SIGN_IN_FAILED, { ...params, reason: failure.dataset.messageId! });
  else if (byId(signInForm) || byId(signUpForm))
    return; // still on the way (two steps, a provider round trip)
  else track(clicked.flow === 'sign_up' ? EVENTS.EVENT_SIGN_UP_COMPLETED : EVENTS.EVENT_SIGN_IN_SUCCEEDED, params);
  writeCookie(AUTH_COOKIE, '', 0);
}

// Kratos messages that are events themselves: verified (1080002), a recovery code sent (1060003).
const messages = [...document.querySelectorAll<HTMLElement>('[data-message-id]')].map((element) => element.dataset.messageId);
if (byId(signUpForm) && messages.length === 0) track(EVENTS.EVENT_SIGN_UP_STARTED);
if (messages.includes('1080002')) track(EVENTS.EVENT_VERIFICATION);
if (messages.includes('1060003')) track(EVENTS.EVENT_RECOVERY);
reportOutcome();
// An enhanced form post swaps the form in place: its outcome is reported when the fragment lands.
document.addEventListener('islands:mount', reportOutcome);
