// The embedded upstream providers (embedded/providers) as a relying party sees them: discovery, the
// authorization code flow with PKCE and state through the choose-account page, and each provider's
// own claims and quirks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as client from 'openid-client';
import { decodeJwt } from 'jose';
import { PROVIDER_IDS, startFakeProviders, type FakeProviders } from '../../../embedded/providers/index.ts';
import { signInAtProvider } from '../../support/providers.ts';
import { authorizationUrl, callbackOf, callbackUrl, discover, RP_URL, signIn } from './rp.ts';

let fakes: FakeProviders;

beforeAll(async () => {
  fakes = await startFakeProviders();
  fakes.trustRelyingParty(RP_URL);
});
afterAll(() => fakes?.close());

describe('discovery', () => {
  it.each(PROVIDER_IDS)('%s publishes its issuer, S256 PKCE, form_post, RFC 9207 iss and its JWKS', async (id) => {
    const fake = fakes[id];
    const meta = (await (await fetch(`${fake.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(meta.issuer).toBe(fake.issuer);
    expect(meta.code_challenge_methods_supported).toEqual(['S256']);
    expect(meta.response_modes_supported).toContain('form_post');
    expect(meta.authorization_response_iss_parameter_supported).toBe(true);
    expect(meta.jwks_uri).toBe(fake.jwksUri);
    const jwks = (await (await fetch(fake.jwksUri)).json()) as { keys: { kid: string; alg: string; d?: string }[] };
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ alg: 'RS256', kid: expect.stringMatching(new RegExp(`^${id}-`)) });
    expect(jwks.keys[0]!.d).toBeUndefined();
  });

  it.each(PROVIDER_IDS)('%s serves a favicon, so a browser on its pages logs no 404', async (id) => {
    const icon = await fetch(`${fakes[id].origin}/favicon.ico`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/png');
    expect(new Uint8Array(await icon.arrayBuffer()).subarray(0, 4)).toEqual(new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
  });

  it("has Microsoft's issuer on its tenant's path and the others on their origin", () => {
    expect(fakes.microsoft.issuer).toBe(`${fakes.microsoft.origin}/${fakes.microsoft.microsoft!.tenant}/v2.0`);
    expect(fakes.microsoft.microsoft!.tenant).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    for (const id of ['google', 'dropbox', 'apple'] as const) expect(fakes[id].issuer).toBe(fakes[id].origin);
  });
});

describe('the code flow', () => {
  it('Google: email, email_verified, name and picture in the ID token, iss back in the redirect', async () => {
    const { back, claims } = await signIn(fakes, 'google', { email: 'ada@example.com' });
    expect(back.method).toBe('GET');
    const query = new URL(back.url).searchParams;
    expect(back.url.startsWith(`${callbackOf('google')}?`)).toBe(true);
    expect(query.get('iss')).toBe(fakes.google.issuer);
    expect(claims).toMatchObject({
      iss: fakes.google.issuer,
      aud: fakes.google.clientId,
      email: 'ada@example.com',
      email_verified: true,
      name: 'Ada Lovelace',
    });
    expect(claims.sub).toMatch(/^\d{21}$/);
    expect(claims.hd).toBeUndefined();
    const picture = await fetch(String(claims.picture));
    expect(picture.headers.get('content-type')).toBe('image/png');
    expect(new Uint8Array(await picture.arrayBuffer()).subarray(0, 4)).toEqual(new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
  });

  it('Google: a Workspace account carries hd', async () => {
    const { claims } = await signIn(fakes, 'google', { email: 'katherine@workspace.example' });
    expect(claims.hd).toBe('workspace.example');
  });

  it('Microsoft: issuer /{tid}/v2.0 with a UUID tid, an oid, and xms_edov instead of email_verified', async () => {
    const { claims } = await signIn(fakes, 'microsoft', { email: 'grace@example.com' });
    const tenant = fakes.microsoft.microsoft!.tenant;
    expect(claims).toMatchObject({ iss: `${fakes.microsoft.origin}/${tenant}/v2.0`, tid: tenant, email: 'grace@example.com', name: 'Grace Hopper' });
    expect(claims.oid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(claims.email_verified).toBeUndefined();
    expect(claims.xms_edov).toBe(true);
  });

  it('Dropbox: a dbid: subject', async () => {
    const { claims } = await signIn(fakes, 'dropbox', { email: 'ada@example.com' });
    expect(claims).toMatchObject({ email: 'ada@example.com', email_verified: true, given_name: 'Ada', family_name: 'Lovelace' });
    expect(claims.sub).toMatch(/^dbid:AA[\w-]{40}$/);
  });

  it('Apple: form_post back with the user field the first time only, booleans as strings', async () => {
    const email = 'first.apple@example.com';
    fakes.addAccount('apple', { email, name: 'First Apple' });
    const first = await signIn(fakes, 'apple', { email });
    expect(first.back.method).toBe('POST');
    if (first.back.method !== 'POST') return;
    expect(first.back.url).toBe(callbackOf('apple'));
    expect(Object.keys(first.back.form).sort()).toEqual(['code', 'iss', 'state', 'user']);
    expect(JSON.parse(first.back.form.user!)).toEqual({ name: { firstName: 'First', lastName: 'Apple' }, email });
    expect(first.claims).toMatchObject({ email, email_verified: 'true', is_private_email: 'false', nonce_supported: true });
    expect(first.claims.sub).toMatch(/^\d{6}\.[0-9a-f]{32}\.\d{4}$/);
    expect(first.claims.name).toBeUndefined();

    const again = await signIn(fakes, 'apple', { email });
    expect(again.back.method === 'POST' && again.back.form.user).toBe(undefined);
    expect(again.claims.sub).toBe(first.claims.sub);
  });

  it('Apple: a private relay address says so', async () => {
    const relay = fakes.listAccounts('apple').find((a) => a.email.endsWith('@privaterelay.appleid.com'))!;
    const { claims } = await signIn(fakes, 'apple', { email: relay.email });
    expect(claims.is_private_email).toBe('true');
  });

  it('a subject is stable for an address, per provider', async () => {
    const one = await startFakeProviders();
    try {
      for (const id of PROVIDER_IDS) {
        for (const account of one.listAccounts(id)) expect(fakes.listAccounts(id).find((a) => a.email === account.email)?.sub).toBe(account.sub);
      }
    } finally {
      await one.close();
    }
    expect(new Set(PROVIDER_IDS.map((id) => fakes.listAccounts(id)[0]!.sub)).size).toBe(4);
  });

  it('a PKCE verifier that does not match is refused', async () => {
    const config = await discover(fakes.google);
    const authorization = await authorizationUrl(config, 'google');
    const back = await signInAtProvider(authorization.url.href, { email: 'ada@example.com' });
    await expect(
      client.authorizationCodeGrant(config, new URL(back.url), { pkceCodeVerifier: client.randomPKCECodeVerifier(), expectedState: authorization.state }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('a redirect URI that was not trusted is refused at the provider', async () => {
    const config = await discover(fakes.google);
    const authorization = await authorizationUrl(config, 'google', { redirect_uri: 'http://elsewhere.test/callback' });
    await expect(signInAtProvider(authorization.url.href, { email: 'ada@example.com' })).rejects.toThrow(/400.*redirect_uri/s);
  });
});

describe('the choose-account page', () => {
  async function page(id: 'google' | 'dropbox', extra: Record<string, string> = {}) {
    const authorization = await authorizationUrl(await discover(fakes[id]), id, extra);
    const start = await fetch(authorization.url, { redirect: 'manual' });
    const cookie = start.headers
      .getSetCookie()
      .map((line) => line.split(';')[0])
      .join('; ');
    const html = await (await fetch(start.headers.get('location')!, { headers: { cookie } })).text();
    return { html, authorization };
  }

  it('lists the accounts and focuses the login_hint one', async () => {
    const { html } = await page('google', { login_hint: 'grace@example.com' });
    expect(html).toContain('Choose an account');
    expect(html).toContain('Ada Lovelace');
    expect(html).not.toMatch(/<script/i);
    const focused = html.match(/<button[^>]*autofocus[^>]*>/g) ?? [];
    expect(focused).toHaveLength(1);
    expect(focused[0]).toContain('data-email="grace@example.com"');
  });

  it('fills in the add form with an unknown login_hint', async () => {
    const { html } = await page('dropbox', { login_hint: 'newcomer@example.com' });
    expect(html).toMatch(/<input type="email" name="email"[^>]*value="newcomer@example.com"[^>]*autofocus/);
    expect(html).not.toMatch(/<button[^>]*autofocus/);
  });

  it("Google's hd shows only that Workspace domain's accounts", async () => {
    const { html } = await page('google', { hd: 'workspace.example' });
    expect(html).toContain('data-email="katherine@workspace.example"');
    expect(html).not.toContain('data-email="ada@example.com"');
    expect(fakes.lastAuthorizationRequest('google')).toMatchObject({ hd: 'workspace.example', client_id: fakes.google.clientId });
  });

  it('adds an account chosen by address and signs it in', async () => {
    const { claims } = await signIn(fakes, 'dropbox', { email: 'added.here@example.com', name: 'Added Here' });
    expect(claims).toMatchObject({ email: 'added.here@example.com', given_name: 'Added', family_name: 'Here' });
    expect(fakes.listAccounts('dropbox').some((a) => a.email === 'added.here@example.com')).toBe(true);
  });

  it('cancel goes back with error=access_denied, the state and iss', async () => {
    const config = await discover(fakes.microsoft);
    const authorization = await authorizationUrl(config, 'microsoft');
    const back = await signInAtProvider(authorization.url.href, { cancel: true });
    expect(back.method).toBe('GET');
    const query = new URL(back.url).searchParams;
    expect(query.get('error')).toBe('access_denied');
    expect(query.get('state')).toBe(authorization.state);
    expect(query.get('iss')).toBe(fakes.microsoft.issuer);
    expect(query.get('code')).toBeNull();
    await expect(
      client.authorizationCodeGrant(config, new URL(back.url), { pkceCodeVerifier: authorization.verifier, expectedState: authorization.state }),
    ).rejects.toMatchObject({
      error: 'access_denied',
    });
  });

  it('Apple: cancel goes back in a form post (form_post) with error=access_denied, the state and iss', async () => {
    const config = await discover(fakes.apple);
    const authorization = await authorizationUrl(config, 'apple');
    const back = await signInAtProvider(authorization.url.href, { cancel: true });
    expect(back).toEqual({
      method: 'POST',
      url: callbackOf('apple'),
      form: { error: 'access_denied', error_description: 'The user cancelled the sign-in.', state: authorization.state, iss: fakes.apple.issuer },
    });
    await expect(
      client.authorizationCodeGrant(config, callbackUrl(back), { pkceCodeVerifier: authorization.verifier, expectedState: authorization.state }),
    ).rejects.toMatchObject({ error: 'access_denied' });
  });

  it('asks again on every authorization, even with the provider cookies of a previous one', async () => {
    const cookies = new Map<string, string>();
    const config = await discover(fakes.google);
    for (const email of ['ada@example.com', 'grace@example.com']) {
      const authorization = await authorizationUrl(config, 'google');
      const back = await signInAtProvider(authorization.url.href, { email }, cookies);
      const tokens = await client.authorizationCodeGrant(config, new URL(back.url), {
        pkceCodeVerifier: authorization.verifier,
        expectedState: authorization.state,
      });
      expect(decodeJwt(tokens.id_token!).email).toBe(email);
    }
    expect([...cookies.keys()].some((name) => name.startsWith('google_'))).toBe(true);
  });
});
