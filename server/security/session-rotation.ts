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
 *   setsKratosSession(setCookies)  → true when one of Kratos's Set-Cookie lines is its session cookie
 *   rotateAppSession(req, res)     → regenerates our session at most once per request; a CSRF token
 *                                    already handed to this request's page is replaced by a new one
 */
import type { Request, Response } from 'express';
import { ensureCsrfToken } from './csrf.ts';

const KRATOS_SESSION_SET_COOKIE = /^\s*ory_(?:kratos_)?session[^=]*=/i;

export function setsKratosSession(setCookies: readonly string[]): boolean {
  return setCookies.some((line) => KRATOS_SESSION_SET_COOKIE.test(line));
}

export async function rotateAppSession(req: Request, res: Response): Promise<void> {
  if (!req.session || res.locals.appSessionRotated) return;
  res.locals.appSessionRotated = true;
  const hadToken = res.locals.csrfToken !== undefined;
  await new Promise<void>((resolve, reject) => req.session.regenerate((error) => (error ? reject(error) : resolve())));
  req.log?.debug('app session regenerated: the signed-in identity changed');
  if (hadToken) await ensureCsrfToken(req, res);
}
