// The stand-in's OIDC pieces on their own: the encrypted state, the claims Kratos decodes, the mappers,
// the traits merge, what goes upstream, Microsoft's tenant check, Apple's client secret, return_to
// taken over by a converted flow.
import { decodeJwt, decodeProtectedHeader, exportPKCS8, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import { createTestClock } from '../../../../embedded/clock.ts';
import type { OidcProvider } from '../../../../embedded/identity/config.ts';
import { appleClientSecret } from '../../../../embedded/identity/oidc/apple-secret.ts';
import { scopesOf, typeOptions } from '../../../../embedded/identity/oidc/authorize-url.ts';
import { applyAppleUser, microsoftIssuerFor, toClaims, uuidError, validateClaims } from '../../../../embedded/identity/oidc/claims.ts';
import { providerLabel, redirectUri, upstreamParameters } from '../../../../embedded/identity/oidc/config.ts';
import { mapClaims, mergeTraits } from '../../../../embedded/identity/oidc/mappers.ts';
import { decryptState, encryptState, newState } from '../../../../embedded/identity/oidc/state.ts';
import { goEncodeQuery, takeOverReturnTo } from '../../../../embedded/identity/request-url.ts';
import { loadSchema, validateTraits } from '../../../../embedded/identity/schema.ts';
import type { Service } from '../../../../embedded/identity/service.ts';

const svc = (secret = 'a'.repeat(32)) =>
  ({
    cookieSecret: Buffer.from(secret),
    clock: createTestClock(Date.UTC(2026, 0, 2)),
    publicUrl: 'http://id.test',
    config: { selfservice: { methods: { oidc: { enabled: true, config: { providers: [] } } } } },
  }) as unknown as Service;

const schema = loadSchema('default');
const provider = (id: string, type: string, extra: Partial<OidcProvider> = {}): OidcProvider => ({ id, provider: type, ...extra });

describe('state', () => {
  it('round-trips, is hex and opaque, and refuses another key or a changed byte', () => {
    const a = svc();
    const st = newState('9f1c2d3e-0000-4000-8000-000000000001', 'google', 'verifier-123');
    const hex = encryptState(a, st);
    expect(hex).toMatch(/^[0-9a-f]+$/);
    expect(hex).not.toContain(Buffer.from('google').toString('hex'));
    expect(decryptState(a, hex)).toEqual(st);
    expect(encryptState(a, st)).not.toBe(hex);
    expect(decryptState(svc('b'.repeat(32)), hex)).toBeUndefined();
    const flipped = hex.slice(0, 40) + (hex[40] === '0' ? '1' : '0') + hex.slice(41);
    expect(decryptState(a, flipped)).toBeUndefined();
    expect(decryptState(a, 'zz')).toBeUndefined();
    expect(decryptState(a, '')).toBeUndefined();
  });
});

describe('claims', () => {
  it('email_verified as a boolean or the string Apple sends; anything else fails to decode', () => {
    expect(toClaims({ sub: 's', email_verified: 'true' }).email_verified).toBe(true);
    expect(toClaims({ sub: 's', email_verified: true }).email_verified).toBe(true);
    expect(toClaims({ sub: 's', email_verified: 'false' }).email_verified).toBeUndefined();
    expect(() => toClaims({ sub: 's', email_verified: 'yes' })).toThrow();
    expect(toClaims({ sub: 's', name: '' })).toEqual({ sub: 's', raw_claims: { sub: 's', name: '' } });
  });

  it('a subject and an issuer are required', () => {
    expect(validateClaims({ iss: 'x' })?.reason).toBe('provider did not return a subject');
    expect(validateClaims({ sub: 'x' })?.reason).toBe('issuer not set in claims');
    expect(validateClaims({ sub: 'x', iss: 'y' })).toBeUndefined();
  });

  it("Apple's first-login user parameter fills the name claims it does not have", () => {
    const c = toClaims({ sub: 's', iss: 'i' });
    applyAppleUser(new URLSearchParams({ user: JSON.stringify({ name: { firstName: 'Ada', lastName: 'Lovelace' } }) }), c);
    expect(c).toMatchObject({ given_name: 'Ada', family_name: 'Lovelace', last_name: 'Lovelace' });
    const broken = toClaims({ sub: 's' });
    applyAppleUser(new URLSearchParams({ user: '{not json' }), broken);
    expect(broken.given_name).toBeUndefined();
  });

  it("Microsoft's tid must be a UUID; the issuer is the tenant's", () => {
    expect(microsoftIssuerFor('http://127.0.0.1:4602/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0', '72f988bf-86f1-41af-91ab-2d7cd011db47')).toBe(
      'http://127.0.0.1:4602/72f988bf-86f1-41af-91ab-2d7cd011db47/v2.0',
    );
    expect(microsoftIssuerFor('', '72f988bf-86f1-41af-91ab-2d7cd011db47')).toBe('https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/v2.0');
    expect(() => microsoftIssuerFor('', 'common')).toThrow(
      expect.objectContaining({ code: 400, reason: 'TenantID claim is not a valid UUID: uuid: incorrect UUID length 6 in string "common"' }),
    );
    expect(uuidError('{72f988bf-86f1-41af-91ab-2d7cd011db47}')).toBeUndefined();
    expect(uuidError('72f988bf-86f1-41af-91ab-2d7cd011dbZZ')).toMatch(/incorrect UUID format/);
  });
});

describe('mappers', () => {
  it.each([
    ['google', 'google', 'GOOGLE'],
    ['microsoft', 'microsoft', 'MICROSOFT'],
    ['dropbox', 'generic', 'DROPBOX'],
    ['apple', 'apple', 'APPLE'],
  ])('%s (%s): e-mail, name, loginService, the verified address', (id, type, service) => {
    const m = mapClaims(schema, provider(id, type), { sub: 's', email: 'Ada@Example.com', email_verified: true, name: 'Ada Lovelace' });
    expect(m.traits).toEqual({ email: 'Ada@Example.com', name: 'Ada Lovelace', loginService: service });
    expect(m.verifiedAddresses).toEqual([{ via: 'email', value: 'ada@example.com' }]);
  });

  it('given and family name when there is no name; a name cut to the schema maximum; no verified address unless said so', () => {
    const m = mapClaims(schema, provider('dropbox', 'generic'), { sub: 's', email: 'a@example.com', given_name: 'Grace', family_name: 'Hopper' });
    expect(m.traits.name).toBe('Grace Hopper');
    expect(m.verifiedAddresses).toEqual([]);
    const long = mapClaims(schema, provider('google', 'google'), { sub: 's', name: 'Å'.repeat(40) });
    expect(long.traits.name).toBe('Å'.repeat(32));
    expect(mapClaims(schema, provider('work', 'generic'), { sub: 's' }).traits).toEqual({});
  });

  it("Microsoft: no email_verified, the address verified on Entra's xms_edov only", () => {
    const claims = { sub: 's', email: 'ada@contoso.example' };
    expect(mapClaims(schema, provider('microsoft', 'microsoft'), { ...claims, raw_claims: { xms_edov: true } }).verifiedAddresses).toEqual([
      { via: 'email', value: 'ada@contoso.example' },
    ]);
    expect(mapClaims(schema, provider('microsoft', 'microsoft'), { ...claims, raw_claims: { xms_edov: false } }).verifiedAddresses).toEqual([]);
    expect(mapClaims(schema, provider('microsoft', 'microsoft'), claims).verifiedAddresses).toEqual([]);
  });

  it("posted traits override the mapper's, key by key, but empty ones never do", () => {
    expect(mergeTraits({ email: 'a@x.io', name: 'From Provider' }, { name: 'Posted', loginService: '' })).toEqual({ email: 'a@x.io', name: 'Posted' });
    expect(mergeTraits({ email: 'a@x.io' }, undefined)).toEqual({ email: 'a@x.io' });
  });
});

describe('upstream', () => {
  it('forwards the upstream parameters v1.3.1 allows, as strings only', () => {
    expect(upstreamParameters({ login_hint: 'a', hd: 'b', prompt: 'c', auth_type: 'd', acr_values: 'e', x: 'f', state: 'g' })).toEqual({
      login_hint: 'a',
      hd: 'b',
      prompt: 'c',
      auth_type: 'd',
    });
    expect(upstreamParameters({ login_hint: 3 })).toEqual({});
    expect(upstreamParameters('x')).toEqual({});
  });

  it('scopes: openid added; Google drops offline_access for access_type=offline; Apple asks for form_post', () => {
    expect(scopesOf(provider('d', 'generic', { scope: ['email'] }))).toEqual(['email', 'openid']);
    expect(scopesOf(provider('g', 'google', { scope: ['openid', 'offline_access'] }))).toEqual(['openid']);
    expect(typeOptions(provider('g', 'google', { scope: ['offline_access'] }), false)).toEqual([['access_type', 'offline']]);
    expect(typeOptions(provider('a', 'apple', { scope: ['name'] }), true)).toEqual([
      ['prompt', 'login'],
      ['response_mode', 'form_post'],
    ]);
    expect(typeOptions(provider('a', 'apple', { scope: ['openid'] }), false)).toEqual([]);
  });

  it('the callback URL (generic with pkce: force) and the label (the id when there is none)', () => {
    expect(redirectUri(svc(), provider('google', 'google'))).toBe('http://id.test/self-service/methods/oidc/callback/google');
    expect(redirectUri(svc(), provider('google', 'google', { pkce: 'force' }))).toBe('http://id.test/self-service/methods/oidc/callback');
    expect(providerLabel({ id: 'dropbox' })).toBe('dropbox');
    expect(providerLabel({ id: 'dropbox', label: 'Dropbox' })).toBe('Dropbox');
  });

  it('queries are encoded as Go encodes them', () => {
    expect(
      goEncodeQuery(
        new URLSearchParams([
          ['scope', 'a b'],
          ['b', "~*'"],
          ['a', 'x'],
        ]),
      ),
    ).toBe('a=x&b=~%2A%27&scope=a+b');
  });
});

describe('the identity validator', () => {
  it("gives an address for verification that is no e-mail the format message twice (the schema's and its extension's)", () => {
    const reasons = (options = {}) =>
      (validateTraits(schema, { email: 'not@an_address' }, options)?.fields['traits.email'] ?? []).map((m) => `${m.id} ${m.text}`);
    expect(reasons()).toEqual(['4000001 "not@an_address" is not valid "email"']);
    expect(reasons({ identityValidator: true })).toEqual(['4000001 "not@an_address" is not valid "email"', '4000001 "not@an_address" is not valid "email"']);
    expect(validateTraits(schema, { email: 'ok@example.com' }, { identityValidator: true })).toBeUndefined();
  });
});

describe('flow conversion', () => {
  it("takes over the first flow's return_to, or leaves the URL as it was", () => {
    expect(takeOverReturnTo('http://id.test/self-service/login/browser?return_to=http%3A%2F%2Fapp.test%2Fx', 'http://id.test/cb?state=s&code=c')).toBe(
      'http://id.test/cb?code=c&return_to=http%3A%2F%2Fapp.test%2Fx&state=s',
    );
    expect(takeOverReturnTo('http://id.test/self-service/login/browser', 'http://id.test/cb?z=1&a=2')).toBe('http://id.test/cb?z=1&a=2');
  });
});

describe("Apple's client secret", () => {
  it('is an ES256 JWT with the team, the client, Apple as audience and the key id, five minutes long', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const pem = await exportPKCS8(privateKey);
    const s = svc();
    const jwt = await appleClientSecret(
      s,
      provider('apple', 'apple', { client_id: 'com.example', apple_team_id: 'TEAM123', apple_private_key_id: 'KEY1', apple_private_key: pem }),
    );
    expect(decodeProtectedHeader(jwt)).toEqual({ alg: 'ES256', kid: 'KEY1', typ: 'JWT' });
    const claims = decodeJwt(jwt);
    expect(claims).toMatchObject({ iss: 'TEAM123', sub: 'com.example', aud: ['https://appleid.apple.com'] });
    expect(claims.exp! - claims.iat!).toBe(300);
    expect(claims.iat).toBe(Math.floor(s.clock.now() / 1000));
    await expect(appleClientSecret(s, provider('apple', 'apple', { apple_private_key: 'nope' }))).rejects.toMatchObject({
      code: 500,
      message: 'failed to decode PEM block containing private key',
    });
  });
});
