// Logout: /oauth2/sessions/logout (RP-initiated with id_token_hint, or OP-initiated) leads to the logout
// UI with a logout_challenge; the admin API gets, accepts or rejects it; following the accepted
// request's verifier ends the login session, its cookie and the identity provider's session (Hydra
// v2.3.0 calls `DELETE {urls.identity_provider.url}/admin/sessions/{identity_provider_session_id}`),
// then sends the browser to the validated post-logout URI (with state) or urls.post_logout_redirect.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID, createPublicKey } from 'node:crypto';
import { compactVerify } from 'jose';
import { publicClient, type Client } from './clients.ts';
import { TTL, type Context } from './context.ts';
import { HydraError, notFound, oauthError, resourceNotFound } from './errors.ts';
import { clearCookie, readForm, redirectFound, sendEmpty, sendJson, withQuery } from './http.ts';
import { currentLoginSession, SESSION_COOKIE, type LoginSession } from './login-sessions.ts';

type LogoutRequest = {
  challenge: string;
  verifier: string;
  subject: string;
  sid: string;
  requestUrl: string;
  rpInitiated: boolean;
  clientId: string | null;
  /** Where the browser goes at the end (validated post_logout_redirect_uri + state, or urls.postLogout). */
  finalUrl: string;
  accepted: boolean;
  used: boolean;
  /** OP-initiated requests only: real Hydra v2.3.0 shows null times for RP-initiated ones. */
  requestedAt?: string;
  expiresAt?: string;
};

const IDENTITY_PROVIDER_TIMEOUT_MS = 5000;

export async function handlePublicLogout(req: IncomingMessage, res: ServerResponse, ctx: Context): Promise<void> {
  const url = new URL(req.url ?? '/', ctx.publicUrl);
  const params: Record<string, string> = Object.fromEntries(url.searchParams);
  if (req.method === 'POST') for (const [key, value] of await readForm(req)) params[key] = value;
  try {
    if (params.logout_verifier) return await finishLogout(res, ctx, params.logout_verifier);
    return await startLogout(req, res, ctx, params, `${url.pathname}${url.search}`);
  } catch (error) {
    if (error instanceof HydraError)
      return redirectFound(
        res,
        withQuery(ctx.urls.error, [
          ['error', error.error],
          ['error_description', error.description],
        ]),
      );
    throw error;
  }
}

async function startLogout(req: IncomingMessage, res: ServerResponse, ctx: Context, params: Record<string, string>, requestUrl: string): Promise<void> {
  const hint = params.id_token_hint ?? '';
  const postLogout = params.post_logout_redirect_uri ?? '';
  const state = params.state ?? '';
  if (!hint && state) throw oauthError('invalid_request', 'Logout failed because query parameter state is set but id_token_hint is missing.');
  if (!hint && postLogout) {
    throw oauthError('invalid_request', 'Logout failed because query parameter post_logout_redirect_uri is set but id_token_hint is missing.');
  }
  if (!hint) {
    const session = currentLoginSession(req, ctx);
    if (!session) return redirectFound(res, ctx.urls.postLogout);
    return issueChallenge(res, ctx, {
      subject: session.subject,
      sid: session.id,
      requestUrl,
      rpInitiated: false,
      clientId: null,
      finalUrl: ctx.urls.postLogout,
      requestedAt: new Date(ctx.clock.now()).toISOString(),
      expiresAt: new Date(ctx.clock.now() + TTL.loginConsentRequestMs).toISOString(),
    });
  }
  const claims = await verifyHint(ctx, hint);
  const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  const client = audiences.map((aud) => (typeof aud === 'string' ? ctx.store.get<Client>('client', aud) : undefined)).find(Boolean);
  if (!client) throw oauthError('invalid_request', 'Logout failed because none of the listed audiences is a registered OAuth 2.0 Client.');
  let finalUrl = ctx.urls.postLogout;
  if (postLogout) {
    if (!(client.post_logout_redirect_uris ?? []).includes(postLogout)) {
      throw oauthError(
        'invalid_request',
        'Logout failed because query parameter post_logout_redirect_uri is not a whitelisted as a post_logout_redirect_uri for the client.',
      );
    }
    finalUrl = state ? withQuery(postLogout, [['state', state]]) : postLogout;
  }
  const sid = typeof claims.sid === 'string' ? claims.sid : '';
  const session = sid ? ctx.store.get<LoginSession>('login_session', sid) : undefined;
  // The hinted login session is already gone: nothing to ask, straight to the end.
  if (!session) return redirectFound(res, finalUrl);
  return issueChallenge(res, ctx, { subject: session.subject, sid, requestUrl, rpInitiated: true, clientId: client.client_id, finalUrl });
}

