/**
 * CSRF protection for the app's OWN forms (logout, profile settings, language-free state changes…),
 * with the synchronizer-token pattern of `csrf-sync`: the token lives in our server-side session
 * (server/session.ts) and every state-changing request must send it back.
 * Kratos flow forms are NOT covered here: they carry Kratos's own `csrf_token` and Kratos checks it.
 *
 * Exports:
 * - `provideCsrfToken`  GET middleware: puts the token in `res.locals.csrfToken`; views read it through
 *                       useView().csrfToken and render `<input type="hidden" name="_csrf" value=…>`.
 * - `requireCsrf`       POST/PUT/PATCH/DELETE middleware: accepts the token from the body field `_csrf`
 *                       or the `x-csrf-token` header; otherwise 403 (translated page, or JSON
 *                       `{ code: 'csrf_invalid', message }` for `Accept: application/json`).
 * - `isCsrfTokenValid(req, token)`  the same check for handlers that parse their own body (multipart
 *                       uploads with busboy): read `_csrf` from the stream, then call this.
 * - `requireSameOriginOrCsrf`  for guest forms whose page must not cost a stored session (the sign-in
 *                       page's "forget this account"): the browser's own word that the post comes from
 *                       our origin (`Sec-Fetch-Site: same-origin`, else `Origin`, else `Referer`, against
 *                       the request's Host) is enough; a client sending none of them needs our token.
 *                       Why: docs/decisions/080-no-session-for-guests.md.
 * - `CSRF_FIELD`, `CSRF_HEADER` the field and header names.
 *
 * Usage: `router.get('/profile-settings', provideCsrfToken, show)` and
 *        `router.post('/profile-settings', requireCsrf, save)`.
 */
import { timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { csrfSync } from 'csrf-sync';
import { appError, ERROR_CODES } from '../../core/errors.ts';
import type { AppLocals } from '../locals.ts';

export const CSRF_FIELD = '_csrf';
export const CSRF_HEADER = 'x-csrf-token';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function tokenFromRequest(req: Request): string | undefined {
  const fromBody = (req.body as Record<string, unknown> | undefined)?.[CSRF_FIELD];
  if (typeof fromBody === 'string') return fromBody;
  const fromHeader = req.headers[CSRF_HEADER];
  return typeof fromHeader === 'string' ? fromHeader : undefined;
}

// 32 random bytes (64 hex characters) per session; csrf-sync generates and stores it.
const csrf = csrfSync({ size: 32, getTokenFromRequest: tokenFromRequest });

/** Compares in constant time, so the token cannot be guessed byte by byte from response timings. */
export function isCsrfTokenValid(req: Request, token: unknown): boolean {
  // No session cookie means no token was ever given to this browser.
  if (!req.session) return false;
  const expected = csrf.getTokenFromState(req);
  if (typeof token !== 'string' || typeof expected !== 'string') return false;
  const a = Buffer.from(token);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

// Sessions are loaded app-wide only when the browser already has our cookie (server/session.ts);
// a page that shows one of our forms starts one here.
export const provideCsrfToken: RequestHandler = (req, res, next) => {
  if (!req.session) {
    const { startSession } = req.app.locals as AppLocals;
    return startSession(req, res, (error?: unknown) => (error ? next(error) : withSession(req, res, next)));
  }
  withSession(req, res, next);
};

/** `provideCsrfToken` as a step of a handler, once it knows the visitor should get our form. */
export const ensureCsrfToken = (req: Request, res: Response): Promise<void> =>
  new Promise((resolve, reject) => provideCsrfToken(req, res, (error?: unknown) => (error ? reject(error) : resolve())));

/**
 * Our session belongs to one signed-in identity (server/security/session-rotation.ts). A page for a
 * signed-in user binds it; a session that already held a token for nobody or for someone else is
 * replaced first, so a session id planted in the browser never carries a token its planter knows.
 */
async function bindToIdentity(req: Request, res: Response): Promise<void> {
  const identity = (res.locals.kratosSession as { identity?: { id?: unknown } } | null | undefined)?.identity?.id;
  if (typeof identity !== 'string' || req.session.identityId === identity) return;
  if (req.session.identityId !== undefined || csrf.getTokenFromState(req) !== undefined) {
    await new Promise<void>((resolve, reject) => req.session.regenerate((error) => (error ? reject(error) : resolve())));
  }
  req.session.identityId = identity;
}

const withSession: RequestHandler = async (req, res, next) => {
  try {
    await bindToIdentity(req, res);
  } catch (error) {
    return next(error);
  }
  const existing = csrf.getTokenFromState(req);
  res.locals.csrfToken = csrf.generateToken(req);
  if (typeof existing === 'string') return next();
  // A new token is saved before the page renders: should the store be down, the visitor gets the
  // error page, not a form whose token was never kept (express-session would save after the body).
  req.session.save((error) => next(error));
};

export const requireCsrf: RequestHandler = (req, _res, next) => {
  if (SAFE_METHODS.has(req.method)) return next();
  if (isCsrfTokenValid(req, tokenFromRequest(req))) return next();
  req.log?.warn({ method: req.method, path: req.path }, 'csrf token missing or invalid');
  next(appError(403, ERROR_CODES.csrfInvalid, 'httpError.csrfInvalid'));
};

function hostOf(value: string): string | undefined {
  try {
    return new URL(value).host.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * What the browser says about where a request comes from: 'same' (our origin), 'cross' (another origin,
 * an opaque `Origin: null` included), or 'unknown' (no Sec-Fetch-Site, Origin or Referer at all).
 * Compared with the Host the browser addressed, so the sign-in pages on ACCOUNT_HOST work the same.
 */
export function requestOrigin(req: Request): 'same' | 'cross' | 'unknown' {
  const site = req.headers['sec-fetch-site'];
  if (typeof site === 'string' && site !== '') return site === 'same-origin' ? 'same' : 'cross';
  const host = req.headers.host?.toLowerCase();
  const origin = req.headers.origin;
  if (typeof origin === 'string' && origin !== '') return host !== undefined && hostOf(origin) === host ? 'same' : 'cross';
  const referer = req.headers.referer;
  if (typeof referer === 'string' && referer !== '') return host !== undefined && hostOf(referer) === host ? 'same' : 'cross';
  return 'unknown';
}

export const requireSameOriginOrCsrf: RequestHandler = (req, _res, next) => {
  if (SAFE_METHODS.has(req.method)) return next();
  const origin = requestOrigin(req);
  if (origin === 'same') return next();
  if (origin === 'unknown' && isCsrfTokenValid(req, tokenFromRequest(req))) return next();
  req.log?.warn({ method: req.method, path: req.path, origin }, 'cross-origin post refused');
  next(appError(403, ERROR_CODES.csrfInvalid, 'httpError.csrfInvalid'));
};
