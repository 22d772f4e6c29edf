// Google One Tap, embedded: the credential (an ID token signed with the fake Google's own key, so it
// verifies against its JWKS exactly as a real one does against Google's), the endpoints the stand-in
// script calls, and the script itself (gsi-client.js, served at /gsi/client).
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { importJWK, SignJWT } from 'jose';
import type { Clock } from '../clock.ts';
import type { AccountStore, ProviderAccount } from './accounts.ts';
import type { SigningKey } from './keys.ts';
import { readBody, send, sendJson } from './http.ts';
import type { ProviderProfile } from './profiles.ts';

export const GSI_CLIENT_PATH = '/gsi/client';
const GSI_ACCOUNTS_PATH = '/gsi/accounts';
const GSI_CREDENTIAL_PATH = '/gsi/credential';

/** Google's One Tap ID tokens last an hour. */
const CREDENTIAL_TTL_S = 3600;

export interface OneTapContext {
  issuer: string;
  profile: ProviderProfile;
  accounts: AccountStore;
  key: SigningKey;
  clock: Clock;
  picture(account: ProviderAccount): string;
}

export interface CredentialOptions {
  nonce?: string;
  /** Default: the fake Google's client id. */
  audience?: string;
}

export async function oneTapCredential(ctx: OneTapContext, account: ProviderAccount, options: CredentialOptions = {}): Promise<string> {
  const now = Math.floor(ctx.clock.now() / 1000);
  const audience = options.audience ?? ctx.profile.clientId;
  const key = await importJWK(ctx.key.privateJwk, 'RS256');
  return new SignJWT({
    azp: audience,
    ...ctx.profile.claimsOf(account, ctx.picture(account)),
    ...(options.nonce !== undefined ? { nonce: options.nonce } : {}),
    jti: randomUUID(),
  })
    .setProtectedHeader({ alg: 'RS256', kid: ctx.key.privateJwk.kid, typ: 'JWT' })
    .setIssuer(ctx.issuer)
    .setAudience(audience)
    .setSubject(account.sub)
    .setIssuedAt(now)
    .setNotBefore(now)
    .setExpirationTime(now + CREDENTIAL_TTL_S)
    .sign(key);
}

let script: string | undefined;
const gsiScript = () => (script ??= readFileSync(new URL('./gsi-client.js', import.meta.url), 'utf8'));

/** CORS for the script's calls from any page: the credential is public-key signed, no cookie is read. */
const CORS = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Headers': 'Content-Type', 'Access-Control-Allow-Methods': 'GET, POST' };

/** Serves the One Tap endpoints; false when the path is not one of them. */
export async function handleOneTap(req: IncomingMessage, res: ServerResponse, path: string, ctx: OneTapContext): Promise<boolean> {
  if (path === GSI_CLIENT_PATH) {
    send(res, 200, 'text/javascript; charset=utf-8', gsiScript(), { 'Access-Control-Allow-Origin': '*', 'Cache-Control': 'no-cache' });
    return true;
  }
  if (path !== GSI_ACCOUNTS_PATH && path !== GSI_CREDENTIAL_PATH) return false;
  if (req.method === 'OPTIONS') {
    send(res, 204, 'text/plain', '', CORS);
    return true;
  }
  if (path === GSI_ACCOUNTS_PATH) {
    const accounts = ctx.accounts.list().map((a) => ({ email: a.email, name: a.name, picture: ctx.picture(a) }));
    sendJson(res, 200, { accounts }, CORS);
    return true;
  }
  if (req.method !== 'POST') {
    send(res, 405, 'text/plain', 'Method Not Allowed', { Allow: 'POST', ...CORS });
    return true;
  }
  let body: { email?: unknown; client_id?: unknown; nonce?: unknown };
  try {
    body = JSON.parse((await readBody(req)).toString('utf8')) as typeof body;
  } catch {
    sendJson(res, 400, { error: 'invalid_request', error_description: 'the body must be JSON' }, CORS);
    return true;
  }
  const account = typeof body.email === 'string' ? ctx.accounts.byEmail(body.email) : undefined;
  if (body.client_id !== ctx.profile.clientId) {
    // Like Google's: a client id that is not registered gets no credential.
    sendJson(res, 400, { error: 'invalid_client', error_description: 'The given client ID is not found.' }, CORS);
    return true;
  }
  if (!account) {
    sendJson(res, 400, { error: 'invalid_request', error_description: 'the email of one of the accounts is required' }, CORS);
    return true;
  }
  const nonce = typeof body.nonce === 'string' && body.nonce !== '' ? body.nonce : undefined;
  const credential = await oneTapCredential(ctx, account, { audience: body.client_id, nonce });
  sendJson(res, 200, { credential }, CORS);
  return true;
}
