/**
 * Rate limits for the guest forms: sign-in, sign-up, recovery, verification and resend.
 *
 * `authRateLimit(scope)` returns two middlewares to put before a POST handler:
 *   router.post('/sign-in', ...authRateLimit('sign-in'), handler)
 * 1. per client IP (IPv6 grouped by /56 subnet, as express-rate-limit recommends): one attacker
 *    machine trying many accounts is stopped, while a real user on another IP is not affected;
 * 2. per normalised email, read from the ONE body field that scope acts on (`EMAIL_FIELD`: sign-in
 *    `identifier`, sign-up `traits.email` (form or JSON), recovery, verification and resend `email`):
 *    one account hammered from many IPs is stopped too, and a decoy in another field cannot open a
 *    fresh bucket for the address that gets mailed. Requests without that email are not counted.
 * Sign-in (decision 031, issue 10 #5) counts failures only, and never lets a stranger lock an owner out:
 *    its per-IP and per-account limits skip a device the account signed in from before
 *    (server/security/known-device.ts), and a third limiter counts failures per account and IP
 *    (per account and known device for those), so one attacker is stopped without blocking an office.
 * Only POST/PUT/PATCH/DELETE count; GET and HEAD pass untouched, so rendering a form never uses quota.
 *
 * Email normalisation: trimmed, lower-cased, NFKC, exactly as Kratos normalises identifiers (§12.2).
 * Gmail-style dots and `+tags` are deliberately NOT merged: for most providers they name different
 * mailboxes, and Kratos treats `a.b@x` and `ab@x` as two identities, so merging would let traffic for
 * one account lock out another. Keys are SHA-256 digests, so the store never holds an address.
 *
 * When a limit is hit: 429 with `Retry-After` (seconds), answered the three ways: a translated page
 * (RateLimitedPage), for the form island (`X-Enhance: 1`) the notice as the submitted form (same id), or JSON
 * `{ code: 'too_many_requests', message, meta: { retryAfterSeconds } }` for integrators.
 *
 * Changing limits (tests, the benchmark): call `configureRateLimits({ 'sign-in': { perIp: 1_000_000 } })`
 * BEFORE createApp() builds its routers; the window is fixed when the middleware is built, the counts
 * are read on every request (so lowering a count later still takes effect).
 * `configureRateLimits('off')` turns every limit off (benchmark only); `resetRateLimitSettings()` goes
 * back to the defaults below. Counts are in memory per app instance (bounded: decision 205), or with REDIS_URL in Redis, shared
 * by every instance (createApp calls useRateLimitStore; server/security/shared-limit-store.ts, which
 * counts in memory while Redis is unreachable: decision 160).
 * Limits, keys and trade-offs: docs/decisions/031-rate-limits-and-anti-enumeration.md.
 */
import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator, rateLimit, type Store } from 'express-rate-limit';
import { createElement } from 'react';
import { RateLimitedForm, RateLimitedPage } from '../../views/pages/RateLimitedPage.tsx';
import { FORM_IDS } from '../../core/form-ids.ts';
import { ROUTES } from '../../core/routes.ts';
import { responseMode } from '../flows/respond.ts';
import { flattenBody } from '../flows/schemas.ts';
import { knownDeviceId, rememberKnownDevice } from './known-device.ts';
import { memoryLimitStores } from './limit-counters.ts';
import { renderFragment, renderPage } from '../render.tsx';

export type RateLimitScope = 'sign-in' | 'sign-up' | 'recovery' | 'verification' | 'resend';

export type RateLimitSetting = {
  /** Length of the counting window, in milliseconds. */
  windowMs: number;
  /** Requests allowed per window from one IP (or IPv6 /56). */
  perIp: number;
  /** Requests allowed per window for one normalised email address. */
  perEmail: number;
  /**
   * What counts against the email: `every` request; only `failures` (status >= 400: a user signing in
   * fine never locks themself out, guessing passwords does; sign-in); or only requests the handler
   * `marked` with countAgainstEmail (sign-up: a completed sign-up, which mails the address, while steps,
   * typos and retries are free).
   */
  perEmailCounts: 'every' | 'failures' | 'marked';
  /** Sign-in only: failures per account from one IP (or one known device); with it, every sign-in
   * limiter counts failures only and a known device of the account skips the per-IP and per-account ones. */
  perEmailAndIp?: number;
};

