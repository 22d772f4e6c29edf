/**
 * The 30-day authentication cookie of spec §9, read by the document app: the Kratos session as a JWT from
 * its tokenizer's `authentication` template (GET /sessions/whoami?tokenize_as=authentication).
 *
 *   refreshAuthCookie(req, res)  at a signed-in landing (our password sign-in, a signed-in browser on
 *                                /sign-in or a guest page, the home page): when the browser's cookie is
 *                                missing, unreadable or its JWT is near expiry, a new JWT is minted with the
 *                                cookies as Kratos last left them in this request (a sign-in's new session
 *                                cookie is in Kratos's Set-Cookie, not yet in the browser's header) and set.
 *                                Otherwise nothing: no Kratos call on the hot path.
 *
 * A failure is logged and the user goes on: the product works without the cookie (the document app sends
 * the browser back through our sign-in, which mints it again).
 */
import type { Request, Response } from 'express';
import { decodeJwt } from 'jose';
import { configOf } from '../request-context.ts';
import { readAuthCookie, setAuthCookie } from './app-cookies.ts';
import { kratosCall } from './kratos.ts';
import { LOG_REASONS } from '../log-reasons.ts';

const TEMPLATE = 'authentication';
/** A JWT closer than this to its expiry is replaced at the next landing (the template lives 28 minutes). */
export const AUTH_TOKEN_RENEW_MARGIN_MS = 5 * 60 * 1000;

/** Whether the browser's authentication cookie can stay as it is. */
export function authCookieFresh(jwt: string | undefined, now = Date.now()): boolean {
  if (!jwt) return false;
  try {
    const { exp } = decodeJwt(jwt);
    return typeof exp === 'number' && exp * 1000 - AUTH_TOKEN_RENEW_MARGIN_MS > now;
  } catch {
    return false;
  }
}

export async function refreshAuthCookie(req: Request, res: Response): Promise<void> {
  const config = configOf(req);
  if (authCookieFresh(readAuthCookie(req, config))) return;
  try {
    const answer = await kratosCall<{ tokenized?: string }>(req, res, (api, options) => api.toSession(undefined, undefined, TEMPLATE, options));
    const jwt = answer.ok ? answer.data?.tokenized : undefined;
    if (jwt) return setAuthCookie(res, config, jwt);
    req.log?.warn({ status: answer.status, reason: LOG_REASONS.ory }, 'authentication cookie not set: no token from the identity service');
  } catch (error) {
    req.log?.warn({ reason: LOG_REASONS.ory, cause: (error as Error).name }, 'authentication cookie not set: identity service unreachable');
  }
}
