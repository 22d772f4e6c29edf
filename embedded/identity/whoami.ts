// GET /sessions/whoami (§12.1), tokenizer (§12.3), the caller's own sessions and the JWKS.
import { errors } from './errors.ts';
import { isUuid, json, type Ctx, type Reply } from './http.ts';
import type { Service } from './service.ts';
import { currentSession, serializeSession, sessionCookieExpiry, setSessionCookie } from './sessions.ts';

export async function whoami(svc: Service, ctx: Ctx): Promise<Reply> {
  const cur = currentSession(svc, ctx);
  if (!cur) throw errors.unauthorized('No valid session credentials found in the request.');
  const template = ctx.query.get('tokenize_as');
  let tokenized: string | undefined;
  if (template) {
    tokenized = await svc.tokenizer.tokenize(template, {
      sub: cur.identity.id,
      sid: cur.session.id,
      email: cur.identity.traits.email,
      externalId: cur.identity.external_id,
    });
  }
  // Re-issue the cookie when it carries an older expiry than the session (after an admin extend).
  const cookieExp = sessionCookieExpiry(svc, ctx);
  if (cookieExp && cookieExp < cur.session.expires_at) {
    setSessionCookie(svc, ctx, cur.session);
  }
  return json(200, serializeSession(svc, cur.session, cur.identity, tokenized), { 'X-Kratos-Authenticated-Identity-Id': cur.identity.id });
}

export async function listMySessions(svc: Service, ctx: Ctx): Promise<Reply> {
  const cur = currentSession(svc, ctx);
  if (!cur) throw errors.unauthorized('No valid session credentials found in the request.');
  const others = svc.store
    .listSessions(cur.identity.id)
    .filter((s) => s.id !== cur.session.id && s.active && new Date(s.expires_at).getTime() > svc.clock.now());
  return json(
    200,
    others.map((s) => serializeSession(svc, s, cur.identity)),
  );
}

export async function disableMyOtherSessions(svc: Service, ctx: Ctx): Promise<Reply> {
  const cur = currentSession(svc, ctx);
  if (!cur) throw errors.unauthorized('No valid session credentials found in the request.');
  let count = 0;
  svc.store.tx(() => {
    for (const s of svc.store.listSessions(cur.identity.id)) {
      if (s.id === cur.session.id || !s.active) continue;
      s.active = false;
      svc.store.saveSession(s);
      count++;
    }
  });
  return json(200, { count });
}

export async function disableMySession(svc: Service, ctx: Ctx): Promise<Reply> {
  const cur = currentSession(svc, ctx);
  if (!cur) throw errors.unauthorized('No valid session credentials found in the request.');
  const id = ctx.params.id;
  if (!isUuid(id)) throw errors.badRequest('The session ID is not a valid UUID.');
  if (id === cur.session.id) throw errors.badRequest('You tried to revoke the current session. Please use the logout flow instead.');
  const s = svc.store.getSession(id);
  if (!s || s.identity_id !== cur.identity.id) throw errors.notFound();
  s.active = false;
  svc.store.saveSession(s);
  return { status: 204 };
}

export async function jwks(svc: Service): Promise<Reply> {
  return json(200, svc.tokenizer.jwks());
}