const MINUTE = 60_000;

/**
 * The defaults. Sign-in is generous per IP (offices and schools share one address) and strict per
 * account (password guessing). Anything that sends an email (recovery, resend, verification, sign-up)
 * is strict per address, so nobody can flood a mailbox through us.
 */
export const DEFAULT_RATE_LIMITS: Readonly<Record<RateLimitScope, Readonly<RateLimitSetting>>> = {
  'sign-in': { windowMs: 15 * MINUTE, perIp: 100, perEmail: 50, perEmailCounts: 'failures', perEmailAndIp: 10 },
  // Per IP every post counts (one machine creating accounts, or probing which addresses exist); per
  // address only completed sign-ups, so switching languages or fixing a typo never locks anyone out.
  'sign-up': { windowMs: 60 * MINUTE, perIp: 60, perEmail: 3, perEmailCounts: 'marked' },
  recovery: { windowMs: 15 * MINUTE, perIp: 20, perEmail: 5, perEmailCounts: 'every' },
  verification: { windowMs: 15 * MINUTE, perIp: 40, perEmail: 10, perEmailCounts: 'every' },
  resend: { windowMs: 15 * MINUTE, perIp: 10, perEmail: 3, perEmailCounts: 'every' },
};

export const RATE_LIMIT_SCOPES = Object.keys(DEFAULT_RATE_LIMITS) as RateLimitScope[];

let settings: Record<RateLimitScope, RateLimitSetting> = cloneDefaults();
/** Makes each limiter's store (express-rate-limit refuses a shared one); one prefix counts once, in Redis and in memory alike. */
let storeFactory: (prefix: string) => Store = memoryLimitStores();

/** The stores the limiters built from now on count in (createApp: Redis with REDIS_URL, else undefined: this app's own memory). */
export function useRateLimitStore(factory: ((prefix: string) => Store) | undefined): void {
  storeFactory = factory ?? memoryLimitStores();
}
let disabled = false;

function cloneDefaults(): Record<RateLimitScope, RateLimitSetting> {
  return Object.fromEntries(RATE_LIMIT_SCOPES.map((scope) => [scope, { ...DEFAULT_RATE_LIMITS[scope] }])) as Record<RateLimitScope, RateLimitSetting>;
}

/** Overrides some limits (merged into the current ones), or turns them all off with 'off'. */
export function configureRateLimits(overrides: Partial<Record<RateLimitScope, Partial<RateLimitSetting>>> | 'off'): void {
  if (overrides === 'off') {
    disabled = true;
    return;
  }
  disabled = false;
  for (const scope of RATE_LIMIT_SCOPES) {
    const override = overrides[scope];
    if (override) settings[scope] = { ...settings[scope], ...override };
  }
}

export function resetRateLimitSettings(): void {
  settings = cloneDefaults();
  disabled = false;
}

export function currentRateLimits(scope: RateLimitScope): Readonly<RateLimitSetting> {
  return settings[scope];
}

const COUNTED_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Longer strings are not email addresses (spec §5: at most 255); cut before hashing all the same. */
const MAX_EMAIL_KEY_LENGTH = 320;

export function normaliseEmail(value: string): string {
  return value.normalize('NFKC').trim().toLowerCase().slice(0, MAX_EMAIL_KEY_LENGTH);
}

/** The one body field each scope acts on: the address Kratos signs in, registers or mails. */
export const EMAIL_FIELD: Readonly<Record<RateLimitScope, string>> = {
  'sign-in': 'identifier',
  'sign-up': 'traits.email',
  recovery: 'email',
  verification: 'email',
  resend: 'email',
};

