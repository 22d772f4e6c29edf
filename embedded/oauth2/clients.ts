// OAuth2 clients as Hydra v2.3.0 stores and shows them (the admin API is in clients-admin.ts), and the checks the
// authorize and token endpoints make against them (redirect URIs with RFC 8252 loopback ports, secrets).
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { HydraError } from './errors.ts';

export type Client = {
  client_id: string;
  client_name: string;
  client_secret?: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  scope: string;
  audience: string[];
  owner: string;
  policy_uri: string;
  allowed_cors_origins: string[];
  tos_uri: string;
  client_uri: string;
  logo_uri: string;
  contacts: string[];
  client_secret_expires_at: number;
  subject_type: string;
  jwks: object;
  token_endpoint_auth_method: string;
  userinfo_signed_response_alg: string;
  created_at: string;
  updated_at: string;
  post_logout_redirect_uris?: string[];
  metadata: object;
  skip_consent: boolean;
  skip_logout_consent: boolean | null;
};

const LIFESPANS = [
  'authorization_code_grant_access_token_lifespan',
  'authorization_code_grant_id_token_lifespan',
  'authorization_code_grant_refresh_token_lifespan',
  'client_credentials_grant_access_token_lifespan',
  'implicit_grant_access_token_lifespan',
  'implicit_grant_id_token_lifespan',
  'jwt_bearer_grant_access_token_lifespan',
  'refresh_token_grant_id_token_lifespan',
  'refresh_token_grant_access_token_lifespan',
  'refresh_token_grant_refresh_token_lifespan',
];

/** The client as the admin API shows it: Hydra's member order, never the secret, every lifespan null. */
export function publicClient(client: Client): Record<string, unknown> {
  const { client_secret: _secret, post_logout_redirect_uris, metadata, skip_consent, skip_logout_consent, ...rest } = client;
  void _secret;
  return {
    ...rest,
    ...(post_logout_redirect_uris?.length ? { post_logout_redirect_uris } : {}),
    metadata,
    skip_consent,
    skip_logout_consent,
    ...Object.fromEntries(LIFESPANS.map((name) => [name, null])),
  };
}

const strings = (value: unknown, field: string): string[] => {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw metadataError(`Field ${field} must be an array of strings.`);
  return value as string[];
};
const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const metadataError = (hint: string) =>
  new HydraError('invalid_client_metadata', undefined, {
    description: `The value of one of the Client Metadata fields is invalid and the server has rejected this request. Note that an Authorization Server MAY choose to substitute a valid value for any requested parameter of a Client's Metadata. ${hint}`,
  });

function validUri(uri: string): boolean {
  try {
    const url = new URL(uri);
    return Boolean(url.protocol);
  } catch {
    return false;
  }
}

/** A client from an admin request body; `existing` for PUT/PATCH (keeps id, secret when none is sent, created_at). */
export function clientFromBody(body: Record<string, unknown>, nowIso: string, existing?: Client): Client {
  // Real Hydra v2.3.0 stores any method name; only the known ones can authenticate at the token endpoint.
  const method = text(body.token_endpoint_auth_method) || 'client_secret_basic';
  const redirectUris = strings(body.redirect_uris, 'redirect_uris');
  const postLogout = strings(body.post_logout_redirect_uris, 'post_logout_redirect_uris');
  for (const uri of [...redirectUris, ...postLogout]) {
    if (uri.includes('#'))
      throw new HydraError('invalid_redirect_uri', undefined, {
        description: 'The value of one or more redirect_uris is invalid. Redirect URIs must not contain fragments (#).',
      });
    if (!validUri(uri))
      throw new HydraError('invalid_redirect_uri', undefined, {
        description: `The value of one or more redirect_uris is invalid. Unable to parse redirect URL: ${uri}`,
      });
  }
  // As Hydra: a post-logout URI shares scheme, host and port with one of the redirect URIs (its quote as Hydra has it).
  const originOf = (uri: string) => new URL(uri).origin;
  for (const uri of postLogout) {
    if (!redirectUris.some((redirect) => originOf(redirect) === originOf(uri)))
      throw metadataError(`post_logout_redirect_uri '${uri}' must match the domain, port, scheme of at least one of the registered redirect URIs but did not'`);
  }
  let secret = text(body.client_secret) || existing?.client_secret;
  if (method === 'none') secret = undefined;
  else if (!secret) secret = randomBytes(24).toString('base64url');
  else if (secret.length < 6) throw metadataError('Field client_secret must contain a secret that is at least 6 characters long.');
  return {
    client_id: existing?.client_id ?? (text(body.client_id) || randomUUID()),
    client_name: text(body.client_name),
    ...(secret ? { client_secret: secret } : {}),
    redirect_uris: redirectUris,
    grant_types: strings(body.grant_types, 'grant_types'),
    response_types: strings(body.response_types, 'response_types'),
    scope: typeof body.scope === 'string' ? body.scope : 'offline_access offline openid',
    audience: strings(body.audience, 'audience'),
    owner: text(body.owner),
    policy_uri: text(body.policy_uri),
    allowed_cors_origins: strings(body.allowed_cors_origins, 'allowed_cors_origins'),
    tos_uri: text(body.tos_uri),
    client_uri: text(body.client_uri),
    logo_uri: text(body.logo_uri),
    contacts: strings(body.contacts, 'contacts'),
    client_secret_expires_at: 0,
    subject_type: text(body.subject_type) || 'public',
    jwks: body.jwks && typeof body.jwks === 'object' ? body.jwks : {},
    token_endpoint_auth_method: method,
    userinfo_signed_response_alg: text(body.userinfo_signed_response_alg) || 'none',
    created_at: existing?.created_at ?? nowIso.replace(/\.\d+Z$/, 'Z'),
    updated_at: nowIso,
    ...(postLogout.length ? { post_logout_redirect_uris: postLogout } : {}),
    metadata: body.metadata && typeof body.metadata === 'object' ? body.metadata : {},
    skip_consent: body.skip_consent === true,
    skip_logout_consent: typeof body.skip_logout_consent === 'boolean' ? body.skip_logout_consent : null,
  };
}

/** Hydra (fosite) treats an empty grant_types/response_types as the defaults. */
export const grantTypesOf = (client: Client) => (client.grant_types.length ? client.grant_types : ['authorization_code']);
export const responseTypesOf = (client: Client) => (client.response_types.length ? client.response_types : ['code']);

/**
 * fosite's redirect URI match: exact, or RFC 8252 §7.3 loopback — a registered `http://127.0.0.1/path`
 * (or `[::1]`) matches the same URI on any port. `localhost` gets no such allowance (verified on v2.3.0).
 */
export function redirectUriMatches(client: Client, requested: string): boolean {
  if (client.redirect_uris.includes(requested)) return true;
  let asked: URL;
  try {
    asked = new URL(requested);
  } catch {
    return false;
  }
  if (asked.protocol !== 'http:' || !['127.0.0.1', '[::1]'].includes(asked.hostname)) return false;
  return client.redirect_uris.some((registered) => {
    try {
      const url = new URL(registered);
      return url.protocol === 'http:' && url.hostname === asked.hostname && url.pathname === asked.pathname && url.search === asked.search;
    } catch {
      return false;
    }
  });
}

export function secretMatches(client: Client, secret: string): boolean {
  const expected = Buffer.from(client.client_secret ?? '');
  const given = Buffer.from(secret);
  return expected.length > 0 && expected.length === given.length && timingSafeEqual(expected, given);
}
