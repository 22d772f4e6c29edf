// POST /oauth2/token: client authentication (basic, post, none), the authorization code grant with PKCE,
// refresh token rotation and client credentials, with Hydra's token shapes and error texts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHash, randomUUID } from 'node:crypto';
import { grantTypesOf, secretMatches, type Client } from './clients.ts';
import { refreshAllowed } from './authorize.ts';
import { TTL, type Context } from './context.ts';
import { HydraError, oauthError } from './errors.ts';
import type { Flow } from './flows.ts';
import { readForm, sendJson } from './http.ts';
import { atHash, findToken, issueToken, revokeGrant, saveToken, signIdToken, type TokenRecord } from './tokens.ts';

const TOKEN_HEADERS = { 'Cache-Control': 'no-store', Pragma: 'no-cache', 'Content-Type': 'application/json;charset=UTF-8' };
const MIN_NONCE_LENGTH = 8;
/** fosite's hint when a request fits no handler (unknown grant type, revocation without client or token). */
export const UNHANDLED =
  'Make sure that the various parameters are correct, be aware of case sensitivity and trim your parameters. Make sure that the client you are using has exactly whitelisted the redirect_uri you specified.';

export function sendTokenError(res: ServerResponse, error: HydraError): void {
  sendJson(res, error.status, error.body(), TOKEN_HEADERS);
}

/** The client of a token or revocation request, authenticated as its token_endpoint_auth_method says. */
export function authenticateClient(req: IncomingMessage, form: URLSearchParams, ctx: Context): Client {
  const header = req.headers.authorization ?? '';
  let id = form.get('client_id') ?? '';
  let secret = form.get('client_secret') ?? '';
  let method = secret ? 'client_secret_post' : 'none';
  if (/^basic /i.test(header)) {
    const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    try {
      id = decodeURIComponent(decoded.slice(0, Math.max(colon, 0)));
      secret = decodeURIComponent(decoded.slice(colon + 1));
    } catch {
      throw oauthError('invalid_request', 'The client credentials in the HTTP authorization header could not be URL-decoded.');
    }
    method = 'client_secret_basic';
  }
  if (!id) throw oauthError('invalid_request', 'Client credentials missing or malformed in both HTTP Authorization header and HTTP POST body.');
  const client = ctx.store.get<Client>('client', id);
  if (!client) throw oauthError('invalid_client');
  if (client.token_endpoint_auth_method !== method) {
    throw oauthError(
      'invalid_client',
      `The OAuth 2.0 Client supports client authentication method '${client.token_endpoint_auth_method}', but method '${method}' was requested. You must configure the OAuth 2.0 client's 'token_endpoint_auth_method' value to accept '${method}'.`,
    );
  }
  if (method !== 'none' && !secretMatches(client, secret)) throw oauthError('invalid_client');
  return client;
}

