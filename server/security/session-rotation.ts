/**
 * Our server-side session (`accounts.sid`: the CSRF token of our own forms) follows who is signed in.
 *
 * The one place that sees the signed-in identity change is the relay of Kratos's answers
 * (server/flows/kratos.ts `kratosCall`): whenever Kratos sets or clears `ory_kratos_session` (sign-in,
 * sign-up that signs in, recovery that opens a session, the invitation's sign-in, a refresh as another
 * user, logout), `rotateAppSession` gives the browser a new session id and destroys the old one in the
 * store. A session id planted before the sign-in (session fixation) is then worth nothing: its CSRF
 * token no longer matches anything. Sign-out destroys the session outright (server/routes/logout.ts).
 *
 * Kratos also renews its cookie when the same person stays signed in (a settings save, a refresh
 * sign-in before a password change): when the answer names the identity and it is the one our session
 * is bound to, nothing rotates, so the page's CSRF token and its one-time notices stay valid. One-time
 * notices (the flash) are carried across a rotation too: they hold message keys, never a secret.
 *
 *   setsKratosSession(setCookies)        → true when one of Kratos's Set-Cookie lines is its session cookie
 *   identityOf(body)                     → the identity id a Kratos answer names (session or flow), if any
 *   rotateAppSession(req, res, identity) → regenerates our session at most once per request unless the
 *                                          same identity stays signed in; a CSRF token already handed
 *                                          to this request's page is replaced by a new one
 */
import type { Request, Response } from 'express';
import { ensureCsrfToken } from './csrf.ts';

const KRATOS_SESSION_SET_COOKIE = /^\s*ory_(?:kratos_)?session[^=]*=/i;

export function setsKratosSession(setCookies: readonly string[]): boolean {
  return setCookies.some((line) => KRATOS_SESSION_SET_COOKIE.test(line));
}

export function identityOf(body: unknown): string | undefined {
  const answer = body as { session?: { identity?: { id?: unknown } }; identity?: { id?: unknown } } | undefined;
  const id = answer?.session?.identity?.id ?? answer?.identity?.id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

declare module 'express-session' {
  interface SessionData {
    /** The Kratos identity this session was issued to (unknown until an answer names it). */
    identityId?: string;
  }
}

export async function rotateAppSession(req: Request, res: Response, identity: string | undefined): Promise<void> {
  if (!req.session || res.locals.appSessionRotated) return;
  if (identity !== undefined && req.session.identityId === identity) return; // the same person, renewed
  res.locals.appSessionRotated = true;
  const hadToken = res.locals.csrfToken !== undefined;
  const flash = req.session.profileFlash;
  await new Promise<void>((resolve, reject) => req.session.regenerate((error) => (error ? reject(error) : resolve())));
  if (flash) req.session.profileFlash = flash;
  if (identity !== undefined) req.session.identityId = identity;
  req.log?.debug('app session regenerated: the signed-in identity changed');
  if (hadToken) await ensureCsrfToken(req, res);
}
