// The upstream authorize URL as Kratos v1.3.1 builds it (getAuthRedirectURL → oauth2.Config.AuthCodeURL):
// response_type, client_id, redirect_uri, scope (with openid added), state; then the PKCE challenge, the
// forwarded upstream_parameters and the provider type's own options, each later one overwriting an
// earlier of the same name; the query encoded as Go encodes it (keys sorted). No nonce is sent.
import * as client from 'openid-client';
import type { OidcProvider } from '../config.ts';
import { goEncodeQuery } from '../request-url.ts';
import type { Service } from '../service.ts';
import { redirectUri, upstreamParameters } from './config.ts';
import { issuerOf, serverMetadata } from './discovery.ts';

/** The scopes sent: the configured ones plus openid; Google moves offline_access to access_type=offline. */
export function scopesOf(p: OidcProvider): string[] {
  let scope = [...(p.scope ?? [])];
  if (!scope.includes('openid')) scope.push('openid');
  if (p.provider === 'google') scope = scope.filter((s) => s !== 'offline_access');
  return scope;
}

/** AuthCodeURLOptions of the provider type (provider_generic_oidc.go, provider_google.go, provider_apple.go). */
export function typeOptions(p: OidcProvider, refresh: boolean): [string, string][] {
  const out: [string, string][] = [];
  if (refresh) out.push(['prompt', 'login']);
  // requested_claims is raw JSON in Kratos's configuration, sent as written (compact).
  if (p.requested_claims !== undefined) out.push(['claims', JSON.stringify(p.requested_claims)]);
  if (p.provider === 'google' && (p.scope ?? []).includes('offline_access')) out.push(['access_type', 'offline']);
  // Apple answers with a form post when it is asked for the e-mail or the name.
  if (p.provider === 'apple' && (p.scope ?? []).some((s) => s === 'email' || s === 'name')) out.push(['response_mode', 'form_post']);
  return out;
}

export interface AuthorizeInput {
  state: string;
  pkceVerifier: string;
  upstream: unknown;
  refresh: boolean;
}

export async function authorizeUrl(svc: Service, p: OidcProvider, input: AuthorizeInput): Promise<string> {
  const metadata = await serverMetadata(svc, issuerOf(p));
  const endpoint = metadata.authorization_endpoint ?? '';
  const q = new URLSearchParams();
  q.set('response_type', 'code');
  q.set('client_id', p.client_id ?? '');
  q.set('redirect_uri', redirectUri(svc, p));
  q.set('scope', scopesOf(p).join(' '));
  q.set('state', input.state);
  if (input.pkceVerifier) {
    q.set('code_challenge_method', 'S256');
    q.set('code_challenge', await client.calculatePKCECodeChallenge(input.pkceVerifier));
  }
  for (const [k, v] of Object.entries(upstreamParameters(input.upstream))) q.set(k, v);
  for (const [k, v] of typeOptions(p, input.refresh)) q.set(k, v);
  return `${endpoint}${endpoint.includes('?') ? '&' : '?'}${goEncodeQuery(q)}`;
}
