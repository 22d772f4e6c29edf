/**
 * Rate limits for the guest forms: sign-in, sign-up, recovery, verification and resend.
 *
 * `authRateLimit(scope)` returns two middlewares to put before a POST handler:
 *   router.post('/sign-in', ...authRateLimit('sign-in'), handler)
 * 1. per client IP (IPv6 grouped by /56 subnet, as express-rate-limit recommends): one attacker
 *    machine trying many accounts is stopped, while a real user on another IP is not affected;
 * 2. per normalised email, read from the parsed body (`identifier`, `email`, `traits.email` or
 *    `traits: { email }`): one account hammered from many IPs is stopped too. Requests without an
 *    email are not counted by this one.
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
 * back to the defaults below. Stores are in memory per app instance: several app processes behind one
 * load balancer each count on their own, so the effective limit is
 * N times higher with N processes (a shared store would be the fix when the app is scaled out).
 * Limits, keys and trade-offs: docs/decisions/031-rate-limits-and-anti-enumeration.md.
 */
import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import { createElement } from 'react';
import { RateLimitedForm, RateLimitedPage } from '../../views/pages/RateLimitedPage.tsx';
import { FORM_IDS } from '../../core/form-ids.ts';
import { ROUTES } from '../../core/routes.ts';
import { responseMode } from '../flows/respond.ts';
import { renderFragment, renderPage } from '../render.tsx';

export type RateLimitScope = 'sign-in' | 'sign-up' | 'recovery' | 'verification' | 'resend';

export type RateLimitSetting = {
  /** Length of the counting window, in milliseconds. */
  windowMs: number;
  /** Requests allowed per window from one IP (or IPv6 /56). */
  perIp: number;
  /** Requests allowed per window for one normalised email address. */
  perEmail: number;
  /** Only failed answers (status >= 400) count against the email: a user signing in fine never locks
   * themself out; guessing passwords does. Used for sign-in only. */
  countOnlyFailuresPerEmail: boolean;
};

const MINUTE = 60_000;

/**
 * The defaults. Sign-in is generous per IP (offices and schools share one address) and strict per
 * account (password guessing). Anything that sends an email (recovery, resend, verification, sign-up)
 * is strict per address, so nobody can flood a mailbox through us.
 */
export const DEFAULT_RATE_LIMITS: Readonly<Record<RateLimitScope, Readonly<RateLimitSetting>>> = {
  'sign-in': { windowMs: 15 * MINUTE, perIp: 100, perEmail: 10, countOnlyFailuresPerEmail: true },
  'sign-up': { windowMs: 60 * MINUTE, perIp: 30, perEmail: 10, countOnlyFailuresPerEmail: false },
  recovery: { windowMs: 15 * MINUTE, perIp: 20, perEmail: 5, countOnlyFailuresPerEmail: false },
  verification: { windowMs: 15 * MINUTE, perIp: 40, perEmail: 10, countOnlyFailuresPerEmail: false },
  resend: { windowMs: 15 * MINUTE, perIp: 10, perEmail: 3, countOnlyFailuresPerEmail: false },
};

export const RATE_LIMIT_SCOPES = Object.keys(DEFAULT_RATE_LIMITS) as RateLimitScope[];

let settings: Record<RateLimitScope, RateLimitSetting> = cloneDefaults();
let disabled = false;

function cloneDefaults(): Record<RateLimitScope, RateLimitSetting> {
  return Object.fromEntries(RATE_LIMIT_SCOPES.map((scope) => [scope, { ...DEFAULT_RATE_LIMITS[scope] }])) as Record<
    RateLimitScope,
    RateLimitSetting
  >;
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

/** The email a guest form is about, from a urlencoded or JSON body, normalised; undefined if none. */
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

function digest(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

/** Per-IP key: the IPv6 /56 (or the IPv4 address) of the client, after `trust proxy`. */
export function ipKey(req: Request): string {
  return ipKeyGenerator(req.ip ?? req.socket.remoteAddress ?? 'unknown');
}

/** Per-email key for a request, or undefined when the body names no email. */
export function emailKey(req: Request): string | undefined {
  const email = emailFromBody(req.body);
  return email === undefined ? undefined : digest(email);
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

function limiter(scope: RateLimitScope, kind: 'ip' | 'email'): RequestHandler {
  const setting = settings[scope];
  return rateLimit({
    windowMs: setting.windowMs,
    limit: () => (kind === 'ip' ? settings[scope].perIp : settings[scope].perEmail),
    // Skip work entirely for reads, when switched off, and (per email) when there is no email.
    skip: (req) => disabled || !COUNTED_METHODS.has(req.method) || (kind === 'email' && emailKey(req) === undefined),
    keyGenerator: (req) => (kind === 'ip' ? `${scope}:ip:${ipKey(req)}` : `${scope}:email:${emailKey(req)}`),
    skipSuccessfulRequests: kind === 'email' && setting.countOnlyFailuresPerEmail,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    // Enhanced posts answer 200 + X-Redirect-To on success; a 303 likewise means success.
    requestWasSuccessful: (_req, res) => res.statusCode < 400,
    handler: (req, res) => {
      res.locals.rateLimitScope = scope;
      res.locals.rateLimitKind = kind;
      respondTooManyRequests(req, res);
    },
  });
}

/** The middlewares that limit one guest form by client IP and by email. */
export function authRateLimit(scope: RateLimitScope): RequestHandler[] {
  return [limiter(scope, 'ip'), limiter(scope, 'email')];
}
