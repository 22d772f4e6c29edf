// Admin API (contract §9.5): sessions of an identity and of everyone; disable and extend.
import { durationMs } from '../config.ts';
import { errors } from '../errors.ts';
import { isUuid, json, type Ctx, type Reply } from '../http.ts';
import type { Service } from '../service.ts';
import { serializeSession } from '../sessions.ts';
import { loadIdentity } from './request.ts';

export async function listIdentitySessions(svc: Service, ctx: Ctx): Promise<Reply> {
  const i = loadIdentity(svc, ctx.params.id);
  const active = ctx.query.get('active');
  let list = svc.store.listSessions(i.id);
  if (active === 'true') list = list.filter((s) => s.active);
  if (active === 'false') list = list.filter((s) => !s.active);
  // v1.3.1 eager-loads the session's identity row alone: no addresses, and schema_url is left empty.
  return json(
    200,
    list.map((s) => {
      const out = serializeSession(svc, s, i);
      const { verifiable_addresses: _v, recovery_addresses: _r, ...identity } = out.identity as Record<string, unknown>;
      return { ...out, identity: { ...identity, schema_url: '' } };
    }),
  );
}

export async function deleteIdentitySessions(svc: Service, ctx: Ctx): Promise<Reply> {
  const i = loadIdentity(svc, ctx.params.id);
  svc.store.deleteSessionsOf(i.id);
  return { status: 204 };
}

export async function listSessions(svc: Service, ctx: Ctx): Promise<Reply> {
  const expand = ctx.query.getAll('expand');
  return json(
    200,
    svc.store.listSessions().map((s) => serializeSession(svc, s, expand.includes('identity') ? svc.store.getIdentity(s.identity_id) : undefined)),
  );
}

function loadSession(svc: Service, id: string | undefined) {
  if (!isUuid(id)) throw errors.badRequest('The session ID is not a valid UUID.');
  const s = svc.store.getSession(id);
  if (!s) throw errors.notFound();
  return s;
}

export async function getSession(svc: Service, ctx: Ctx): Promise<Reply> {
  const s = loadSession(svc, ctx.params.id);
  return json(200, serializeSession(svc, s, svc.store.getIdentity(s.identity_id)));
}

export async function disableSession(svc: Service, ctx: Ctx): Promise<Reply> {
  const s = loadSession(svc, ctx.params.id);
  s.active = false;
  svc.store.saveSession(s);
  return { status: 204 };
}

export async function extendSession(svc: Service, ctx: Ctx): Promise<Reply> {
  const s = loadSession(svc, ctx.params.id);
  s.expires_at = new Date(svc.clock.now() + durationMs(svc.config.session.lifespan, 24 * 3600_000)).toISOString();
  svc.store.saveSession(s);
  return json(200, serializeSession(svc, s, svc.store.getIdentity(s.identity_id)));
}
