// The code exchange and the claims (Strategy.ExchangeCode, then the provider type's Claims): openid-client
// redeems the code (with the PKCE verifier from the state) and checks the ID token (signature, issuer,
// audience, expiry), as go-oidc does for Kratos; the claims come from the ID token, or from userinfo with
// `claims_source: userinfo` (its subject must be the ID token's); Apple adds the posted `user`, Microsoft
// checks the tenant.
import * as client from 'openid-client';
import type { OidcProvider } from '../config.ts';
import { KratosError } from '../errors.ts';
import type { Service } from '../service.ts';
import { appleClientSecret } from './apple-secret.ts';
import { applyAppleUser, microsoftIssuerFor, toClaims, type Claims } from './claims.ts';
import { redirectUri } from './config.ts';
import { issuerOf, rpConfig, type ClientAuthStyle } from './discovery.ts';

export interface UpstreamTokens {
  id_token: string;
  access_token: string;
  refresh_token: string;
}

export interface UpstreamResult {
  claims: Claims;
  tokens: UpstreamTokens;
}

/** ErrIDTokenMissing (error.go). */
export const idTokenMissing = (): KratosError =>
  new KratosError(400, {
    reason: 'Authentication failed because no id_token was returned. Please accept the "openid" permission and try again.',
    message: 'authentication failed because id_token is missing',
  });

/**
 * How a failed exchange reads in Kratos: the token endpoint's error is an oauth2.RetrieveError, a plain
 * Go error (500, its text as the message); an ID token go-oidc refuses is a 400 with go-oidc's words.
 */
function exchangeError(e: unknown): KratosError {
  if (e instanceof KratosError) return e;
  if (e instanceof client.ResponseBodyError) {
    const text = `oauth2: ${JSON.stringify(e.error)}${e.error_description ? ` ${JSON.stringify(e.error_description)}` : ''}`;
    return new KratosError(500, { message: text });
  }
  const code = String((e as { code?: unknown }).code ?? '');
  const text = (e as Error).message ?? String(e);
  if (code.startsWith('OAUTH_JW') || code === 'OAUTH_INVALID_RESPONSE' || code === 'OAUTH_RESPONSE_IS_NOT_CONFORM') {
    return new KratosError(400, { reason: `oidc: ${text}` });
  }
  return new KratosError(500, { message: text });
}

/**
 * The callback as openid-client is told about it: the redirect URI (it sends that back) with the code and
 * the state only. Kratos reads nothing else of the callback before the exchange (golang.org/x/oauth2 takes
 * the code alone), so an `iss` parameter (RFC 9207), present, absent or wrong, changes nothing.
 */
function callbackUrl(svc: Service, p: OidcProvider, query: URLSearchParams): URL {
  const u = new URL(redirectUri(svc, p));
  u.searchParams.set('code', query.get('code') || query.get('authCode') || '');
  u.searchParams.set('state', query.get('state') ?? '');
  return u;
}

async function grant(config: client.Configuration, url: URL, state: string, verifier: string) {
  return client.authorizationCodeGrant(config, url, { expectedState: state, ...(verifier ? { pkceCodeVerifier: verifier } : {}) });
}

/**
 * oauth2's AuthStyleAutoDetect: the client secret in the Authorization header first, then, if the token
 * endpoint refuses the client, in the body. Apple's JWT secret is always posted in the body.
 */
async function redeem(svc: Service, p: OidcProvider, url: URL, state: string, verifier: string) {
  if (p.provider === 'apple') {
    const config = await rpConfig(svc, p, 'post', await appleClientSecret(svc, p));
    return { config, tokens: await grant(config, url, state, verifier) };
  }
  let last: unknown;
  for (const style of ['basic', 'post'] as ClientAuthStyle[]) {
    const config = await rpConfig(svc, p, style);
    try {
      return { config, tokens: await grant(config, url, state, verifier) };
    } catch (e) {
      last = e;
      const clientRefused = e instanceof client.ResponseBodyError && (e.error === 'invalid_client' || e.status === 401);
      if (!clientRefused) throw e;
    }
  }
  throw last;
}

export async function exchangeCode(svc: Service, p: OidcProvider, query: URLSearchParams, state: string, verifier: string): Promise<UpstreamResult> {
  try {
    const { config, tokens } = await redeem(svc, p, callbackUrl(svc, p, query), state, verifier);
    const idToken = tokens.id_token ?? '';
    const result: UpstreamTokens = { id_token: idToken, access_token: tokens.access_token ?? '', refresh_token: tokens.refresh_token ?? '' };
    const idClaims = tokens.claims() as Record<string, unknown> | undefined;
    if (p.claims_source === 'userinfo') {
      const info = (await client.fetchUserInfo(config, result.access_token, client.skipSubjectCheck)) as Record<string, unknown>;
      if (!idToken || !idClaims) throw idTokenMissing();
      const claims = toClaims(info);
      if (claims.sub !== idClaims.sub) throw new KratosError(400, { reason: 'sub (Subject) claim mismatch between ID token and UserInfo endpoint' });
      if (!claims.iss && typeof idClaims.iss === 'string') claims.iss = idClaims.iss;
      return { claims, tokens: result };
    }
    if (p.claims_source && p.claims_source !== 'id_token') {
      throw new KratosError(500, { reason: `Unknown claims source: ${JSON.stringify(p.claims_source)}` });
    }
    if (!idToken || !idClaims) throw idTokenMissing();
    const claims = toClaims(idClaims);
    if (p.provider === 'microsoft') {
      const expected = microsoftIssuerFor(issuerOf(p), idClaims.tid);
      if (claims.iss !== expected) {
        throw new KratosError(400, {
          reason: `oidc: id token issued by a different provider, expected ${JSON.stringify(expected)} got ${JSON.stringify(claims.iss)}`,
        });
      }
    }
    if (p.provider === 'apple') applyAppleUser(query, claims);
    return { claims, tokens: result };
  } catch (e) {
    throw exchangeError(e);
  }
}
