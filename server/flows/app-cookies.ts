/**
 * The app's own cookies around sign-in and logout (spec §3, §9):
 *
 *   LAST_ACCESS_ACCOUNT        `last_access_account`: the last signed-in e-mail (and name), offered on
 *                              the sign-in page; JSON, HttpOnly, 360 days
 *   readLastAccount(req) / rememberLastAccount(res, config, account) / forgetLastAccount(res, config)
 *   authCookieName(config)     the authentication cookie: `auth_token` in production, `auth_token_<env>` otherwise
 *   setAuthCookie(res, config, jwt) the session as a JWT (Kratos's `authentication` template) for the document
 *                              app: HttpOnly, SameSite=Lax, Secure in production, 30 days (spec §9), on
 *                              AUTH_COOKIE_DOMAIN when set (server/flows/auth-cookie.ts decides when)
 *   googleTokenCookieName(config) the Google access token cookie: `google_access_token[_<env>]`
 *   rememberGoogleCredential(res, config, idToken, exp) after a Google One Tap sign-in: the Google token
 *                              cookie holds the ID token, the one Google token there is (decision 120)
 *   clearAuthCookies(res, config) expires both (logout), the authentication cookie on its domain too
 */
import type { Request, Response } from 'express';
import { EMAIL_LIKE } from '../../core/limits.ts';
import type { Config } from '../config.ts';

export const LAST_ACCESS_ACCOUNT = 'last_access_account';
const COOKIE_DAYS_MS = 360 * 24 * 60 * 60 * 1000;
const GOOGLE_TOKEN_MAX_MS = 60 * 60 * 1000;
/** Spec §9: the authentication cookie lives 30 days. */
export const AUTH_COOKIE_MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;

export type LastAccount = { email: string; name?: string };

function envSuffix(config: Pick<Config, 'isProduction' | 'NODE_ENV'>): string {
  return config.isProduction ? '' : `_${config.NODE_ENV}`;
}

export function authCookieName(config: Pick<Config, 'isProduction' | 'NODE_ENV'>): string {
  return `auth_token${envSuffix(config)}`;
}

export function googleTokenCookieName(config: Pick<Config, 'isProduction' | 'NODE_ENV'>): string {
  return `google_access_token${envSuffix(config)}`;
}

function baseOptions(config: Pick<Config, 'isProduction'>) {
  return { httpOnly: true, sameSite: 'lax' as const, secure: config.isProduction, path: '/' };
}

export function readLastAccount(req: Request): LastAccount | undefined {
  const raw = (req.cookies as Record<string, string> | undefined)?.[LAST_ACCESS_ACCOUNT];
  if (typeof raw !== 'string' || raw.length > 1024) return undefined;
  try {
    const parsed = JSON.parse(raw) as Partial<LastAccount>;
    if (typeof parsed.email !== 'string' || !EMAIL_LIKE.test(parsed.email)) return undefined;
    const name = typeof parsed.name === 'string' && parsed.name.length <= 64 ? parsed.name : undefined;
    return { email: parsed.email, ...(name ? { name } : {}) };
  } catch {
    return undefined;
  }
}

export function rememberLastAccount(res: Response, config: Config, account: LastAccount): void {
  res.cookie(LAST_ACCESS_ACCOUNT, JSON.stringify(account), { ...baseOptions(config), maxAge: COOKIE_DAYS_MS });
}

export function forgetLastAccount(res: Response, config: Config): void {
  res.clearCookie(LAST_ACCESS_ACCOUNT, baseOptions(config));
}

/** Until the ID token's own expiry (at most an hour for Google's), never longer. */
export function rememberGoogleCredential(res: Response, config: Config, idToken: string, expiresAtSeconds: number | undefined): void {
  const maxAge = Math.min(GOOGLE_TOKEN_MAX_MS, (expiresAtSeconds ?? 0) * 1000 - Date.now());
  if (maxAge > 0) res.cookie(googleTokenCookieName(config), idToken, { ...baseOptions(config), maxAge });
}

function authCookieOptions(config: Config) {
  return { ...baseOptions(config), ...(config.AUTH_COOKIE_DOMAIN ? { domain: config.AUTH_COOKIE_DOMAIN } : {}) };
}

export function setAuthCookie(res: Response, config: Config, jwt: string): void {
  res.cookie(authCookieName(config), jwt, { ...authCookieOptions(config), maxAge: AUTH_COOKIE_MAX_AGE_MS });
}

export function readAuthCookie(req: Request, config: Config): string | undefined {
  const value = (req.cookies as Record<string, string> | undefined)?.[authCookieName(config)];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

export function clearAuthCookies(res: Response, config: Config): void {
  res.clearCookie(authCookieName(config), baseOptions(config));
  // One set on the shared domain is another cookie to the browser: it is expired on that domain as well.
  if (config.AUTH_COOKIE_DOMAIN) res.clearCookie(authCookieName(config), authCookieOptions(config));
  res.clearCookie(googleTokenCookieName(config), baseOptions(config));
}
