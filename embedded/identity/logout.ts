// Logout (contract §11): create the logout URL, then revoke the session on GET /self-service/logout.
import { errors, KratosError } from './errors.ts';
import { json, redirect, type Ctx, type Reply } from './http.ts';
import { isReturnToAllowed, returnUrl } from './flows.ts';
import type { Service } from './service.ts';
import { clearSessionCookie, currentSession } from './sessions.ts';

/** GET /self-service/logout/browser */
export async function createBrowserLogout(svc: Service, ctx: Ctx): Promise<Reply> {
  const rt = ctx.query.get('return_to');
  if (rt && !isReturnToAllowed(svc, rt)) throw errors.returnToForbidden(rt);
  const cur = currentSession(svc, ctx);
  if (!cur) throw errors.sessionInactive();
  let url = `${svc.publicUrl}/self-service/logout?token=${cur.session.logout_token}`;
  if (rt) url += `&return_to=${encodeURIComponent(rt)}`;
  return json(200, { logout_url: url, logout_token: cur.session.logout_token });
}

/** GET /self-service/logout?token=&return_to= */
export async function updateLogout(svc: Service, ctx: Ctx): Promise<Reply> {
  const token = ctx.query.get('token');
  if (!token) throw errors.badRequest('Please include a token in the URL query.');
  const cur = currentSession(svc, ctx);
  if (!cur) throw errors.sessionInactive();
  if (cur.session.logout_token !== token) {
    throw new KratosError(403, { reason: 'Unable to log out because the logout token in the URL query does not match the session cookie.' });
  }
  const rt = ctx.query.get('return_to');
  if (rt && !isReturnToAllowed(svc, rt)) throw errors.returnToForbidden(rt);
  cur.session.active = false;
  svc.store.saveSession(cur.session);
  clearSessionCookie(svc, ctx);
  svc.csrf.regenerate(ctx);
  if (ctx.isJSON) return { status: 204 };
  const target = returnUrl(
    svc,
    { request_url: `${svc.publicUrl}/?${rt ? `return_to=${encodeURIComponent(rt)}` : ''}` },
    svc.config.selfservice.flows.logout.after.default_browser_return_url,
  );
  return redirect(303, target);
}

/**
 * DELETE /self-service/logout/api (v1.3.1 performNativeLogout): revokes the session of the token in the
 * JSON body; an unknown token is 403, an empty body 400. A token already revoked is still found (204).
 */
export async function performNativeLogout(svc: Service, ctx: Ctx): Promise<Reply> {
  if (!Number(ctx.req.headers['content-length'] ?? 0) && !ctx.req.headers['transfer-encoding']) {
    throw errors.badRequest('Unable to decode HTTP Request Body because its HTTP Header "Content-Length" is zero.');
  }
  const body = await ctx.body();
  const token = typeof body.session_token === 'string' ? body.session_token : '';
  const session = token ? svc.store.getSessionByToken(token) : undefined;
  if (!session) throw new KratosError(403, { reason: 'The provided Ory Session Token could not be found, is invalid, or otherwise malformed.' });
  session.active = false;
  svc.store.saveSession(session);
  return { status: 204 };
}
