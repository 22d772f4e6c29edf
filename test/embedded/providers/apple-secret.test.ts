// The fake Apple's token endpoint takes a client secret only as Apple does: an ES256 JWT signed with the
// client's "Sign in with Apple" key (iss team id, sub client id, aud https://appleid.apple.com, kid key
// id, at most six months), unless told to also take the fixed registered secret (acceptStaticSecret).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import * as client from 'openid-client';
import { startFakeProviders, type FakeProviders } from '../../../embedded/providers/index.ts';
import { createTestClock } from '../../../embedded/clock.ts';
import { signInAtProvider } from '../../support/providers.ts';
import { appleClientSecret, authorizationUrl, callbackUrl, discover, RP_URL } from './rp.ts';

const clock = createTestClock();
let fakes: FakeProviders;

beforeAll(async () => {
  fakes = await startFakeProviders({ clock });
  fakes.trustRelyingParty(RP_URL);
});
afterAll(() => fakes?.close());

/** A code for Ada, exchanged with `secret`: the ID token's claims, or the token endpoint's error. */
async function exchangeWith(secret: string, providers = fakes) {
  const config = await discover(providers.apple, secret);
  const authorization = await authorizationUrl(config, 'apple');
  const back = await signInAtProvider(authorization.url.href, { email: 'ada@example.com' });
  try {
    const tokens = await client.authorizationCodeGrant(config, callbackUrl(back), {
      pkceCodeVerifier: authorization.verifier,
      expectedState: authorization.state,
    });
    return { claims: tokens.claims() };
  } catch (error) {
    return { error: (error as { error?: string }).error ?? String(error) };
  }
}

const now = () => Math.floor(clock.now() / 1000);

describe("Apple's client secret", () => {
  it('a JWT signed as Kratos signs it is taken', async () => {
    const result = await exchangeWith(await appleClientSecret(fakes.apple, { iat: now() }));
    expect(result.claims).toMatchObject({ email: 'ada@example.com', email_verified: 'true' });
  });

  it('a six-month JWT is taken, but not a longer one', async () => {
    expect((await exchangeWith(await appleClientSecret(fakes.apple, { iat: now(), exp: now() + 15_777_000 }))).claims).toBeDefined();
    expect(await exchangeWith(await appleClientSecret(fakes.apple, { iat: now(), exp: now() + 15_777_001 }))).toEqual({ error: 'invalid_client' });
  });

  it.each([
    ['another team', { iss: 'OTHERTEAM1' }],
    ['another client', { sub: 'com.example.other' }],
    ['another audience', { aud: 'https://example.com' }],
    ['another key id', { kid: 'OTHERKEY01' }],
  ])('a JWT naming %s is refused', async (_, override) => {
    expect(await exchangeWith(await appleClientSecret(fakes.apple, { iat: now(), ...override }))).toEqual({ error: 'invalid_client' });
  });

  it('a JWT signed with another key is refused', async () => {
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    expect(await exchangeWith(await appleClientSecret(fakes.apple, { iat: now(), pem: other }))).toEqual({ error: 'invalid_client' });
  });

  it("an expired JWT is refused, by the providers' clock", async () => {
    const secret = await appleClientSecret(fakes.apple, { iat: now(), exp: now() + 300 });
    clock.advance(301_000);
    try {
      expect(await exchangeWith(secret)).toEqual({ error: 'invalid_client' });
    } finally {
      clock.advance(-301_000);
    }
    expect((await exchangeWith(secret)).claims).toBeDefined();
  });

  it('the fixed registered secret is refused by default', async () => {
    expect(await exchangeWith(fakes.apple.clientSecret)).toEqual({ error: 'invalid_client' });
  });

  it('the fixed registered secret is taken with acceptStaticSecret (a generic relying party), and a wrong one still is not', async () => {
    const lenient = await startFakeProviders({ apple: { acceptStaticSecret: true } });
    try {
      lenient.trustRelyingParty(RP_URL);
      expect((await exchangeWith(lenient.apple.clientSecret, lenient)).claims).toMatchObject({ email: 'ada@example.com' });
      expect(await exchangeWith('not-the-secret', lenient)).toEqual({ error: 'invalid_client' });
      expect((await exchangeWith(await appleClientSecret(lenient.apple), lenient)).claims).toBeDefined();
    } finally {
      await lenient.close();
    }
  });
});

describe("Apple's response mode", () => {
  it('with requireFormPost, asking for the e-mail without form_post is refused as Apple does', async () => {
    const strict = await startFakeProviders({ apple: { requireFormPost: true } });
    try {
      strict.trustRelyingParty(RP_URL);
      const config = await discover(strict.apple);
      const query = await authorizationUrl(config, 'apple', { response_mode: 'query' });
      const refused = await fetch(query.url, { redirect: 'manual' });
      expect(refused.status).toBe(400);
      expect(await refused.text()).toContain('response_mode must be form_post');
      const formPost = await authorizationUrl(config, 'apple');
      expect((await signInAtProvider(formPost.url.href, { email: 'ada@example.com' })).method).toBe('POST');
    } finally {
      await strict.close();
    }
  });

  it('by default a query response is given when asked for', async () => {
    const authorization = await authorizationUrl(await discover(fakes.apple), 'apple', { response_mode: 'query' });
    const back = await signInAtProvider(authorization.url.href, { email: 'ada@example.com' });
    expect(back.method).toBe('GET');
    expect(new URL(back.url).searchParams.get('code')).toBeTruthy();
  });
});
