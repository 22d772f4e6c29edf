// Admin: remembered consents (list, revoke — their tokens go too), remembered logins (revoke), and the
// revocation of every token of a client.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { consentRequest } from './admin-requests.ts';
import type { Context } from './context.ts';
import { missingQuery, oauthError } from './errors.ts';
import { saveFlow, type Flow } from './flows.ts';
import { sendEmpty, sendJson } from './http.ts';
import type { LoginSession } from './login-sessions.ts';
import { revokeGrant } from './tokens.ts';

/** Hydra lists only remembered, used, unrevoked consents, the earliest given first. */
function consentSessions(ctx: Context, subject: string, loginSessionId: string | null): Flow[] {
  return ctx.store
    .find<Flow>('flow', { subject })
    .filter((flow) => flow.consent?.remember && flow.consentUsed && !flow.revoked && (!loginSessionId || flow.sessionId === loginSessionId))
    .sort((a, b) => (a.consent!.handledAt < b.consent!.handledAt ? -1 : a.consent!.handledAt > b.consent!.handledAt ? 1 : 0));
}

export function handleSessionsAdmin(req: IncomingMessage, res: ServerResponse, path: string, ctx: Context): boolean {
  const query = new URL(req.url ?? '/', 'http://admin').searchParams;
  if (path === '/admin/oauth2/auth/sessions/consent' && (req.method === 'GET' || req.method === 'DELETE')) {
    const subject = query.get('subject');
    if (!subject) throw missingQuery('subject');
    if (req.method === 'GET') {
      const list = consentSessions(ctx, subject, query.get('login_session_id')).map((flow) => {
        const consent = flow.consent!;
        return {
          grant_scope: consent.grantScope,
          grant_access_token_audience: consent.grantAudience,
          session: consent.session,
          remember: consent.remember,
          remember_for: consent.rememberFor,
          handled_at: consent.handledAt,
          context: Object.keys(consent.context).length ? consent.context : flow.login && Object.keys(flow.login.context).length ? flow.login.context : null,
          consent_request: consentRequest(ctx, flow, flow.consentRequestId ?? flow.id),
        };
      });
      sendJson(res, 200, list);
      return true;
    }
    const client = query.get('client');
    if (!client && query.get('all') !== 'true') {
      throw oauthError('invalid_request', "Query parameter both 'client' and 'all' is not defined but one of them should have been.");
    }
    for (const flow of ctx.store.find<Flow>('flow', { subject })) {
      if (!flow.consent || flow.revoked || (client && flow.clientId !== client)) continue;
      saveFlow(ctx, { ...flow, revoked: true });
      revokeGrant(ctx, flow.id);
    }
    sendEmpty(res, 204);
    return true;
  }
  if (path === '/admin/oauth2/auth/sessions/login' && req.method === 'DELETE') {
    const subject = query.get('subject');
    const sid = query.get('sid');
    if (!subject && !sid) throw oauthError('invalid_request', "Either 'subject' or 'sid' query parameters need to be defined.");
    if (sid) ctx.store.delete('login_session', sid);
    else for (const session of ctx.store.find<LoginSession>('login_session', { subject: subject! })) ctx.store.delete('login_session', session.id);
    sendEmpty(res, 204);
    return true;
  }
  if (path === '/admin/oauth2/tokens' && req.method === 'DELETE') {
    const clientId = query.get('client_id');
    if (!clientId) throw oauthError('invalid_request', "Query parameter 'client_id' is not defined but it should have been.");
    ctx.revokeClientTokens(clientId);
    sendEmpty(res, 204);
    return true;
  }
  return false;
}
