// Admin API (contract §2.2, §9.5, §16): identities, sessions, recovery links/codes, courier, mailbox.
import { durationMs, parseDuration } from './config.ts';
import { errors, KratosError } from './errors.ts';
import { isUuid, json, readJsonAny, type Ctx, type Reply } from './http.ts';
import { flowUiUrl, isReturnToAllowed } from './flows.ts';
import { adminIdentity, newIdentity, setPasswordCredential, syncAddresses } from './identities.ts';
import { hashPassword } from './password.ts';
import { adminRecovery } from './recovery.ts';
import { coerceTraits, normalizeEmail, normalizeTraits, validateTraits } from './schema.ts';
import { nowIso, type Service } from './service.ts';
import { serializeSession } from './sessions.ts';
import type { CourierMessage, StoredIdentity } from './store.ts';

const CREATE_KEYS = ['schema_id', 'traits', 'state', 'metadata_public', 'metadata_admin', 'verifiable_addresses', 'recovery_addresses', 'external_id', 'organization_id', 'credentials'];

function includeList(ctx: Ctx): string[] {
  return ctx.query.getAll('include_credential').flatMap((v) => v.split(',')).filter(Boolean);
}

function loadIdentity(svc: Service, id: string | undefined): StoredIdentity {
  if (!isUuid(id)) throw errors.notFound();
  const i = svc.store.getIdentity(id);
  if (!i) throw errors.notFound();
  return i;
}

async function objectBody(ctx: Ctx): Promise<Record<string, unknown>> {
  const ct = (ctx.req.headers['content-type'] ?? '').toLowerCase().split(';')[0]!.trim();
  if (ct && ct !== 'application/json') {
    throw new KratosError(415, { reason: `Unable to decode body because HTTP Request Content-Type "${ct}" is not supported.` });
  }
  return ctx.body();
}

function traitError(svc: Service, traits: Record<string, unknown>): void {
  const e = validateTraits(svc.schema, traits);
  if (!e) return;
  const texts = [...Object.entries(e.fields).flatMap(([k, ms]) => ms.map((m) => `${k}: ${m.text}`)), ...e.general.map((m) => m.text)];
  throw errors.badRequest(`The request was malformed or contained invalid parameters: ${texts.join('; ')}`, {
    message: 'The request was malformed or contained invalid parameters',
  });
}

/** Applies the admin-supplied parts shared by create and update. */
async function applyBody(svc: Service, i: StoredIdentity, body: Record<string, unknown>, creating: boolean): Promise<void> {
  if (body.schema_id !== undefined && body.schema_id !== svc.schema.id) {
    throw errors.badRequest(`The requested identity schema "${String(body.schema_id)}" does not exist.`);
  }
  if (body.state !== undefined && body.state !== 'active' && body.state !== 'inactive') {
    throw errors.badRequest('The identity state must be "active" or "inactive".');
  }
  const newState = (body.state as 'active' | 'inactive' | undefined) ?? 'active';
  if (newState !== i.state) i.state_changed_at = nowIso(svc);
  i.state = newState;
  if (typeof body.traits !== 'object' || body.traits === null || Array.isArray(body.traits)) throw errors.badRequest('The identity traits must be a JSON object.');
  const traits = coerceTraits(svc.schema, body.traits);
  traitError(svc, traits);
  i.traits = normalizeTraits(svc.schema, traits);
  if (creating || 'metadata_public' in body) i.metadata_public = body.metadata_public ?? null;
  if (creating || 'metadata_admin' in body) i.metadata_admin = body.metadata_admin ?? null;
  if (typeof body.external_id === 'string') i.external_id = body.external_id;
  const creds = body.credentials as Record<string, any> | undefined;
  if (creds?.password?.config) {
    const c = creds.password.config as { password?: unknown; hashed_password?: unknown };
    if (typeof c.password === 'string' && c.password) setPasswordCredential(svc, i, await hashPassword(c.password, svc.config.hashers.argon2));
    else if (typeof c.hashed_password === 'string' && c.hashed_password) setPasswordCredential(svc, i, c.hashed_password);
  }
  if (Array.isArray(creds?.oidc?.config?.providers)) {
    const ps = (creds.oidc.config.providers as { provider?: unknown; subject?: unknown }[])
      .filter((p) => typeof p.provider === 'string' && typeof p.subject === 'string')
      .map((p) => ({ subject: p.subject as string, provider: p.provider as string, initial_id_token: '', initial_access_token: '', initial_refresh_token: '' }));
    const now = nowIso(svc);
    i.credentials.oidc = { type: 'oidc', identifiers: ps.map((p) => `${p.provider}:${p.subject}`), config: { providers: ps }, version: 0, created_at: i.credentials.oidc?.created_at ?? now, updated_at: now };
  }
  syncAddresses(svc, i);
  if (Array.isArray(body.verifiable_addresses)) {
    for (const va of body.verifiable_addresses as { value?: unknown; verified?: unknown; status?: unknown }[]) {
      if (typeof va?.value !== 'string') continue;
      const a = i.verifiable_addresses.find((x) => x.value === normalizeEmail(va.value as string));
      if (!a) continue;
      if (va.verified === true) {
        a.verified = true;
        a.status = 'completed';
        a.verified_at ??= nowIso(svc);
      } else if (typeof va.status === 'string' && ['pending', 'sent', 'completed'].includes(va.status)) {
        a.status = va.status as 'pending';
      }
    }
  }
}

