// OpenID Connect discovery of each provider, with openid-client 6: the issuer the stand-in talks to
// (issuer_url, honoured for every provider type; see config.ts), its metadata, and openid-client
// Configurations with the client authentication each provider type uses. Kept per service, so several
// stand-ins in one process never share what they learnt; a failed discovery is not remembered.
import * as client from 'openid-client';
import type { OidcProvider } from '../config.ts';
import { KratosError } from '../errors.ts';
import type { Service } from '../service.ts';

/** The hosts Kratos builds in for the types that have them (used when issuer_url is not set). */
function builtInIssuer(p: OidcProvider): string | undefined {
  switch (p.provider) {
    case 'google':
      return 'https://accounts.google.com';
    case 'apple':
      return 'https://appleid.apple.com';
    case 'microsoft':
      return p.microsoft_tenant ? `https://login.microsoftonline.com/${p.microsoft_tenant}/v2.0` : undefined;
    default:
      return undefined;
  }
}

export function issuerOf(p: OidcProvider): string {
  return p.issuer_url || builtInIssuer(p) || '';
}

interface Cache {
  metadata: Map<string, Promise<client.ServerMetadata>>;
  configs: Map<string, client.Configuration>;
  jwks: Map<string, client.Configuration>;
}
const caches = new WeakMap<Service, Cache>();

function cacheOf(svc: Service): Cache {
  let c = caches.get(svc);
  if (!c) {
    c = { metadata: new Map(), configs: new Map(), jwks: new Map() };
    caches.set(svc, c);
  }
  return c;
}

/** Plain-http issuers are allowed only on loopback and private test hosts, like the fakes. */
const insecureOk = (issuer: string): boolean => issuer.startsWith('http://');

/** The discovered metadata of an issuer (gooidc.NewProvider); errors are Kratos's "Unable to initialize…". */
export async function serverMetadata(svc: Service, issuer: string): Promise<client.ServerMetadata> {
  const cache = cacheOf(svc).metadata;
  let pending = cache.get(issuer);
  if (!pending) {
    pending = (async () => {
      let url: URL;
      try {
        url = new URL(issuer);
      } catch {
        throw new Error(`unsupported protocol scheme ""`);
      }
      const options = insecureOk(issuer) ? { execute: [client.allowInsecureRequests] } : undefined;
      const c = await client.discovery(url, 'discovery', undefined, client.None(), options);
      return c.serverMetadata();
    })();
    cache.set(issuer, pending);
    pending.catch(() => cache.delete(issuer));
  }
  try {
    return await pending;
  } catch (e) {
    throw new KratosError(500, { reason: `Unable to initialize OpenID Connect Provider: ${(e as Error).message}` });
  }
}

export type ClientAuthStyle = 'basic' | 'post';

function configure(svc: Service, metadata: client.ServerMetadata, p: OidcProvider, auth: client.ClientAuth): client.Configuration {
  // Without the RFC 9207 promise, openid-client stops asking the callback for `iss`, which Kratos never reads.
  const c = new client.Configuration({ ...metadata, authorization_response_iss_parameter_supported: false }, p.client_id ?? '', undefined, auth);
  if (insecureOk(metadata.issuer)) client.allowInsecureRequests(c);
  // go-oidc checks the ID token's signature against the provider's keys; openid-client does only when asked.
  client.enableNonRepudiationChecks(c);
  // One key set per issuer, fetched once and shared by every Configuration of it.
  const keysFrom = cacheOf(svc).jwks.get(metadata.issuer);
  const cached = keysFrom && client.getJwksCache(keysFrom);
  if (cached) client.setJwksCache(c, cached);
  else cacheOf(svc).jwks.set(metadata.issuer, c);
  return c;
}

/**
 * A Configuration for the code exchange. Apple's client secret is made fresh for each request (an
 * ES256 JWT, see apple-secret.ts) and posted in the body; the others use their client secret, in
 * the Authorization header or in the body (see exchange.ts).
 */
export async function rpConfig(svc: Service, p: OidcProvider, auth: ClientAuthStyle, secret = p.client_secret ?? ''): Promise<client.Configuration> {
  const metadata = await serverMetadata(svc, issuerOf(p));
  if (p.provider === 'apple') return configure(svc, metadata, p, client.ClientSecretPost(secret));
  const key = `${p.id}|${auth}`;
  const cache = cacheOf(svc).configs;
  let c = cache.get(key);
  if (!c || c.serverMetadata().issuer !== metadata.issuer) {
    c = configure(svc, metadata, p, auth === 'basic' ? client.ClientSecretBasic(secret) : client.ClientSecretPost(secret));
    cache.set(key, c);
  }
  return c;
}

/** maybePKCE's discovery: whether the provider lists S256 (false when discovery fails, as in Kratos). */
export async function advertisesS256(svc: Service, p: OidcProvider): Promise<boolean> {
  const issuer = issuerOf(p);
  if (!issuer) return false;
  try {
    const m = await serverMetadata(svc, issuer);
    return (m.code_challenge_methods_supported ?? []).includes('S256');
  } catch {
    return false;
  }
}
