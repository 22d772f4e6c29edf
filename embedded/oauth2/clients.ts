// OAuth2 clients as Hydra v2.3.0 stores and shows them (`/admin/clients` CRUD), and the checks the
// authorize and token endpoints make against them (redirect URIs with RFC 8252 loopback ports, secrets).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { applyPatch, type Operation } from 'rfc6902';
import { HydraError, oauthError, resourceNotFound } from './errors.ts';
import { goJsonError, readBody, sendEmpty, sendJson } from './http.ts';
import type { Context } from './context.ts';
import { newOpaqueToken } from './tokens.ts';

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

const PAGE_SIZE_DEFAULT = 250;
/** Lists a create or replace answer echoes as null when the request left them out (reads show []). */
const ABSENT_AS_NULL = ['redirect_uris', 'grant_types', 'response_types', 'contacts'] as const;

/** A client body; malformed JSON gets Hydra's (herodot's) decode error, not the OAuth2 one. */
async function clientBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const text = await readBody(req);
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
    throw new Error('expected a JSON object');
  } catch (error) {
    throw new HydraError('The request was malformed or contained invalid parameters', undefined, {
      status: 400,
      description: `Unable to decode the request body: ${goJsonError(text, error as Error)}`,
    });
  }
}

export async function handleClients(req: IncomingMessage, res: ServerResponse, path: string, ctx: Context): Promise<boolean> {
  const url = new URL(req.url ?? '/', 'http://admin');
  const nowIso = () => new Date(ctx.clock.now()).toISOString();
  if (path === '/admin/clients') {
    if (req.method === 'POST') {
      const body = await clientBody(req);
      const client = clientFromBody(body, nowIso());
      if (ctx.store.get<Client>('client', client.client_id)) {
        throw new HydraError('Unable to insert or update resource because a resource with that value exists already', undefined, {
          status: 409,
          description: '',
        });
      }
      ctx.store.put('client', client.client_id, client, { clientId: client.client_id });
      // The create answer echoes absent lists as null, as Hydra's does; reads show [] afterwards.
      const shown = { ...publicClient(client), client_secret: client.client_secret };
      for (const field of ABSENT_AS_NULL) if (body[field] === undefined) (shown as Record<string, unknown>)[field] = null;
      const ordered = orderCreated(shown, ctx, body.client_id ? client.client_id : '');
      sendJson(res, 201, ordered, { Location: `/admin/clients/${encodeURIComponent(client.client_id)}` });
      return true;
    }
    if (req.method === 'GET') {
      const name = url.searchParams.get('client_name');
      const owner = url.searchParams.get('owner');
      const all = ctx.store.find<Client>('client', {}).filter((c) => (!name || c.client_name === name) && (!owner || c.owner === owner));
      const size = Math.max(1, Math.min(Number(url.searchParams.get('page_size')) || PAGE_SIZE_DEFAULT, 1000));
      const offset = pageOffset(url.searchParams.get('page_token'));
      const links: string[] = [];
      const link = (o: number, rel: string) =>
        `</admin/clients?page_size=${size}&page_token=${Buffer.from(JSON.stringify({ offset: String(o), v: 2 })).toString('base64url')}>; rel="${rel}"`;
      if (offset > 0) links.push(link(0, 'first'), link(Math.max(0, offset - size), 'prev'));
      if (offset + size < all.length) links.push(link(offset + size, 'next'), link(Math.floor((all.length - 1) / size) * size, 'last'));
      sendJson(res, 200, all.slice(offset, offset + size).map(publicClient), {
        'X-Total-Count': String(all.length),
        ...(links.length ? { Link: links.join(',') } : {}),
      });
      return true;
    }
    return false;
  }
  const match = /^\/admin\/clients\/([^/]+)$/.exec(path);
  if (!match) return false;
  const id = decodeURIComponent(match[1]!);
  const existing = ctx.store.get<Client>('client', id);
  if (!existing) throw resourceNotFound();
  switch (req.method) {
    case 'GET':
      sendJson(res, 200, publicClient(existing));
      return true;
    case 'DELETE':
      ctx.store.delete('client', id);
      ctx.revokeClientTokens(id);
      sendEmpty(res, 204);
      return true;
    case 'PUT': {
      const body = await clientBody(req);
      const client = clientFromBody(body, nowIso(), existing);
      ctx.store.put('client', id, client, { clientId: id });
      const shown: Record<string, unknown> = {
        ...publicClient(client),
        ...(client.client_secret && client.client_secret !== existing.client_secret ? { client_secret: client.client_secret } : {}),
      };
      for (const field of ABSENT_AS_NULL) if (body[field] === undefined) shown[field] = null;
      sendJson(res, 200, shown);
      return true;
    }
    case 'PATCH': {
      const patch = (await readJsonArray(req)) as Operation[];
      const document: Record<string, unknown> = { ...publicClient(existing), client_secret: existing.client_secret };
      const results = applyPatch(document, patch);
      if (results.some((r) => r !== null)) throw oauthError('invalid_request', 'The JSON patch could not be applied.');
      // Real Hydra then looks for a client with the new id, and finds none.
      if (document.client_id !== id) throw resourceNotFound();
      const client = clientFromBody(document, nowIso(), existing);
      ctx.store.put('client', id, client, { clientId: id });
      sendJson(res, 200, publicClient(client));
      return true;
    }
    default:
      return false;
  }
}

function orderCreated(shown: Record<string, unknown>, ctx: Context, id: string): Record<string, unknown> {
  // Hydra lists the secret right after the name, and the registration members after the metadata.
  const { client_id, client_name, client_secret, ...rest } = shown;
  const out: Record<string, unknown> = { client_id, client_name, ...(client_secret ? { client_secret } : {}) };
  for (const [key, value] of Object.entries(rest)) {
    out[key] = value;
    if (key === 'metadata') {
      out.registration_access_token = newOpaqueToken('at', ctx.secret);
      // Real Hydra builds it before it generates an id: empty unless the caller chose one.
      out.registration_client_uri = `${ctx.publicUrl}/oauth2/register/${encodeURIComponent(id)}`;
    }
  }
  return out;
}

function pageOffset(token: string | null): number {
  if (!token) return 0;
  try {
    const offset = Number((JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { offset?: string }).offset);
    return Number.isInteger(offset) && offset >= 0 ? offset : 0;
  } catch {
    return 0;
  }
}

async function readJsonArray(req: IncomingMessage): Promise<unknown[]> {
  try {
    const value: unknown = JSON.parse(await readBody(req));
    if (Array.isArray(value)) return value;
  } catch {
    // answered below
  }
  throw oauthError('invalid_request', 'Unable to decode body because: expected a JSON patch (an array of operations).');
}
