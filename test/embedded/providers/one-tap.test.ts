// The fake Google's One Tap: credentials are ID tokens a relying party verifies as Kratos does with
// Google's (its JWKS, issuer, audience, then the nonce), and the endpoints its stand-in script calls.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { startFakeProviders, type FakeProviders } from '../../../embedded/providers/index.ts';
import { createTestClock } from '../../../embedded/clock.ts';

const clock = createTestClock(Date.UTC(2026, 0, 15, 12));
let fakes: FakeProviders;

beforeAll(async () => {
  fakes = await startFakeProviders({ clock });
});
afterAll(() => fakes?.close());

const verify = (credential: string, audience = fakes.google.clientId) =>
  jwtVerify(credential, createRemoteJWKSet(new URL(fakes.google.jwksUri)), { issuer: fakes.google.issuer, audience, currentDate: new Date(clock.now()) });

describe('oneTapCredential', () => {
  it("is an ID token signed with the fake Google's JWKS key, for its client id, with the account's claims", async () => {
    const { payload, protectedHeader } = await verify(await fakes.oneTapCredential('ada@example.com'));
    expect(protectedHeader.alg).toBe('RS256');
    expect(payload).toMatchObject({ email: 'ada@example.com', email_verified: true, name: 'Ada Lovelace', azp: fakes.google.clientId });
    expect(payload.sub).toBe(fakes.listAccounts('google').find((a) => a.email === 'ada@example.com')!.sub);
    expect(payload.picture).toMatch(new RegExp(`^${fakes.google.origin}/avatars/`));
    expect(payload.nonce).toBeUndefined();
    expect(payload.iat).toBe(Math.floor(clock.now() / 1000));
    expect(payload.exp! - payload.iat!).toBe(3600);
  });

  it('carries the nonce and the audience it is asked for', async () => {
    const { payload } = await verify(await fakes.oneTapCredential('grace@example.com', { nonce: 'n-123', audience: 'other-client' }), 'other-client');
    expect(payload).toMatchObject({ nonce: 'n-123', aud: 'other-client' });
    await expect(verify(await fakes.oneTapCredential('grace@example.com', { audience: 'other-client' }))).rejects.toThrow(/aud/);
  });

  it('is not valid an hour later', async () => {
    const credential = await fakes.oneTapCredential('ada@example.com');
    clock.advance(3601_000);
    try {
      await expect(verify(credential)).rejects.toThrow(/exp/);
    } finally {
      clock.advance(-3601_000);
    }
  });

  it('is refused for an address the provider does not know', async () => {
    await expect(fakes.oneTapCredential('nobody@example.com')).rejects.toThrow(/no google test account/);
  });
});

describe('the endpoints of the stand-in script', () => {
  it('serves /gsi/client as JavaScript any page may load', async () => {
    const response = await fetch(fakes.google.gsiScriptUrl!);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const script = await response.text();
    expect(script).toContain('google.accounts.id = id');
    // Strict CSP: nothing evaluated from strings, no markup with style attributes.
    expect(script).not.toMatch(/\beval\(|new Function|innerHTML|setAttribute\('style'/);
  });

  it('lists the accounts, with CORS', async () => {
    const response = await fetch(`${fakes.google.origin}/gsi/accounts`, { headers: { origin: 'http://app.test' } });
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const { accounts } = (await response.json()) as { accounts: { email: string; name: string }[] };
    expect(accounts.map((a) => a.email)).toContain('ada@example.com');
  });

  it('hands out a credential for an account and the registered client id, with the nonce', async () => {
    const response = await fetch(`${fakes.google.origin}/gsi/credential`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://app.test' },
      body: JSON.stringify({ email: 'grace@example.com', client_id: fakes.google.clientId, nonce: 'n-456' }),
    });
    expect(response.status).toBe(200);
    const { credential } = (await response.json()) as { credential: string };
    const { payload } = await verify(credential);
    expect(payload).toMatchObject({ email: 'grace@example.com', nonce: 'n-456' });
  });

  it('refuses a client id it does not know and an unknown account', async () => {
    const post = (body: object) =>
      fetch(`${fakes.google.origin}/gsi/credential`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const unknownClient = await post({ email: 'ada@example.com', client_id: 'someone-else' });
    expect(unknownClient.status).toBe(400);
    expect(await unknownClient.json()).toMatchObject({ error: 'invalid_client' });
    const unknownAccount = await post({ email: 'nobody@example.com', client_id: fakes.google.clientId });
    expect(unknownAccount.status).toBe(400);
    expect(await unknownAccount.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('answers the CORS preflight of the credential request', async () => {
    const response = await fetch(`${fakes.google.origin}/gsi/credential`, {
      method: 'OPTIONS',
      headers: { origin: 'http://app.test', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-headers')).toMatch(/content-type/i);
  });

  it('only the fake Google has them', async () => {
    expect((await fetch(`${fakes.microsoft.origin}/gsi/client`)).status).toBe(404);
    expect(fakes.microsoft.gsiScriptUrl).toBeUndefined();
    expect(decodeJwt(await fakes.oneTapCredential('ada@example.com')).iss).toBe(fakes.google.issuer);
  });
});
