// Kratos's Claims (provider.go): the standard claims it reads from an ID token or the userinfo answer,
// with `email_verified` accepted as a boolean or the string Apple sends (x.ConvertibleBoolean), and the
// raw claims beside them; Claims.Validate; Apple's first-login `user` parameter; Microsoft's tenant check.
import { KratosError } from '../errors.ts';

export interface Claims {
  iss?: string;
  sub?: string;
  name?: string;
  given_name?: string;
  family_name?: string;
  last_name?: string;
  middle_name?: string;
  nickname?: string;
  preferred_username?: string;
  picture?: string;
  email?: string;
  email_verified?: boolean;
  locale?: string;
  hd?: string;
  nonce?: string;
  nonce_supported?: boolean;
  raw_claims?: Record<string, unknown>;
}

const STRING_CLAIMS = [
  'iss',
  'sub',
  'name',
  'given_name',
  'family_name',
  'last_name',
  'middle_name',
  'nickname',
  'preferred_username',
  'picture',
  'email',
  'locale',
  'hd',
  'nonce',
] as const;

/** ConvertibleBoolean: true, false, "true" or "false"; anything else fails to decode. */
function convertibleBoolean(v: unknown): boolean | undefined {
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  if (v === undefined || v === null) return undefined;
  throw new KratosError(400, { reason: `boolean unmarshal error: invalid input ${JSON.stringify(v)}` });
}

/** The Claims Kratos decodes from a claim set (empty values left out, as omitempty writes them). */
export function toClaims(raw: Record<string, unknown>, withRaw = true): Claims {
  const c: Claims = {};
  for (const k of STRING_CLAIMS) {
    const v = raw[k];
    if (typeof v === 'string' && v !== '') c[k] = v;
  }
  const verified = convertibleBoolean(raw.email_verified);
  if (verified) c.email_verified = true;
  if (raw.nonce_supported === true) c.nonce_supported = true;
  if (withRaw) c.raw_claims = raw;
  return c;
}

/** Claims.Validate: a subject and an issuer are required (internal errors in Kratos). */
export function validateClaims(c: Claims): KratosError | undefined {
  if (!c.sub) return new KratosError(500, { reason: 'provider did not return a subject' });
  if (!c.iss) return new KratosError(500, { reason: 'issuer not set in claims' });
  return undefined;
}

/** ProviderApple.DecodeQuery: the name Apple posts once, on the first sign-in (it cannot be verified). */
export function applyAppleUser(query: URLSearchParams, c: Claims): void {
  let user: { name?: { firstName?: unknown; lastName?: unknown } } | undefined;
  try {
    user = JSON.parse(query.get('user') ?? '') as typeof user;
  } catch {
    return;
  }
  const name = user?.name;
  if (!name || typeof name !== 'object') return;
  if (typeof name.firstName === 'string' && !c.given_name) c.given_name = name.firstName;
  if (typeof name.lastName === 'string') {
    if (!c.last_name) c.last_name = name.lastName;
    if (!c.family_name) c.family_name = name.lastName;
  }
}

const UUID_CANONICAL = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** gofrs/uuid FromString: canonical, braced, urn:uuid: or 32 hex digits; its error texts otherwise. */
export function uuidError(s: string): string | undefined {
  const inner = s.startsWith('urn:uuid:') ? s.slice(9) : s.startsWith('{') && s.endsWith('}') ? s.slice(1, -1) : s;
  if (UUID_CANONICAL.test(inner) || /^[0-9a-f]{32}$/i.test(inner)) return undefined;
  if (![32, 36, 38, 41].includes(s.length)) return `uuid: incorrect UUID length ${s.length} in string ${JSON.stringify(s)}`;
  return `uuid: incorrect UUID format in string ${JSON.stringify(s)}`;
}

/**
 * ProviderMicrosoft.Claims: the token's `tid` must be a UUID, and its issuer is the tenant's
 * `…/<tid>/v2.0` (at login.microsoftonline.com in Kratos; at issuer_url's origin and path prefix here).
 */
export function microsoftIssuerFor(configuredIssuer: string, tid: unknown): string {
  const t = typeof tid === 'string' ? tid : '';
  const bad = uuidError(t);
  if (bad) throw new KratosError(400, { reason: `TenantID claim is not a valid UUID: ${bad}` });
  const base = configuredIssuer ? configuredIssuer.replace(/\/[^/]+\/v2\.0\/?$/, '') : 'https://login.microsoftonline.com';
  return `${base}/${t}/v2.0`;
}