/** The address a scope's request acts on: its EMAIL_FIELD, read as the screens parse bodies (JSON `traits: { email }` flattened). */
export function scopeEmail(body: unknown, scope: RateLimitScope): string | undefined {
  const value = flattenBody(body)[EMAIL_FIELD[scope]];
  if (typeof value !== 'string') return undefined;
  return normaliseEmail(value) || undefined;
}

/** Any email a guest form names (first of `identifier`, `email`, `traits.email`), normalised; undefined if none. */
export function emailFromBody(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const record = body as Record<string, unknown>;
  const traits = record.traits;
  const nested = traits && typeof traits === 'object' ? (traits as Record<string, unknown>).email : undefined;
  for (const candidate of [record.identifier, record.email, record['traits.email'], nested]) {
    if (typeof candidate === 'string') {
      const email = normaliseEmail(candidate);
      if (email) return email;
    }
  }
  return undefined;
}

/** 128 bits of SHA-256, base64url (22 characters): no collision between addresses in any window, half the key. */
function digest(value: string): string {
  return createHash('sha256').update(value).digest().subarray(0, 16).toString('base64url');
}

/** Per-IP key: the IPv6 /56 (or the IPv4 address) of the client, after `trust proxy`. */
export function ipKey(req: Request): string {
  return ipKeyGenerator(req.ip ?? req.socket.remoteAddress ?? 'unknown');
}

/** Per-email key for a request: of the scope's own field when a scope is given; undefined when there is none. */
export function emailKey(req: Request, scope?: RateLimitScope): string | undefined {
  const email = scope ? scopeEmail(req.body, scope) : emailFromBody(req.body);
  return email === undefined ? undefined : digest(email);
}

type Kind = 'ip' | 'email' | 'email-ip';

/** Sign-in: the known-device id of this request's account, computed once per request. */
function deviceOf(req: Request, res: Response, scope: RateLimitScope): string | undefined {
  if (!('knownDevice' in res.locals)) {
    const email = scopeEmail(req.body, scope);
    res.locals.knownDevice = email === undefined ? undefined : knownDeviceId(req, email);
  }
  return res.locals.knownDevice as string | undefined;
}

/** A client's key in one limiter: each limiter has its own store and Redis prefix, so keys carry only what varies, the pair as one digest (short flat keys: less memory, decision 205). */
function keyFor(req: Request, res: Response, scope: RateLimitScope, kind: Kind): string {
  if (kind === 'ip') return ipKey(req);
  if (kind === 'email') return emailKey(req, scope) ?? ''; // never empty: skipped() passes no request without one
  const device = deviceOf(req, res, scope);
  return digest(device ? `d/${device}/${emailKey(req, scope)}` : `i/${ipKey(req)}/${emailKey(req, scope)}`);
}

function limitFor(scope: RateLimitScope, kind: Kind): number {
  const setting = settings[scope];
  if (kind === 'ip') return setting.perIp;
  if (kind === 'email') return setting.perEmail;
  return setting.perEmailAndIp ?? Number.MAX_SAFE_INTEGER;
}

function skipped(req: Request, res: Response, scope: RateLimitScope, kind: Kind): boolean {
  if (disabled || !COUNTED_METHODS.has(req.method)) return true;
  if (kind !== 'ip' && emailKey(req, scope) === undefined) return true;
  // A device the account signed in from is limited by its own bucket (email-ip), not by strangers'.
  return kind !== 'email-ip' && settings[scope].perEmailAndIp !== undefined && deviceOf(req, res, scope) !== undefined;
}

