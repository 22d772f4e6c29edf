// A relying party for the embedded providers' tests: openid-client 6 with PKCE (S256) and state, as the
// identity service uses them, and the browser part through signInAtProvider().
import * as client from 'openid-client';
import { importPKCS8, SignJWT } from 'jose';
import type { FakeProvider, FakeProviders, ProviderId } from '../../../embedded/providers/index.ts';
import { signInAtProvider, type BackToCallback, type ProviderChoice } from '../../support/providers.ts';

/** The relying party's public URL: the providers trust its Kratos callback paths (nothing listens there). */
export const RP_URL = 'http://rp.test';
export const callbackOf = (id: ProviderId) => `${RP_URL}/self-service/methods/oidc/callback/${id}`;

export const SCOPES: Record<ProviderId, string> = {
  google: 'openid email profile',
  microsoft: 'openid email profile',
  dropbox: 'openid email profile',
  apple: 'openid email name',
};

/** Apple's client secret as Kratos's apple type signs it (ES256; iss team, sub client, aud Apple, kid); parts overridable to break it. */
export async function appleClientSecret(
  fake: FakeProvider,
  override: { iss?: string; sub?: string; aud?: string; kid?: string; iat?: number; exp?: number; pem?: string } = {},
): Promise<string> {
  const apple = fake.apple!;
  const iat = override.iat ?? Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: override.kid ?? apple.keyId })
    .setIssuer(override.iss ?? apple.teamId)
    .setSubject(override.sub ?? fake.clientId)
    .setAudience(override.aud ?? 'https://appleid.apple.com')
    .setIssuedAt(iat)
    .setExpirationTime(override.exp ?? iat + 300)
    .sign(await importPKCS8(override.pem ?? apple.privateKeyPem, 'ES256'));
}

export async function discover(fake: FakeProvider, secret?: string): Promise<client.Configuration> {
  const auth = fake.id === 'apple' ? client.ClientSecretPost(secret ?? (await appleClientSecret(fake))) : client.ClientSecretBasic(secret ?? fake.clientSecret);
  return client.discovery(new URL(fake.issuer), fake.clientId, undefined, auth, { execute: [client.allowInsecureRequests] });
}

export interface Authorization {
  url: URL;
  state: string;
  verifier: string;
}

export async function authorizationUrl(config: client.Configuration, id: ProviderId, extra: Record<string, string> = {}): Promise<Authorization> {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: callbackOf(id),
    scope: SCOPES[id],
    state,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...(id === 'apple' ? { response_mode: 'form_post' } : {}),
    ...extra,
  });
  return { url, state, verifier };
}

/** The callback as the relying party reads it: Apple's form post fields become the query, as Kratos's POST→GET does. */
export function callbackUrl(back: BackToCallback): URL {
  const url = new URL(back.url);
  if (back.method === 'POST') for (const [name, value] of Object.entries(back.form)) url.searchParams.set(name, value);
  return url;
}

/** The whole code flow: authorize, choose, exchange. Returns the ID token's claims and the way back. */
export async function signIn(fakes: FakeProviders, id: ProviderId, choice: ProviderChoice, extra: Record<string, string> = {}) {
  const config = await discover(fakes[id]);
  const authorization = await authorizationUrl(config, id, extra);
  const back = await signInAtProvider(authorization.url.href, choice);
  const tokens = await client.authorizationCodeGrant(config, callbackUrl(back), {
    pkceCodeVerifier: authorization.verifier,
    expectedState: authorization.state,
  });
  return { back, tokens, claims: tokens.claims()!, config };
}