export async function handleToken(req: IncomingMessage, res: ServerResponse, ctx: Context): Promise<void> {
  if (req.method !== 'POST') {
    res.writeHead(405, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
    return void res.end('Method Not Allowed\n');
  }
  const form = await readForm(req);
  try {
    const client = authenticateClient(req, form, ctx);
    const grantType = form.get('grant_type') ?? '';
    if (!grantType) throw oauthError('invalid_request', "Request parameter 'grant_type' is missing");
    if (!grantTypesOf(client).includes(grantType)) {
      // fosite's answer when no handler takes the grant type.
      if (!['authorization_code', 'refresh_token', 'client_credentials'].includes(grantType)) throw oauthError('invalid_request', UNHANDLED);
      throw oauthError('unauthorized_client', `The OAuth 2.0 Client is not allowed to use authorization grant '${grantType}'.`);
    }
    const body =
      grantType === 'authorization_code'
        ? await exchangeCode(ctx, client, form)
        : grantType === 'refresh_token'
          ? await refresh(ctx, client, form)
          : await clientCredentials(ctx, client, form);
    sendJson(res, 200, body, TOKEN_HEADERS);
  } catch (error) {
    if (error instanceof HydraError) return sendTokenError(res, error);
    throw error;
  }
}

const codeChallengeOf = (verifier: string, method: string) => (method === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier);

async function exchangeCode(ctx: Context, client: Client, form: URLSearchParams): Promise<Record<string, unknown>> {
  const found = findToken(ctx, form.get('code') ?? '');
  if (!found || found.record.kind !== 'ac') throw oauthError('invalid_grant');
  const { id, record: code } = found;
  if (code.used) {
    revokeGrant(ctx, code.flowId);
    throw oauthError('invalid_grant', 'The authorization code has already been used.');
  }
  if (!code.active || code.expiresAt <= ctx.clock.now()) throw oauthError('invalid_grant', 'The authorization code has expired.');
  if (code.clientId !== client.client_id)
    throw oauthError('invalid_grant', 'The OAuth 2.0 Client ID from this request does not match the one from the authorize request.');
  if (code.redirectUri && form.get('redirect_uri') !== code.redirectUri) {
    throw oauthError('invalid_grant', "The 'redirect_uri' from this request does not match the one from the authorize request.");
  }
  if (code.codeChallenge) {
    if (!['S256', 'plain'].includes(code.codeChallengeMethod ?? 'plain'))
      throw oauthError('invalid_request', 'The code_challenge_method is not supported, use S256 instead.');
    const verifier = form.get('code_verifier') ?? '';
    if (verifier.length < 43 || verifier.length > 128) throw oauthError('invalid_grant', 'The PKCE code verifier must be at least 43 characters.');
    if (codeChallengeOf(verifier, code.codeChallengeMethod ?? 'plain') !== code.codeChallenge) {
      throw oauthError('invalid_grant', 'The PKCE code challenge did not match the code verifier.');
    }
  } else if (form.get('code_verifier')) {
    throw oauthError('invalid_grant', 'The PKCE code verifier was provided but the code challenge was absent from the authorization request.');
  }
  if (code.nonce !== undefined && code.nonce.length < MIN_NONCE_LENGTH && code.scope.includes('openid')) {
    throw oauthError('insufficient_entropy', `Parameter 'nonce' is set but does not satisfy the minimum entropy of ${MIN_NONCE_LENGTH} characters.`);
  }
  saveToken(ctx, id, { ...code, used: true });
  return issueTokens(ctx, client, code, code.nonce);
}

async function refresh(ctx: Context, client: Client, form: URLSearchParams): Promise<Record<string, unknown>> {
  const found = findToken(ctx, form.get('refresh_token') ?? '');
  if (!found || found.record.kind !== 'rt') throw oauthError('invalid_grant', 'The refresh token is malformed or not valid.');
  const { id, record } = found;
  if (!record.active) {
    // A rotated-out refresh token used again: Hydra treats it as stolen and ends the whole chain.
    if (record.used) {
      revokeGrant(ctx, record.flowId);
      throw oauthError('invalid_grant', 'The refresh token was already used.');
    }
    throw oauthError('invalid_grant', 'The refresh token is malformed or not valid.');
  }
  if (record.expiresAt <= ctx.clock.now()) throw oauthError('invalid_grant', 'The refresh token expired.');
  if (record.clientId !== client.client_id)
    throw oauthError('invalid_grant', 'The OAuth 2.0 Client ID from this request does not match the ID during the initial token issuance.');
  // Rotation: the used refresh token and the access tokens of the grant end here.
  saveToken(ctx, id, { ...record, active: false, used: true });
  revokeGrant(ctx, record.flowId, ['at']);
  return issueTokens(ctx, client, record, record.nonce);
}

async function clientCredentials(ctx: Context, client: Client, form: URLSearchParams): Promise<Record<string, unknown>> {
  const scope = (form.get('scope') ?? '').split(' ').filter(Boolean);
  const allowed = client.scope.split(' ');
  for (const s of scope) if (!allowed.includes(s)) throw oauthError('invalid_scope', `The OAuth 2.0 Client is not allowed to request scope '${s}'.`);
  const audience = (form.get('audience') ?? '').split(' ').filter(Boolean);
  for (const a of audience)
    if (!client.audience.includes(a)) throw oauthError('invalid_request', `Requested audience '${a}' has not been whitelisted by the OAuth 2.0 Client.`);
  const grant = {
    kind: 'at' as const,
    flowId: `cc-${randomUUID()}`,
    clientId: client.client_id,
    subject: client.client_id,
    scope,
    audience,
    ext: {},
  };
  const { value } = issueToken(ctx, grant, TTL.accessTokenMs);
  return { access_token: value, expires_in: Math.floor(TTL.accessTokenMs / 1000) - 1, scope: scope.join(' '), token_type: 'bearer' };
}

/** Access token, refresh token when offline access was granted, ID token when openid was. */
async function issueTokens(ctx: Context, client: Client, grant: TokenRecord, nonce: string | undefined): Promise<Record<string, unknown>> {
  const base = {
    flowId: grant.flowId,
    clientId: grant.clientId,
    subject: grant.subject,
    scope: grant.scope,
    audience: grant.audience,
    ext: grant.ext,
    // Kept for the ID tokens of later refreshes, which repeat it (as real Hydra's do).
    ...(nonce ? { nonce } : {}),
  };
  const access = issueToken(ctx, { ...base, kind: 'at' }, TTL.accessTokenMs);
  const refreshToken = refreshAllowed(client, grant.scope) ? issueToken(ctx, { ...base, kind: 'rt' }, TTL.refreshTokenMs).value : undefined;
  const flow = ctx.store.get<Flow>('flow', grant.flowId);
  const idToken = grant.scope.includes('openid') && flow ? await signIdToken(ctx, idTokenClaims(ctx, flow, access.value, nonce)) : undefined;
  return {
    access_token: access.value,
    expires_in: Math.floor(TTL.accessTokenMs / 1000) - 1,
    ...(idToken ? { id_token: idToken } : {}),
    ...(refreshToken ? { refresh_token: refreshToken } : {}),
    scope: grant.scope.join(' '),
    token_type: 'bearer',
  };
}

const seconds = (ms: number) => Math.floor(ms / 1000);

/** The claims both the ID token and (without the token-bound ones) userinfo carry: contract §5.2. */
export function subjectClaims(ctx: Context, flow: Flow, issuedAt: number): Record<string, unknown> {
  const login = flow.login!;
  return {
    ...(flow.consent?.session.id_token ?? {}),
    ...(login.acr ? { acr: login.acr } : {}),
    ...(login.amr.length ? { amr: login.amr } : {}),
    aud: [flow.clientId],
    auth_time: seconds(flow.authenticatedAt ?? flow.requestedAt),
    iat: seconds(issuedAt),
    iss: ctx.issuer,
    rat: seconds(flow.requestedAt),
    sub: login.forceSubjectIdentifier || login.subject,
  };
}

function idTokenClaims(ctx: Context, flow: Flow, accessToken: string, nonce: string | undefined): Record<string, unknown> {
  const now = ctx.clock.now();
  return {
    ...subjectClaims(ctx, flow, now),
    at_hash: atHash(accessToken),
    exp: seconds(now + TTL.idTokenMs),
    jti: randomUUID(),
    ...(nonce ? { nonce } : {}),
    sid: flow.sessionId,
  };
}