function retryAfterSeconds(req: Request, res: Response): number {
  const header = Number(res.getHeader('Retry-After'));
  if (Number.isFinite(header) && header > 0) return header;
  const reset = (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
  return reset ? Math.max(1, Math.ceil((reset.getTime() - Date.now()) / 1000)) : 60;
}

/**
 * The form island swaps the form whose id matches the fragment's: for enhanced posts the notice is
 * rendered as the form of the page the request came from. Other paths get the page's <main>, which the
 * island answers with its generic error toast.
 */
const FORM_ID_BY_PATH: Readonly<Record<string, string>> = {
  [ROUTES.signIn]: FORM_IDS.signIn,
  [ROUTES.signUp]: FORM_IDS.signUp,
  [ROUTES.forgotPassword]: FORM_IDS.forgotPassword,
  [ROUTES.resetPassword]: FORM_IDS.resetPassword,
  [ROUTES.verification]: FORM_IDS.verification,
  [ROUTES.verifyAccount]: FORM_IDS.verification,
  [ROUTES.resendVerification]: FORM_IDS.resendVerification,
};

/** The 429 answer, in the form the caller asked for. */
export function respondTooManyRequests(req: Request, res: Response): void {
  const seconds = retryAfterSeconds(req, res);
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  res.setHeader('Retry-After', String(seconds));
  req.log?.warn({ scope: res.locals.rateLimitScope, limitedBy: res.locals.rateLimitKind }, 'rate limit hit');
  const mode = responseMode(req);
  if (mode === 'json') {
    res
      .status(429)
      .set('Cache-Control', 'no-store')
      .json({ code: 'too_many_requests', message: req.t('rateLimit.message', { minutes }), meta: { retryAfterSeconds: seconds } });
    return;
  }
  const page = createElement(RateLimitedPage, { minutes, retryUrl: req.originalUrl });
  if (mode === 'enhanced') {
    const formId = FORM_ID_BY_PATH[req.path];
    return renderFragment(req, res, formId ? createElement(RateLimitedForm, { formId, minutes, retryUrl: req.originalUrl }) : page, 429);
  }
  renderPage(req, res, page, { title: req.t('rateLimit.title'), status: 429 });
}

/** The sign-up handler's mark on a request that completed a sign-up: it counts against the address (`perEmailCounts: 'marked'`). */
export function countAgainstEmail(res: Response): void {
  res.locals.rateLimitCounted = true;
}

function limiter(scope: RateLimitScope, kind: Kind): RequestHandler {
  const setting = settings[scope];
  const failuresOnly = setting.perEmailAndIp !== undefined || (kind === 'email' && setting.perEmailCounts === 'failures');
  const markedOnly = kind === 'email' && setting.perEmailCounts === 'marked';
  return rateLimit({
    windowMs: setting.windowMs,
    store: storeFactory(`accounts:rl:${scope}:${kind}:`),
    limit: () => limitFor(scope, kind),
    // Skip work entirely for reads, when switched off, and (per email) when there is no email.
    skip: (req, res) => skipped(req, res, scope, kind),
    keyGenerator: (req, res) => keyFor(req, res, scope, kind),
    skipSuccessfulRequests: failuresOnly,
    // Marked counting: every request is taken back afterwards unless its handler marked it.
    skipFailedRequests: markedOnly,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    // Enhanced posts answer 200 + X-Redirect-To on success; a 303 likewise means success.
    requestWasSuccessful: (_req, res) => (markedOnly ? res.locals.rateLimitCounted === true : res.statusCode < 400),
    handler: (req, res) => {
      res.locals.rateLimitScope = scope;
      res.locals.rateLimitKind = kind;
      respondTooManyRequests(req, res);
    },
  });
}

/** The middlewares that limit one guest form by client IP and by email. */
export function authRateLimit(scope: RateLimitScope): RequestHandler[] {
  const limiters = [limiter(scope, 'ip'), limiter(scope, 'email')];
  return settings[scope].perEmailAndIp === undefined ? limiters : [...limiters, limiter(scope, 'email-ip')];
}

/** After a successful password sign-in: this browser becomes a known device of the account it named. */
export function rememberSignInDevice(req: Request, res: Response): void {
  const email = scopeEmail(req.body, 'sign-in');
  if (email !== undefined) rememberKnownDevice(req, res, email);
}
