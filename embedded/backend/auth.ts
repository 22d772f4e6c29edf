// Bearer JWT verification with jose against the identity service's JWKS.
import { createLocalJWKSet, createRemoteJWKSet, errors, jwtVerify, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import type { Clock } from '../clock.ts';
import { ApiError } from './errors.ts';

export type JwksSource = JSONWebKeySet | JWTVerifyGetKey;

export interface TokenClaims {
  sub: string;
  email: string | null;
  sid: string | null;
}

const ALGORITHMS = ['ES256', 'ES384', 'ES512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'EdDSA'];

export function makeKeyGetter(source: JwksSource | undefined, identityPublicUrl: string): JWTVerifyGetKey {
  if (typeof source === 'function') return source;
  if (source && typeof source === 'object') return createLocalJWKSet(source);
  const url = new URL('/.well-known/jwks.json', identityPublicUrl.endsWith('/') ? identityPublicUrl : identityPublicUrl + '/');
  return createRemoteJWKSet(url, { timeoutDuration: 5000, cooldownDuration: 30_000, cacheMaxAge: 10 * 60_000 });
}

export interface VerifyOptions {
  getKey: JWTVerifyGetKey;
  /** The accepted `iss` values. */
  issuer: string | string[];
  audience: string;
  clock: Clock;
}

const unauthorized = (message = 'The request could not be authorized') =>
  new ApiError(401, 'unauthorized', message, undefined, { 'WWW-Authenticate': 'Bearer realm="api"' });

/** Reads `Authorization: Bearer <jwt>`; returns null when the header is absent. */
export function bearerToken(header: string | undefined): string | null {
  if (header === undefined || header === '') return null;
  const match = /^Bearer[ ]+([A-Za-z0-9\-_=]+\.[A-Za-z0-9\-_=]+\.[A-Za-z0-9\-_=]*)[ ]*$/i.exec(header);
  if (!match) throw unauthorized('Malformed authorization header');
  return match[1]!;
}

export async function verifyToken(token: string, opts: VerifyOptions): Promise<TokenClaims> {
  try {
    const { payload } = await jwtVerify(token, opts.getKey, {
      issuer: opts.issuer,
      audience: opts.audience,
      algorithms: ALGORITHMS,
      currentDate: new Date(opts.clock.now()),
      clockTolerance: 5,
      requiredClaims: ['sub', 'exp'],
    });
    if (typeof payload.sub !== 'string' || payload.sub === '' || payload.sub.length > 200) throw unauthorized('Invalid subject');
    const email = typeof payload.email === 'string' && payload.email.length <= 255 ? payload.email.trim().toLowerCase() : null;
    const sid = typeof payload.sid === 'string' ? payload.sid : null;
    return { sub: payload.sub, email, sid };
  } catch (err) {
    if (err instanceof ApiError) throw err;
    if (err instanceof errors.JWTExpired) {
      throw new ApiError(401, 'token_expired', 'The authorization token has expired', undefined, {
        'WWW-Authenticate': 'Bearer realm="api", error="invalid_token", error_description="token expired"',
      });
    }
    if (err instanceof errors.JWKSTimeout || (!(err instanceof errors.JOSEError) && err instanceof TypeError)) {
      throw new ApiError(503, 'identity_unavailable', 'The identity key set could not be fetched');
    }
    throw unauthorized();
  }
}