async function verifyHint(ctx: Context, hint: string): Promise<Record<string, unknown>> {
  let claims: Record<string, unknown>;
  // go-jose's words, which real Hydra passes on as the hint.
  if (hint.split('.').length !== 3) throw oauthError('invalid_request', 'go-jose/go-jose: compact JWS format must have three parts');
  try {
    // An expired ID token is still a valid hint, so only the signature is checked here.
    const { payload } = await compactVerify(hint, createPublicKey(ctx.key.privateKey));
    claims = JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
  } catch {
    throw oauthError('invalid_request', 'go-jose/go-jose: error in cryptographic primitive');
  }
  if (claims.iss !== ctx.issuer) throw oauthError('invalid_request', 'Logout failed because issuer claim value does not match the issuer of this server.');
  if (typeof claims.iat === 'number' && claims.iat * 1000 > ctx.clock.now() + 60_000)
    throw oauthError('invalid_request', 'Logout failed because iat claim value is in the future.');
  if (typeof claims.sub !== 'string' || claims.sub === '')
    throw oauthError('invalid_request', 'Logout failed because the sub claim is missing from the ID token hint.');
  if (typeof claims.sid !== 'string' || claims.sid === '')
    throw oauthError('invalid_request', 'Logout failed because the sid claim is missing from the ID token hint.');
  return claims;
}

function issueChallenge(res: ServerResponse, ctx: Context, fields: Omit<LogoutRequest, 'challenge' | 'verifier' | 'accepted' | 'used'>): void {
  const request: LogoutRequest = { ...fields, challenge: randomUUID(), verifier: randomUUID(), accepted: false, used: false };
  ctx.store.put('logout', request.challenge, request, { subject: request.subject });
  ctx.store.alias(`logout_verifier:${request.verifier}`, request.challenge);
  redirectFound(res, withQuery(ctx.urls.logout, [['logout_challenge', request.challenge]]));
}

async function finishLogout(res: ServerResponse, ctx: Context, verifier: string): Promise<void> {
  const challenge = ctx.store.resolve(`logout_verifier:${verifier}`);
  const request = challenge ? ctx.store.get<LogoutRequest>('logout', challenge) : undefined;
  if (!request?.accepted) throw notFound();
  if (!request.used) {
    ctx.store.put('logout', request.challenge, { ...request, used: true }, { subject: request.subject });
    const session = ctx.store.get<LoginSession>('login_session', request.sid);
    ctx.store.delete('login_session', request.sid);
    if (session?.identityProviderSessionId) await endIdentityProviderSession(ctx, session.identityProviderSessionId);
  }
  redirectFound(res, request.finalUrl, [clearCookie(SESSION_COOKIE)]);
}

/** The identity service's session ends with the login session; its failure does not stop the logout (as in Hydra, which logs it). */
async function endIdentityProviderSession(ctx: Context, sessionId: string): Promise<void> {
  if (!ctx.identityProviderAdminUrl) return;
  const url = `${ctx.identityProviderAdminUrl.replace(/\/+$/, '')}/admin/sessions/${encodeURIComponent(sessionId)}`;
  try {
    await fetch(url, { method: 'DELETE', headers: { Accept: 'application/json' }, signal: AbortSignal.timeout(IDENTITY_PROVIDER_TIMEOUT_MS) });
  } catch {
    // Unreachable identity service: the OAuth2 logout still completes.
  }
}

export async function handleAdminLogout(req: IncomingMessage, res: ServerResponse, path: string, ctx: Context): Promise<boolean> {
  const match = /^\/admin\/oauth2\/auth\/requests\/logout(?:\/(accept|reject))?$/.exec(path);
  if (!match) return false;
  const action = match[1] ?? 'get';
  if ((action === 'get' && req.method !== 'GET') || (action !== 'get' && req.method !== 'PUT')) return false;
  const url = new URL(req.url ?? '/', 'http://admin');
  const challenge = url.searchParams.get('logout_challenge') ?? url.searchParams.get('challenge') ?? '';
  const request = challenge ? ctx.store.get<LogoutRequest>('logout', challenge) : undefined;
  // Real Hydra v2.3.0 answers an unknown logout challenge with its SQL 404, except on reject.
  if (!request) throw action === 'reject' ? notFound() : resourceNotFound();
  if (action === 'reject') {
    ctx.store.delete('logout', challenge);
    return (sendEmpty(res, 204), true);
  }
  const verifierUrl = `${ctx.publicUrl}/oauth2/sessions/logout?logout_verifier=${request.verifier}`;
  // Accepting again after use answers the same verifier (real Hydra v2.3.0); reading it is 410.
  if (action === 'accept' && request.used) return (sendJson(res, 200, { redirect_to: verifierUrl }), true);
  if (request.used) return (sendJson(res, 410, { redirect_to: request.requestUrl }), true);
  if (action === 'accept') {
    ctx.store.put('logout', challenge, { ...request, accepted: true }, { subject: request.subject });
    return (sendJson(res, 200, { redirect_to: verifierUrl }), true);
  }
  const client = request.clientId ? ctx.store.get<Client>('client', request.clientId) : undefined;
  sendJson(res, 200, {
    challenge: request.challenge,
    subject: request.subject,
    ...(request.sid ? { sid: request.sid } : {}),
    request_url: request.requestUrl,
    rp_initiated: request.rpInitiated,
    expires_at: request.expiresAt ?? null,
    requested_at: request.requestedAt ?? null,
    client: client ? publicClient(client) : null,
  });
  return true;
}
