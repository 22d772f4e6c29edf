// The `init` message's authorization token: the identity service's tokenizer JWT (the same one the
// backend accepts), verified against the identity service's published key set.
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { Config } from '../config.ts';

/** Who a verified token speaks for: the identity, and the identity session (one browser) when it names one. */
export type LiveIdentity = { identityId: string; sessionId: string | null };

const ALGORITHMS = ['ES256', 'ES384', 'ES512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'EdDSA'];
/** A JWT longer than this is not one of the tokenizer's (they are well under 2 KB). */
const MAX_TOKEN_LENGTH = 8_192;

export type TokenVerifier = (token: unknown) => Promise<LiveIdentity | null>;

/** The key set URL: TOKEN_JWKS_URL, else the identity service's `/.well-known/jwks.json`. */
export function jwksUrlOf(config: Pick<Config, 'TOKEN_JWKS_URL' | 'KRATOS_PUBLIC_URL'>): URL {
  return new URL(config.TOKEN_JWKS_URL ?? `${config.KRATOS_PUBLIC_URL.replace(/\/+$/, '')}/.well-known/jwks.json`);
}

/**
 * Verifies tokens against the key set (fetched once, kept 10 minutes, fetched again on an unknown
 * `kid`, 5 s deadline): signature, `iss` (TOKEN_ISSUER, else the identity URL with or without its
 * trailing slash, as Kratos writes its base_url), `aud` (TOKEN_AUDIENCE), `exp`. Null when refused.
 */
export function tokenVerifier(
  config: Pick<Config, 'TOKEN_JWKS_URL' | 'KRATOS_PUBLIC_URL' | 'TOKEN_ISSUER' | 'TOKEN_AUDIENCE'>,
  keys?: JWTVerifyGetKey,
): TokenVerifier {
  const getKey = keys ?? createRemoteJWKSet(jwksUrlOf(config), { timeoutDuration: 5_000, cooldownDuration: 30_000, cacheMaxAge: 10 * 60_000 });
  const base = (config.TOKEN_ISSUER ?? config.KRATOS_PUBLIC_URL).replace(/\/+$/, '');
  const issuer = [base, `${base}/`];
  return async (token) => {
    if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN_LENGTH) return null;
    try {
      const { payload } = await jwtVerify(token, getKey, {
        issuer,
        audience: config.TOKEN_AUDIENCE,
        algorithms: ALGORITHMS,
        clockTolerance: 5,
        requiredClaims: ['sub', 'exp'],
      });
      if (typeof payload.sub !== 'string' || payload.sub === '' || payload.sub.length > 200) return null;
      return { identityId: payload.sub, sessionId: typeof payload.sid === 'string' && payload.sid.length <= 200 ? payload.sid : null };
    } catch {
      return null;
    }
  };
}

/**
 * The CSP `connect-src` the island needs for an external socket host (SOCKET_URL): its origin as a
 * WebSocket origin (`https:` → `wss:`). Nothing for the app's own endpoint, which `'self'` covers.
 */
export function liveSocketSources(config: Pick<Config, 'SOCKET_URL'>): string[] {
  if (!config.SOCKET_URL) return [];
  const url = new URL(config.SOCKET_URL);
  url.protocol = url.protocol.replace(/^http/, 'ws');
  return [url.origin];
}
