// The claims mappers. Kratos runs the Jsonnet at each provider's `mapper_url`; the stand-in ignores that
// key and maps the claims itself, per provider type, into what such a Jsonnet returns: identity.traits
// and the verified_addresses Kratos then marks verified. The same mapping is what real Kratos is given
// for these providers (scripts/ory/kratos-config.ts), so both answer alike:
// - traits.email: the `email` claim;
// - traits.name: the `name` claim, or given and family name (Apple posts them once, as `user`), cut to
//   the schema's maxLength;
// - traits.loginService: GOOGLE, MICROSOFT, DROPBOX or APPLE from the provider id, when the schema
//   lists that value;
// - verified_addresses: the e-mail when the provider says it is verified (`email_verified` true, or
//   "true" as Apple sends it), or, for Entra ID, which sends no email_verified, when its optional claim
//   `xms_edov` (the e-mail's domain owner is verified) is true.
// Traits the schema does not have are left out.
import type { OidcProvider } from '../config.ts';
import type { IdentitySchema } from '../schema.ts';
import type { Claims } from './claims.ts';

export interface Mapped {
  traits: Record<string, unknown>;
  verifiedAddresses: { via: 'email'; value: string }[];
}

type Mapper = (claims: Claims) => { email?: string; name?: string; verified: boolean };

const standard: Mapper = (c) => ({
  email: c.email,
  name: c.name || [c.given_name, c.family_name].filter(Boolean).join(' ') || undefined,
  verified: c.email_verified === true || c.raw_claims?.xms_edov === true,
});

/** One mapper per provider type; they agree today, and each type's quirks belong in its own entry. */
const MAPPERS: Record<string, Mapper> = {
  google: standard,
  // Microsoft's ID token carries the e-mail when the `email` scope is granted; no email_verified, but xms_edov.
  microsoft: standard,
  // Apple's name comes only from the first sign-in's `user` post (given_name/family_name).
  apple: standard,
  // Dropbox and any other OpenID provider.
  generic: standard,
};

const LOGIN_SERVICES: Record<string, string> = { google: 'GOOGLE', microsoft: 'MICROSOFT', dropbox: 'DROPBOX', apple: 'APPLE' };

export function mapClaims(schema: IdentitySchema, p: OidcProvider, claims: Claims): Mapped {
  const m = (MAPPERS[p.provider ?? ''] ?? standard)(claims);
  const has = (name: string) => schema.props.find(([n]) => n === name)?.[1];
  const traits: Record<string, unknown> = {};
  if (m.email !== undefined && has('email')) traits.email = m.email;
  const nameProp = has('name');
  if (m.name && nameProp) traits.name = nameProp.maxLength ? [...m.name].slice(0, nameProp.maxLength).join('') : m.name;
  const service = LOGIN_SERVICES[p.id.toLowerCase()];
  const serviceProp = has('loginService');
  if (service && serviceProp && (!serviceProp.enum || serviceProp.enum.includes(service))) traits.loginService = service;
  const verifiedAddresses: Mapped['verifiedAddresses'] = m.verified && m.email ? [{ via: 'email', value: m.email.trim().toLowerCase() }] : [];
  return { traits, verifiedAddresses };
}

/**
 * Kratos's merge(): traits posted with the submit (kept in the continuity container) override the
 * mapper's, key by key, one level deep (mergo.WithOverride on the decoded maps).
 */
export function mergeTraits(fromProvider: Record<string, unknown>, posted: unknown): Record<string, unknown> {
  if (typeof posted !== 'object' || posted === null || Array.isArray(posted) || Object.keys(posted).length === 0) return fromProvider;
  const out = { ...fromProvider };
  for (const [k, v] of Object.entries(posted)) if (!isEmpty(v)) out[k] = v;
  return out;
}

/** mergo's isEmptyValue: Go's zero values never override. */
function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null || v === '' || v === false || v === 0) return true;
  if (Array.isArray(v)) return v.length === 0;
  return typeof v === 'object' && Object.keys(v).length === 0;
}