export async function listIdentities(svc: Service, ctx: Ctx): Promise<Reply> {
  const q = ctx.query;
  const filters = ['credentials_identifier', 'preview_credentials_identifier_similar', 'ids', 'organization_id'].filter((k) => q.has(k));
  if (filters.length > 1) throw errors.badRequest('You cannot combine multiple filters in this API');
  let list: StoredIdentity[];
  if (q.has('credentials_identifier')) {
    const ident = q.get('credentials_identifier')!.trim();
    const found = svc.store.findIdentityByAnyIdentifier(normalizeEmail(ident)) ?? svc.store.findIdentityByAnyIdentifier(ident);
    list = found ? [found] : [];
  } else if (q.has('preview_credentials_identifier_similar')) {
    const needle = q.get('preview_credentials_identifier_similar')!.toLowerCase();
    list = svc.store.listIdentities().filter((i) => Object.values(i.credentials).some((c) => c.identifiers.some((x) => x.includes(needle))));
  } else if (q.has('ids')) {
    const ids = q.getAll('ids');
    if (ids.length > 500) throw errors.badRequest('The ids filter accepts at most 500 ids.');
    list = ids.filter(isUuid).map((id) => svc.store.getIdentity(id)).filter((i): i is StoredIdentity => Boolean(i));
  } else if (q.has('organization_id')) {
    list = [];
  } else {
    list = svc.store.listIdentities();
  }
  const pageSize = Math.min(Math.max(Number(q.get('page_size') ?? q.get('per_page') ?? 250) || 250, 1), 1000);
  let start = 0;
  const token = q.get('page_token');
  if (token) {
    const idx = list.findIndex((i) => i.id === token);
    start = idx >= 0 ? idx : list.length;
  } else if (q.has('page')) {
    start = Math.max(Number(q.get('page')) || 0, 0) * pageSize;
  }
  const page = list.slice(start, start + pageSize);
  const include = includeList(ctx);
  const headers: Record<string, string> = {};
  const base = `${svc.adminUrl}/admin/identities?page_size=${pageSize}`;
  let link = `<${base}&page_token=${list[0]?.id ?? ''}>; rel="first"`;
  const next = list[start + pageSize];
  if (next) link += `,<${base}&page_token=${next.id}>; rel="next"`;
  headers.Link = link;
  return json(200, page.map((i) => adminIdentity(svc, i, include)), headers);
}

export async function getIdentity(svc: Service, ctx: Ctx): Promise<Reply> {
  return json(200, adminIdentity(svc, loadIdentity(svc, ctx.params.id), includeList(ctx)));
}

export async function getIdentityByExternalId(svc: Service, ctx: Ctx): Promise<Reply> {
  const i = svc.store.findIdentityByExternalId(ctx.params.externalID ?? '');
  if (!i) throw errors.notFound();
  return json(200, adminIdentity(svc, i, includeList(ctx)));
}

export async function createIdentity(svc: Service, ctx: Ctx): Promise<Reply> {
  const body = await objectBody(ctx);
  const unknown = Object.keys(body).filter((k) => !CREATE_KEYS.includes(k));
  if (unknown.length) throw errors.badRequest(`json: unknown field "${unknown[0]}"`);
  if (typeof body.schema_id !== 'string' || !body.schema_id) throw errors.badRequest('The property schema_id is required.');
  const i = newIdentity(svc, {});
  await applyBody(svc, i, body, true);
  if (!svc.store.saveIdentity(i)) throw errors.conflict('This identity conflicts with another identity that already exists.');
  return json(201, adminIdentity(svc, i), { Location: `${svc.adminUrl}/admin/identities/${i.id}` });
}

