// The endpoints around the tokens: userinfo, revocation, introspection (admin), discovery and the JWKS.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context } from './context.ts';
import { HydraError, oauthError } from './errors.ts';
import type { Flow } from './flows.ts';
import { readForm, sendEmpty, sendError, sendJson } from './http.ts';
import { authenticateClient, sendTokenError, subjectClaims, UNHANDLED } from './token.ts';
import { findToken, isLive, revokeGrant } from './tokens.ts';

export async function handleUserinfo(req: IncomingMessage, res: ServerResponse, ctx: Context): Promise<void> {
  let value = /^bearer /i.test(req.headers.authorization ?? '') ? req.headers.authorization!.slice(7).trim() : '';
  if (!value && req.method === 'POST') value = (await readForm(req)).get('access_token') ?? '';
  const found = value ? findToken(ctx, value) : undefined;
  const unauthorized = (hint: string) => {
    const error = oauthError('request_unauthorized', hint);
    sendError(res, error, { 'WWW-Authenticate': `Bearer error="${error.error}",error_description="${error.description}"` });
  };
  if (found?.record.kind === 'rt') {
    // Real Hydra v2.3.0: the header names the reason, the body is its generic unknown-error answer.
    const header = 'Bearer error="invalid_token",error_description="Only access tokens are allowed in the authorization header."';
    return sendJson(res, 401, { error: 'error', error_description: 'The error is unrecognizable' }, { 'WWW-Authenticate': header });
  }
  if (!found || found.record.kind !== 'at' || !isLive(ctx, found.record)) return unauthorized('Check that you provided valid credentials in the right format.');
  const flow = ctx.store.get<Flow>('flow', found.record.flowId);
  if (!flow?.login) return unauthorized('Check that you provided valid credentials in the right format.');
  const claims = subjectClaims(ctx, flow, found.record.issuedAt);
  sendJson(res, 200, Object.fromEntries(Object.entries(claims).sort(([a], [b]) => (a < b ? -1 : 1))), { 'Content-Type': 'application/json;charset=UTF-8' });
}

export async function handleRevoke(req: IncomingMessage, res: ServerResponse, ctx: Context): Promise<void> {
  const form = await readForm(req);
  try {
    const hasClient = Boolean(req.headers.authorization) || form.has('client_id');
    if (!form.get('token') || !hasClient) throw oauthError('invalid_request', UNHANDLED);
    const client = authenticateClient(req, form, ctx);
    const found = findToken(ctx, form.get('token') ?? '');
    // Unknown tokens and other clients' tokens are answered 200 too (RFC 7009 §2.2).
    if (found && found.record.clientId === client.client_id && found.record.kind !== 'ac') {
      // fosite revokes the access and refresh tokens of the whole grant, whichever one is sent.
      revokeGrant(ctx, found.record.flowId, ['at', 'rt']);
    }
    sendEmpty(res, 200, { 'Cache-Control': 'no-store', Pragma: 'no-cache' });
  } catch (error) {
    if (error instanceof HydraError) return sendTokenError(res, error);
    throw error;
  }
}

export async function handleIntrospect(req: IncomingMessage, res: ServerResponse, ctx: Context): Promise<void> {
  const form = await readForm(req);
  if (!form.has('token')) return sendTokenError(res, oauthError('invalid_request', 'The POST body can not be empty.'));
  const found = findToken(ctx, form.get('token')!);
  const scope = (form.get('scope') ?? '').split(' ').filter(Boolean);
  const record = found?.record;
  if (!record || record.kind === 'ac' || !isLive(ctx, record) || !scope.every((s) => record.scope.includes(s))) {
    return sendJson(res, 200, { active: false }, { 'Cache-Control': 'no-store', Pragma: 'no-cache' });
  }
  const seconds = (ms: number) => Math.floor(ms / 1000);
  sendJson(res, 200, {
    active: true,
    // omitted when empty, as Hydra's (omitempty)
    ...(record.scope.length ? { scope: record.scope.join(' ') } : {}),
    client_id: record.clientId,
    sub: record.subject,
    exp: seconds(record.expiresAt),
    iat: seconds(record.issuedAt),
    nbf: seconds(record.issuedAt),
    aud: record.audience,
    iss: ctx.issuer,
    token_type: 'Bearer',
    token_use: record.kind === 'at' ? 'access_token' : 'refresh_token',
    ...(Object.keys(record.ext).length ? { ext: record.ext } : {}),
  });
}

export function discovery(ctx: Context): Record<string, unknown> {
  const base = ctx.publicUrl;
  const issuerBase = ctx.issuer.replace(/\/$/, '');
  // Member for member what real Hydra v2.3.0 serves (no registration or device endpoints there yet).
  return {
    issuer: ctx.issuer,
    authorization_endpoint: `${base}/oauth2/auth`,
    token_endpoint: `${base}/oauth2/token`,
    jwks_uri: `${base}/.well-known/jwks.json`,
    subject_types_supported: ['public'],
    response_types_supported: ['code', 'code id_token', 'id_token', 'token id_token', 'token', 'token id_token code'],
    claims_supported: ['sub'],
    grant_types_supported: ['authorization_code', 'implicit', 'client_credentials', 'refresh_token'],
    response_modes_supported: ['query', 'fragment', 'form_post'],
    userinfo_endpoint: `${base}/userinfo`,
    scopes_supported: ['offline_access', 'offline', 'openid'],
    token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic', 'private_key_jwt', 'none'],
    userinfo_signing_alg_values_supported: ['none', 'RS256'],
    id_token_signing_alg_values_supported: ['RS256'],
    id_token_signed_response_alg: ['RS256'],
    userinfo_signed_response_alg: ['RS256'],
    request_parameter_supported: true,
    request_uri_parameter_supported: true,
    require_request_uri_registration: true,
    claims_parameter_supported: false,
    revocation_endpoint: `${issuerBase}/oauth2/revoke`,
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
    frontchannel_logout_supported: true,
    frontchannel_logout_session_supported: true,
    end_session_endpoint: `${issuerBase}/oauth2/sessions/logout`,
    request_object_signing_alg_values_supported: ['none', 'RS256', 'ES256'],
    code_challenge_methods_supported: ['plain', 'S256'],
    credentials_endpoint_draft_00: `${base}/credentials`,
    credentials_supported_draft_00: [
      {
        format: 'jwt_vc_json',
        types: ['VerifiableCredential', 'UserInfoCredential'],
        cryptographic_binding_methods_supported: ['jwk'],
        cryptographic_suites_supported: ['PS256', 'RS256', 'ES256', 'PS384', 'RS384', 'ES384', 'PS512', 'RS512', 'ES512', 'EdDSA'],
      },
    ],
  };
}

export const jwks = (ctx: Context) => ({ keys: ctx.publishedKeys });
