/**
 * The spec §2 query parameters that travel with a flow screen, so they survive flow creation, restarts,
 * form posts and links between sign-in and sign-up:
 *
 *   KEPT_PARAMS = return_to, loginHint, email, highlight, platform, login_type, request_login, redirect, refresh,
 *                 request_google_sign_in (One Tap prompts on the page the new flow lands on),
 *                 social_sign_in_enabled, lng (a language chosen in the address must survive the hop to `?flow=`),
 *                 and login_challenge (Hydra's: the Kratos flows created here carry it, decision 130)
 *   keptParams(query)                 → URLSearchParams of those (single short string values only)
 *   withParams(path, params, extra?)  → `path?…` with `extra` (e.g. { flow }) first; an `extra` key set
 *                                       to undefined drops that kept parameter
 *   screenQuery(req, config)          → what a screen reads: the allow-listed return_to, `from`/`action`
 *                                       read FROM return_to, the prefill e-mail (loginHint, then email), …
 */
import type { Request } from 'express';
import { EMAIL_LIKE } from '../../core/limits.ts';
import type { Config } from '../config.ts';
import { isChallenge } from '../oauth2.ts';
import { readFromReturnTo, safeReturnTo } from '../security/return-to.ts';

export const KEPT_PARAMS = [
  'return_to',
  'loginHint',
  'email',
  'highlight',
  'platform',
  'login_type',
  'request_login',
  'redirect',
  'refresh',
  'request_google_sign_in',
  'social_sign_in_enabled',
  'lng',
  'login_challenge',
] as const;

export type KeptParam = (typeof KEPT_PARAMS)[number];

const MAX_VALUE_LENGTH = 2048;
/** Hydra's challenges may be long encrypted strings (server/oauth2.ts isChallenge). */
const MAX_LENGTH: Partial<Record<KeptParam, number>> = { login_challenge: 4096 };

export function keptParams(query: Request['query']): URLSearchParams {
  const params = new URLSearchParams();
  for (const name of KEPT_PARAMS) {
    const value = query[name];
    if (typeof value === 'string' && value.length > 0 && value.length <= (MAX_LENGTH[name] ?? MAX_VALUE_LENGTH)) params.set(name, value);
  }
  return params;
}

export function withParams(path: string, params: URLSearchParams, extra: Record<string, string | undefined> = {}): string {
  const out = new URLSearchParams();
  for (const [name, value] of Object.entries(extra)) if (value !== undefined) out.set(name, value);
  // A key named in `extra` replaces the kept value, even when `extra` gives it as undefined (= drop it).
  for (const [name, value] of params) if (!(name in extra)) out.set(name, value);
  const query = out.toString();
  return query ? `${path}?${query}` : path;
}

export type ScreenQuery = {
  returnTo?: string;
  from?: string;
  action?: string;
  /** The address to prefill: `loginHint` first (social providers' name for it), then `email`. */
  prefillEmail?: string;
  /** Which field to draw attention to (`email` or `password`); anything else is ignored. */
  highlight?: 'email' | 'password';
  platform?: string;
  loginType?: string;
  requestLogin?: boolean;
  /** Re-authentication of a signed-in user (`refresh=true`), e.g. before a password change. */
  refresh: boolean;
  /** Hydra's login challenge (`login_challenge`): the flows created for this screen carry it to Kratos. */
  loginChallenge?: string;
  kept: URLSearchParams;
};

const SHORT_TOKEN = /^[A-Za-z0-9_.:-]{1,64}$/;

function shortToken(value: unknown): string | undefined {
  return typeof value === 'string' && SHORT_TOKEN.test(value) ? value : undefined;
}

export function screenQuery(req: Request, config: Config): ScreenQuery {
  const query = req.query;
  const returnTo = safeReturnTo(query.return_to, config);
  const { from, action } = readFromReturnTo(returnTo);
  const hint = [query.loginHint, query.email].find((value): value is string => typeof value === 'string' && EMAIL_LIKE.test(value.trim()));
  const highlight = query.highlight === 'email' || query.highlight === 'password' ? query.highlight : undefined;
  return {
    returnTo,
    from,
    action,
    prefillEmail: hint?.trim(),
    highlight,
    platform: shortToken(query.platform),
    loginType: shortToken(query.login_type),
    requestLogin: query.request_login === 'true' || query.request_login === '1',
    refresh: query.refresh === 'true',
    loginChallenge: isChallenge(query.login_challenge) ? query.login_challenge : undefined,
    kept: keptParams(query),
  };
}
