// The `id_token` submit's verification (Strategy.processIDToken with token_verifier.go, v1.3.1): only
// the google and apple types can verify one; the token is checked against the provider's keys (Kratos
// has Google's and Apple's key URLs built in; the stand-in takes jwks_uri from the discovery of
// issuer_url), its issuer, and an audience of client_id or additional_id_token_audiences; then Kratos's
// nonce rules. Every failure is an internal error (500) in v1.3.1, with these reasons.
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { OidcProvider } from '../config.ts';
import { KratosError } from '../errors.ts';
import type { Service } from '../service.ts';
import { toClaims, validateClaims, type Claims } from './claims.ts';
import { issuerOf, serverMetadata } from './discovery.ts';

const keySets = new WeakMap<Service, Map<string, ReturnType<typeof createRemoteJWKSet>>>();

function keySet(svc: Service, uri: string): ReturnType<typeof createRemoteJWKSet> {
  let m = keySets.get(svc);
  if (!m) keySets.set(svc, (m = new Map()));
  let set = m.get(uri);
  if (!set) m.set(uri, (set = createRemoteJWKSet(new URL(uri))));
  return set;
}

const internal = (reason: string, message?: string): KratosError => new KratosError(500, { reason, ...(message ? { message } : {}) });

/** go-oidc's texts for what it refuses (the error becomes the answer's message). */
function verifierText(e: unknown, issuer: string, audience: string, token: JWTPayload | undefined): string {
  if (e instanceof joseErrors.JWTClaimValidationFailed) {
    if (e.claim === 'iss') return `oidc: id token issued by a different provider, expected ${JSON.stringify(issuer)} got ${JSON.stringify(token?.iss ?? '')}`;
    if (e.claim === 'aud') return `oidc: expected audience ${JSON.stringify(audience)} got ${JSON.stringify([token?.aud ?? []].flat())}`;
  }
  if (e instanceof joseErrors.JWTExpired) return `oidc: token is expired (Token Expiry: ${new Date(Number(token?.exp ?? 0) * 1000).toISOString()})`;
  if (e instanceof joseErrors.JWSSignatureVerificationFailed || e instanceof joseErrors.JWKSNoMatchingKey) {
    return 'failed to verify signature: failed to verify id token signature';
  }
  return `oidc: malformed jwt: ${(e as Error).message}`;
}

function unverifiedPayload(token: string): JWTPayload | undefined {
  try {
    return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as JWTPayload;
  } catch {
    return undefined;
  }
}

/** verifyToken: tries client_id, then each additional audience; another failure ends it at once. */
async function verifyToken(svc: Service, p: OidcProvider, token: string): Promise<Claims> {
  const issuer = issuerOf(p);
  let jwksUri: string;
  try {
    jwksUri = (await serverMetadata(svc, issuer)).jwks_uri ?? '';
  } catch (e) {
    throw new Error((e as KratosError).reason ?? String(e));
  }
  const audiences = [p.client_id ?? '', ...(p.additional_id_token_audiences ?? [])];
  const payload = unverifiedPayload(token);
  let last: unknown;
  for (const audience of audiences) {
    try {
      const { payload: verified } = await jwtVerify(token, keySet(svc, jwksUri), { issuer, audience, currentDate: new Date(svc.clock.now()) });
      return toClaims(verified as Record<string, unknown>, false);
    } catch (e) {
      last = e;
      if (e instanceof joseErrors.JWTClaimValidationFailed && e.claim === 'aud') continue;
      throw new Error(verifierText(e, issuer, audience, payload));
    }
  }
  const lastAudience = audiences[audiences.length - 1] ?? '';
  throw new Error(`token audience didn't match allowed audiences: [${audiences.join(' ')}] ${verifierText(last, issuer, lastAudience, payload)}`);
}

export async function verifyIdToken(svc: Service, p: OidcProvider, idToken: string, nonce: string): Promise<Claims> {
  if (p.provider !== 'google' && p.provider !== 'apple') throw internal(`The provider ${p.provider ?? ''} does not support id_token verification`);
  let claims: Claims;
  try {
    claims = await verifyToken(svc, p, idToken);
  } catch (e) {
    throw internal('Could not verify id_token', (e as Error).message);
  }
  if (validateClaims(claims)) throw internal('The id_token claims were invalid');
  if (!claims.nonce) {
    // Google may skip the nonce whenever the token has none; Apple, in v1.3.1, when the token says
    // nonce_supported (the reverse of what its comment intends; newer Kratos checks it the other way).
    const canSkip = p.provider === 'google' || claims.nonce_supported === true;
    if (!canSkip) throw internal('No nonce was included in the id_token but is required by the provider');
  } else if (!nonce) {
    throw internal('No nonce was provided but is required by the provider');
  } else if (nonce !== claims.nonce) {
    throw internal('The supplied nonce does not match the nonce from the id_token');
  }
  return claims;
}