export async function updateIdentity(svc: Service, ctx: Ctx): Promise<Reply> {
  const i = loadIdentity(svc, ctx.params.id);
  const body = await objectBody(ctx);
  const unknown = Object.keys(body).filter((k) => !CREATE_KEYS.includes(k));
  if (unknown.length) throw errors.badRequest(`json: unknown field "${unknown[0]}"`);
  await applyBody(svc, i, body, false);
  if (!('metadata_public' in body)) i.metadata_public = null;
  if (!('metadata_admin' in body)) i.metadata_admin = null;
  i.updated_at = nowIso(svc);
  if (!svc.store.saveIdentity(i)) throw errors.conflict('This identity conflicts with another identity that already exists.');
  return json(200, adminIdentity(svc, i));
}

function pointer(path: unknown): string[] {
  if (typeof path !== 'string' || (path !== '' && !path.startsWith('/'))) throw errors.badRequest(`Invalid JSON pointer "${String(path)}".`);
  return path === '' ? [] : path.slice(1).split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function getAt(doc: any, parts: string[]): any {
  let cur = doc;
  for (const p of parts) {
    if (cur === null || typeof cur !== 'object' || !(p in cur)) return undefined;
    cur = cur[p];
  }
  return cur;
}

function applyPatch(doc: Record<string, any>, ops: unknown): void {
  if (!Array.isArray(ops)) throw errors.badRequest('The JSON patch must be an array of operations.');
  for (const op of ops as Record<string, unknown>[]) {
    if (typeof op !== 'object' || op === null) throw errors.badRequest('Invalid JSON patch operation.');
    const parts = pointer(op.path);
    if (parts.some((p) => p === '__proto__' || p === 'constructor' || p === 'prototype')) throw errors.badRequest('Invalid JSON pointer.');
    if (parts[0] === 'id' || (parts[0] === 'credentials' && (parts[1] === 'oidc' || parts[1] === 'saml'))) {
      throw errors.badRequest(`patch includes denied path: ${String(op.path)}`);
    }
    const parentParts = parts.slice(0, -1);
    const key = parts[parts.length - 1];
    const parent = getAt(doc, parentParts);
    const setVal = (v: unknown) => {
      if (key === undefined) throw errors.badRequest('Cannot replace the whole document.');
      if (parent === null || typeof parent !== 'object') throw errors.badRequest(`The path "${String(op.path)}" does not exist.`);
      if (Array.isArray(parent)) {
        const idx = key === '-' ? parent.length : Number(key);
        if (!Number.isInteger(idx) || idx < 0 || idx > parent.length) throw errors.badRequest(`Invalid array index in "${String(op.path)}".`);
        if (op.op === 'add') parent.splice(idx, 0, v); else parent[idx] = v;
      } else {
        parent[key] = v;
      }
    };
    switch (op.op) {
      case 'add':
        setVal(op.value);
        break;
      case 'replace':
        if (getAt(doc, parts) === undefined && !(key !== undefined && parent && typeof parent === 'object' && key in parent)) throw errors.badRequest(`The path "${String(op.path)}" does not exist.`);
        setVal(op.value);
        break;
      case 'remove':
        if (key === undefined || parent === null || typeof parent !== 'object' || !(key in parent)) throw errors.badRequest(`The path "${String(op.path)}" does not exist.`);
        if (Array.isArray(parent)) parent.splice(Number(key), 1); else delete parent[key];
        break;
      case 'test':
        if (JSON.stringify(getAt(doc, parts)) !== JSON.stringify(op.value)) throw errors.badRequest(`The test operation on "${String(op.path)}" failed.`);
        break;
      case 'copy':
      case 'move': {
        const from = pointer(op.from);
        const v = getAt(doc, from);
        if (v === undefined) throw errors.badRequest(`The path "${String(op.from)}" does not exist.`);
        if (op.op === 'move') {
          const fp = getAt(doc, from.slice(0, -1));
          delete fp[from[from.length - 1]!];
        }
        setVal(structuredClone(v));
        break;
      }
      default:
        throw errors.badRequest(`Unsupported JSON patch operation "${String(op.op)}".`);
    }
  }
}

export async function patchIdentity(svc: Service, ctx: Ctx): Promise<Reply> {
  const i = loadIdentity(svc, ctx.params.id);
  const ops = await readJsonAny(ctx.req);
  const doc: Record<string, any> = {
    schema_id: i.schema_id, state: i.state, traits: structuredClone(i.traits), metadata_public: i.metadata_public ?? null,
    metadata_admin: i.metadata_admin ?? null, external_id: i.external_id,
    verifiable_addresses: structuredClone(i.verifiable_addresses), recovery_addresses: structuredClone(i.recovery_addresses),
  };
  applyPatch(doc, ops);
  const body: Record<string, unknown> = { ...doc };
  if (body.external_id === undefined) delete body.external_id;
  await applyBody(svc, i, body, false);
  i.updated_at = nowIso(svc);
  if (!svc.store.saveIdentity(i)) throw errors.conflict('This identity conflicts with another identity that already exists.');
  return json(200, adminIdentity(svc, i));
}

export async function deleteIdentity(svc: Service, ctx: Ctx): Promise<Reply> {
  const i = loadIdentity(svc, ctx.params.id);
  svc.store.deleteIdentity(i.id);
  return { status: 204 };
}

export async function deleteCredentials(svc: Service, ctx: Ctx): Promise<Reply> {
  const i = loadIdentity(svc, ctx.params.id);
  const type = ctx.params.type ?? '';
  const known = ['password', 'oidc', 'saml', 'totp', 'lookup_secret', 'webauthn', 'passkey', 'code'];
  if (!known.includes(type)) throw errors.badRequest(`Unsupported credential type "${type}".`);
  if (type === 'code') throw errors.badRequest('You cannot remove the code credential directly.');
  const cred = i.credentials[type];
  if (!cred) throw errors.notFound();
  const firstFactors = ['password', 'oidc', 'saml'].filter((t) => i.credentials[t]).length;
  const nOidc = i.credentials.oidc?.identifiers.length ?? 0;
  if (type === 'oidc' || type === 'saml') {
    const identifier = ctx.query.get('identifier');
    if (!identifier) throw errors.badRequest('The identifier query parameter is required for this credential type.');
    if (!cred.identifiers.includes(identifier)) throw errors.notFound();
    if (firstFactors === 1 && nOidc <= 1) throw errors.badRequest('You cannot remove the last first factor credential.');
    const ps = ((cred.config.providers ?? []) as { provider: string; subject: string }[]).filter((p) => `${p.provider}:${p.subject}` !== identifier);
    cred.config.providers = ps;
    cred.identifiers = cred.identifiers.filter((x) => x !== identifier);
    if (cred.identifiers.length === 0) delete i.credentials[type];
  } else {
    if (type === 'password' && firstFactors === 1) throw errors.badRequest('You cannot remove the last first factor credential.');
    delete i.credentials[type];
  }
  i.updated_at = nowIso(svc);
  svc.store.saveIdentity(i);
  return { status: 204 };
}

export async function listIdentitySessions(svc: Service, ctx: Ctx): Promise<Reply> {
  const i = loadIdentity(svc, ctx.params.id);
  const active = ctx.query.get('active');
  let list = svc.store.listSessions(i.id);
  if (active === 'true') list = list.filter((s) => s.active);
  if (active === 'false') list = list.filter((s) => !s.active);
  return json(200, list.map((s) => serializeSession(svc, s, i)));
}

export async function deleteIdentitySessions(svc: Service, ctx: Ctx): Promise<Reply> {
  const i = loadIdentity(svc, ctx.params.id);
  svc.store.deleteSessionsOf(i.id);
  return { status: 204 };
}

export async function listSessions(svc: Service, ctx: Ctx): Promise<Reply> {
  const expand = ctx.query.getAll('expand');
  return json(200, svc.store.listSessions().map((s) => serializeSession(svc, s, expand.includes('identity') ? svc.store.getIdentity(s.identity_id) : undefined)));
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

async function recoveryBody(svc: Service, ctx: Ctx): Promise<{ identity: StoredIdentity | undefined; expiresIn: number; body: Record<string, unknown> }> {
  const body = await objectBody(ctx);
  if (!isUuid(body.identity_id)) throw errors.badRequest('The identity_id must be a UUID.');
  let expiresIn = durationMs(svc.config.selfservice.methods.code.config.lifespan, 3600_000);
  if (body.expires_in !== undefined) {
    const d = parseDuration(String(body.expires_in));
    if (!Number.isFinite(d) || d <= 0) throw errors.badRequest(`Unable to parse "expires_in" duration: ${String(body.expires_in)}`);
    expiresIn = d;
  }
  return { identity: svc.store.getIdentity(body.identity_id), expiresIn, body };
}

export async function createRecoveryLink(svc: Service, ctx: Ctx): Promise<Reply> {
  const rt = ctx.query.get('return_to') ?? undefined;
  if (rt && !isReturnToAllowed(svc, rt)) throw errors.returnToForbidden(rt);
  const { identity, expiresIn } = await recoveryBody(svc, ctx);
  if (!identity) throw errors.badRequest('The requested identity id does not exist.');
  const { flow, secret, expiresAt } = adminRecovery(svc, ctx, identity, 'link', expiresIn, rt);
  return json(200, { recovery_link: `${svc.publicUrl}/self-service/recovery?flow=${flow.id}&token=${secret}`, expires_at: expiresAt });
}

export async function createRecoveryCode(svc: Service, ctx: Ctx): Promise<Reply> {
  const rt = ctx.query.get('return_to') ?? undefined;
  if (rt && !isReturnToAllowed(svc, rt)) throw errors.returnToForbidden(rt);
  const { identity, expiresIn, body } = await recoveryBody(svc, ctx);
  if (!identity) throw errors.notFound();
  if (body.flow_type !== undefined && body.flow_type !== 'browser' && body.flow_type !== 'api') throw errors.badRequest('flow_type must be "browser" or "api".');
  const { flow, secret, expiresAt } = adminRecovery(svc, ctx, identity, 'code', expiresIn, rt);
  return json(201, { recovery_link: flowUiUrl(svc, 'recovery', flow.id), recovery_code: secret, expires_at: expiresAt });
}

export async function listCourierMessages(svc: Service, ctx: Ctx): Promise<Reply> {
  const status = ctx.query.get('status');
  if (status && !['queued', 'processing', 'sent', 'abandoned'].includes(status)) throw errors.badRequest(`Invalid courier message status "${status}".`);
  let list = svc.store.listMessages(ctx.query.get('recipient') ?? undefined);
  if (status) list = list.filter((m) => m.status === status);
  const pageSize = Math.min(Math.max(Number(ctx.query.get('page_size') ?? 250) || 250, 1), 1000);
  const token = ctx.query.get('page_token');
  let start = 0;
  if (token) {
    const idx = list.findIndex((m) => m.id === token);
    start = idx >= 0 ? idx : list.length;
  }
  const headers: Record<string, string> = {};
  const next = list[start + pageSize];
  if (next) headers.Link = `<${svc.adminUrl}/admin/courier/messages?page_size=${pageSize}&page_token=${next.id}>; rel="next"`;
  return json(200, list.slice(start, start + pageSize), headers);
}

export async function getCourierMessage(svc: Service, ctx: Ctx): Promise<Reply> {
  if (!isUuid(ctx.params.id)) throw errors.badRequest('The message ID is not a valid UUID.');
  const m = svc.store.getMessage(ctx.params.id);
  if (!m) throw errors.notFound();
  return json(200, m);
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const linkify = (s: string) => esc(s).replace(/(https?:\/\/[^\s<]+)/g, '<a href="$1">$1</a>');

/** GET /mailbox: every stored e-mail, newest first, for people trying the product locally. */
export async function mailbox(svc: Service, ctx: Ctx): Promise<Reply> {
  const to = ctx.query.get('to') ?? undefined;
  const list: CourierMessage[] = svc.store.listMessages(to).slice(0, 200);
  const items = list.map((m) => `<article><header><strong>${esc(m.subject)}</strong><br><small>to ${esc(m.recipient)} · ${esc(m.created_at)} · ${esc(m.template_type)} · ${esc(m.status)}</small></header><pre>${linkify(m.body)}</pre></article>`).join('\n');
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Mailbox · identity stand-in</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#222}article{border:1px solid #ddd;border-radius:8px;padding:1rem;margin:1rem 0}pre{white-space:pre-wrap;background:#f7f7f7;padding:.75rem;border-radius:6px}form{margin:1rem 0}</style></head>
<body><h1>Mailbox</h1><p>E-mails sent by the development identity service (not a production mail system).</p>
<form method="get"><input type="hidden" name="key" value="${esc(ctx.query.get('key') ?? '')}"><label>Recipient <input name="to" value="${esc(to ?? '')}"></label> <button>Filter</button></form>
${items || '<p>No messages yet.</p>'}</body></html>`;
  return { status: 200, html };
}
