// Admin API (contract §2.2): identities: list, get, create, update (PUT), delete, credentials.
// PATCH (JSON Patch) is in identity-patch.ts.
import { hashPassword } from '../password.ts';
import { errors, KratosError } from '../errors.ts';
import { isUuid, json, type Ctx, type Reply } from '../http.ts';
import { adminIdentity, hasPassword, newIdentity, setPasswordCredential, syncAddresses } from '../identities.ts';
import { coerceTraits, normalizeEmail, normalizeTraits, validateTraits } from '../schema.ts';
import { nowIso, type Service } from '../service.ts';
import type { StoredIdentity } from '../store.ts';
import { includeList, loadIdentity, objectBody } from './request.ts';

/** The members a create or update body may have (Kratos refuses others). */
const CREATE_KEYS = [
  'schema_id',
  'traits',
  'state',
  'metadata_public',
  'metadata_admin',
  'verifiable_addresses',
  'recovery_addresses',
  'external_id',
  'organization_id',
  'credentials',
];

/** Create and update answer with the identity as the body made it: metadata_admin only when the body had it. */
function withoutUnsetMetadataAdmin(identity: Record<string, unknown>, body: Record<string, unknown>): Record<string, unknown> {
  if (!('metadata_admin' in body)) delete identity.metadata_admin;
  return identity;
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
export async function applyBody(svc: Service, i: StoredIdentity, body: Record<string, unknown>, creating: boolean): Promise<void> {
  if (body.schema_id !== undefined && body.schema_id !== svc.schema.id) {
    throw errors.badRequest(`The requested identity schema "${String(body.schema_id)}" does not exist.`);
  }
  if (body.state !== undefined && body.state !== 'active' && body.state !== 'inactive') {
    throw errors.badRequest('The identity state must be "active" or "inactive".');
  }
  const newState = (body.state as 'active' | 'inactive' | undefined) ?? 'active';
  if (newState !== i.state) i.state_changed_at = nowIso(svc);
  i.state = newState;
  if (typeof body.traits !== 'object' || body.traits === null || Array.isArray(body.traits))
    throw errors.badRequest('The identity traits must be a JSON object.');
  const traits = coerceTraits(svc.schema, body.traits);
  traitError(svc, traits);
  i.traits = normalizeTraits(svc.schema, traits);
  if (creating || 'metadata_public' in body) i.metadata_public = body.metadata_public ?? null;
  if (creating || 'metadata_admin' in body) i.metadata_admin = body.metadata_admin ?? null;
  if (typeof body.external_id === 'string') i.external_id = body.external_id;
  /** The admin API's `credentials` as Kratos accepts them: each part is read defensively below. */
  const creds = body.credentials as { password?: { config?: unknown }; oidc?: { config?: { providers?: unknown } } } | undefined;
  if (creds?.password?.config) {
    const c = creds.password.config as { password?: unknown; hashed_password?: unknown };
    if (typeof c.password === 'string' && c.password) setPasswordCredential(svc, i, await hashPassword(c.password, svc.config.hashers.argon2));
    else if (typeof c.hashed_password === 'string' && c.hashed_password) setPasswordCredential(svc, i, c.hashed_password);
  }
  const providers = creds?.oidc?.config?.providers;
  if (Array.isArray(providers)) {
    const ps = (providers as { provider?: unknown; subject?: unknown }[])
      .filter((p) => typeof p.provider === 'string' && typeof p.subject === 'string')
      .map((p) => ({
        subject: p.subject as string,
        provider: p.provider as string,
        initial_id_token: '',
        initial_access_token: '',
        initial_refresh_token: '',
      }));
    const now = nowIso(svc);
    i.credentials.oidc = {
      type: 'oidc',
      identifiers: ps.map((p) => `${p.provider}:${p.subject}`),
      config: { providers: ps },
      version: 0,
      created_at: i.credentials.oidc?.created_at ?? now,
      updated_at: now,
    };
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
    list = ids
      .filter(isUuid)
      .map((id) => svc.store.getIdentity(id))
      .filter((i): i is StoredIdentity => Boolean(i));
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
  // v1.3.1 loads credentials only for an identifier search or include_credential; otherwise the
  // listed identities have no `credentials` member.
  const withCredentials = q.has('credentials_identifier') || q.has('preview_credentials_identifier_similar') || include.length > 0;
  const headers: Record<string, string> = {};
  const base = `${svc.adminUrl}/admin/identities?page_size=${pageSize}`;
  let link = `<${base}&page_token=${list[0]?.id ?? ''}>; rel="first"`;
  const next = list[start + pageSize];
  if (next) link += `,<${base}&page_token=${next.id}>; rel="next"`;
  headers.Link = link;
  return json(
    200,
    page.map((i) => {
      const out = adminIdentity(svc, i, include);
      if (!withCredentials) delete out.credentials;
      return out;
    }),
    headers,
  );
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
  // v1.3.1's strict decoder error: the text is the herodot message, with no reason.
  if (unknown.length) throw new KratosError(400, { message: `json: unknown field "${unknown[0]}"` });
  if (typeof body.schema_id !== 'string' || !body.schema_id) throw errors.badRequest('The property schema_id is required.');
  const i = newIdentity(svc, {});
  await applyBody(svc, i, body, true);
  if (!svc.store.saveIdentity(i)) throw errors.conflict('This identity conflicts with another identity that already exists.');
  // v1.3.1: Location is SelfAdminURL + identities/<id> (no /admin), and the answer's identity is the
  // one built from the body, whose metadata_admin (omitempty) is absent unless the body gave one.
  return json(201, withoutUnsetMetadataAdmin(adminIdentity(svc, i), body), { Location: `${svc.adminUrl}/identities/${i.id}` });
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
  return json(200, withoutUnsetMetadataAdmin(adminIdentity(svc, i), body));
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
  // The identifiers-only password credential every identity has (identities.ts) is not one to remove.
  if (!cred || (type === 'password' && !hasPassword(i))) throw errors.notFound();
  const firstFactors = (hasPassword(i) ? 1 : 0) + ['oidc', 'saml'].filter((t) => i.credentials[t]).length;
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
