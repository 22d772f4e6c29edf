// Identities: creation from traits, address bookkeeping and the public/admin JSON shapes (§12.2).
import { randomUUID } from 'node:crypto';
import { nowIso, type Service } from './service.ts';
import type { Credential, StoredIdentity } from './store.ts';
import { normalizeEmail, passwordIdentifierTraits, recoveryTraits, verificationTraits } from './schema.ts';

export function newIdentity(svc: Service, traits: Record<string, unknown>): StoredIdentity {
  const now = nowIso(svc);
  const i: StoredIdentity = {
    id: randomUUID(),
    schema_id: svc.schema.id,
    state: 'active',
    state_changed_at: now,
    traits,
    verifiable_addresses: [],
    recovery_addresses: [],
    metadata_public: null,
    metadata_admin: null,
    credentials: {},
    created_at: now,
    updated_at: now,
  };
  syncAddresses(svc, i);
  return i;
}

/** Recomputes verifiable/recovery addresses and password identifiers from the traits. */
export function syncAddresses(svc: Service, i: StoredIdentity): void {
  const now = nowIso(svc);
  const values = (names: string[]) => [
    ...new Set(
      names
        .map((n) => i.traits[n])
        .filter((v): v is string => typeof v === 'string' && v !== '')
        .map(normalizeEmail),
    ),
  ];
  const ver = values(verificationTraits(svc.schema));
  i.verifiable_addresses = ver.map(
    (value) =>
      i.verifiable_addresses.find((a) => a.value === value) ?? {
        id: randomUUID(),
        value,
        verified: false,
        via: 'email',
        status: 'pending',
        created_at: now,
        updated_at: now,
      },
  );
  const rec = values(recoveryTraits(svc.schema));
  i.recovery_addresses = rec.map(
    (value) =>
      i.recovery_addresses.find((a) => a.value === value) ?? {
        id: randomUUID(),
        value,
        via: 'email',
        created_at: now,
        updated_at: now,
      },
  );
  // Kratos's credentials schema extension: every identity gets a `password` credential holding its
  // identifiers, with an empty config until a password is set (a social sign-up has one too), so an
  // identifier is unique whichever way the identity signs in.
  const identifiers = values(passwordIdentifierTraits(svc.schema));
  const pw = i.credentials.password;
  if (pw) pw.identifiers = identifiers;
  else if (identifiers.length) i.credentials.password = { type: 'password', identifiers, config: {}, version: 0, created_at: now, updated_at: now };
}

/** Whether the identity has a password to sign in with (not only the identifiers' empty credential). */
export function hasPassword(i: StoredIdentity): boolean {
  const pw = i.credentials.password;
  return Boolean(pw && pw.identifiers.join('') !== '' && typeof pw.config.hashed_password === 'string' && pw.config.hashed_password !== '');
}

/**
 * CountActiveFirstFactorCredentials of the password and oidc strategies: a password that is set, and
 * each linked provider whose `<provider>:<subject>` identifier is present.
 */
export function countFirstFactors(i: StoredIdentity): number {
  const oidc = i.credentials.oidc;
  const providers = (oidc?.config.providers ?? []) as { provider?: string; subject?: string }[];
  const linked = providers.filter(
    (p) => (p.provider ?? '').length > 1 && (p.subject ?? '').length > 1 && oidc!.identifiers.includes(`${p.provider}:${p.subject}`),
  ).length;
  return (hasPassword(i) ? 1 : 0) + linked;
}

export function setPasswordCredential(svc: Service, i: StoredIdentity, hashed: string): void {
  const now = nowIso(svc);
  const existing = i.credentials.password;
  const cred: Credential = {
    type: 'password',
    identifiers: [],
    config: { hashed_password: hashed },
    version: 0,
    created_at: existing?.created_at ?? now,
    updated_at: now,
  };
  i.credentials.password = cred;
  syncAddresses(svc, i);
}

export function passwordIdentifier(svc: Service, traits: Record<string, unknown>): string {
  for (const n of passwordIdentifierTraits(svc.schema)) {
    const v = traits[n];
    if (typeof v === 'string' && v) return normalizeEmail(v);
  }
  return '';
}

export function schemaUrl(svc: Service, schemaId: string): string {
  return `${svc.publicUrl}/schemas/${Buffer.from(schemaId).toString('base64url')}`;
}

export function publicIdentity(svc: Service, i: StoredIdentity): Record<string, unknown> {
  const o: Record<string, unknown> = { id: i.id };
  if (i.external_id) o.external_id = i.external_id;
  o.schema_id = i.schema_id;
  o.schema_url = schemaUrl(svc, i.schema_id);
  o.state = i.state;
  if (i.state_changed_at) o.state_changed_at = i.state_changed_at;
  o.traits = i.traits;
  if (i.verifiable_addresses.length) {
    o.verifiable_addresses = i.verifiable_addresses.map((a) => {
      const v: Record<string, unknown> = { id: a.id, value: a.value, verified: a.verified, via: a.via, status: a.status };
      if (a.verified_at) v.verified_at = a.verified_at;
      v.created_at = a.created_at;
      v.updated_at = a.updated_at;
      return v;
    });
  }
  if (i.recovery_addresses.length) o.recovery_addresses = i.recovery_addresses;
  o.metadata_public = i.metadata_public ?? null;
  o.created_at = i.created_at;
  o.updated_at = i.updated_at;
  o.organization_id = null;
  return o;
}

/**
 * Identity.WithDeclassifiedCredentials for oidc: each provider entry rewritten with its tokens (decrypted
 * there; kept readable here), subject, provider and organization ("" when none), in that order.
 */
function declassifiedOidc(config: Record<string, unknown>): Record<string, unknown> {
  // gjson's ForEach visits a value that is not an array once: `providers: null` (what unlinking the
  // last provider leaves) comes out as one entry of empty strings.
  const providers = (Array.isArray(config.providers) ? config.providers : [{}]) as Record<string, unknown>[];
  return {
    providers: providers.map((p) => ({
      initial_id_token: p.initial_id_token ?? '',
      initial_access_token: p.initial_access_token ?? '',
      initial_refresh_token: p.initial_refresh_token ?? '',
      subject: p.subject ?? '',
      provider: p.provider ?? '',
      organization: p.organization ?? '',
    })),
  };
}

export function adminIdentity(svc: Service, i: StoredIdentity, include: string[] = []): Record<string, unknown> {
  const pub = publicIdentity(svc, i);
  const credentials: Record<string, unknown> = {};
  for (const [type, c] of Object.entries(i.credentials)) {
    const out: Record<string, unknown> = { type: c.type, identifiers: c.identifiers };
    if (include.includes(type)) out.config = type === 'oidc' ? declassifiedOidc(c.config) : c.config;
    out.version = c.version;
    out.created_at = c.created_at;
    out.updated_at = c.updated_at;
    credentials[type] = out;
  }
  const o: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(pub)) {
    if (k === 'traits') {
      o.credentials = credentials;
    }
    o[k] = v;
    if (k === 'metadata_public') o.metadata_admin = i.metadata_admin ?? null;
  }
  return o;
}
