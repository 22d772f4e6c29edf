import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildConfig } from '../../../embedded/identity/index.ts';
import { kratosConfig, type KratosRuntime } from '../../../scripts/ory/kratos-config.ts';
import { genericProvider, oidcMapperJsonnet } from '../../../scripts/ory/kratos-oidc.ts';

const runtime: KratosRuntime = {
  publicUrl: 'http://127.0.0.1:4001',
  adminUrl: 'http://127.0.0.1:4002',
  publicPort: 4001,
  adminPort: 4002,
  dsn: 'sqlite:///tmp/k.sqlite?_fk=true&mode=rwc',
  schemaUrl: 'file:///schema.json',
  jwksUrl: 'file:///jwks.json',
  courierUrl: 'http://127.0.0.1:4003/mail',
  secret: 'a'.repeat(48),
};
type Tree = Record<string, any>;
const translate = (options: Parameters<typeof buildConfig>[0] = {}) => kratosConfig(buildConfig({ appUrl: 'http://app.test', ...options }), runtime) as Tree;

describe('real Kratos configuration from the stand-in configuration', () => {
  it('keeps the ui_urls, return URLs, lifespans and hooks the stand-in runs with', () => {
    const config = translate();
    const flows = config.selfservice.flows;
    expect(flows.login.ui_url).toBe('http://app.test/sign-in');
    expect(flows.login.after.hooks).toEqual([{ hook: 'require_verified_address' }]);
    expect(flows.registration.after.password.hooks).toEqual([{ hook: 'show_verification_ui' }]);
    expect(flows.verification).toMatchObject({ ui_url: 'http://app.test/sign-up/verification', use: 'code', lifespan: '1h' });
    expect(config.selfservice.allowed_return_urls).toEqual(['http://app.test']);
    expect(config.session.lifespan).toBe('360h');
    expect(config.serve.public.base_url).toBe('http://127.0.0.1:4001/');
    expect(config.identity.schemas).toEqual([{ id: 'default', url: 'file:///schema.json' }]);
  });

  it('spells the registration style the way Kratos v1.3 does', () => {
    expect(translate().selfservice.flows.registration.enable_legacy_one_step).toBe(false);
    expect(
      translate({ config: { selfservice: { flows: { registration: { style: 'unified' } } } } }).selfservice.flows.registration.enable_legacy_one_step,
    ).toBe(true);
  });

  it('follows overrides a test gives the stand-in (verification by link, tiny lifespans)', () => {
    const config = translate({ config: { selfservice: { flows: { verification: { use: 'link' }, login: { lifespan: '1s' } } } } });
    expect(config.selfservice.flows.verification.use).toBe('link');
    expect(config.selfservice.flows.login.lifespan).toBe('1s');
  });

  it('maps tokenizer claims with Jsonnet: the fixed claims plus the e-mail, signed with the given key set', () => {
    const templates = translate().session.whoami.tokenizer.templates;
    expect(Object.keys(templates)).toEqual(['authorization', 'authentication']);
    expect(templates.authorization.jwks_url).toBe('file:///jwks.json');
    const jsonnet = Buffer.from(String(templates.authorization.claims_mapper_url).replace('base64://', ''), 'base64').toString('utf8');
    expect(jsonnet).toContain('"aud":"accounts-backend"');
    expect(jsonnet).toContain('session.identity.traits.email');
  });

  it('keeps the network out: no breached-password API calls, mail to the local catcher', () => {
    const config = translate();
    expect(config.selfservice.methods.password.config.haveibeenpwned_enabled).toBe(false);
    expect(config.courier).toMatchObject({ delivery_strategy: 'http', http: { request_config: { url: runtime.courierUrl, method: 'POST' } } });
  });
});

describe('OIDC providers for real Kratos', () => {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const applePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const providers = [
    {
      id: 'google',
      provider: 'google',
      label: 'Google',
      client_id: 'g-id',
      client_secret: 'g-secret',
      issuer_url: 'http://127.0.0.1:4601',
      scope: ['openid', 'email', 'profile'],
      pkce: 'auto',
    },
    {
      id: 'microsoft',
      provider: 'microsoft',
      label: 'Microsoft',
      client_id: 'm-id',
      client_secret: 'm-secret',
      issuer_url: 'http://127.0.0.1:4602/tid/v2.0',
      microsoft_tenant: 'tid',
      scope: ['openid', 'email'],
    },
    {
      id: 'dropbox',
      provider: 'generic',
      label: 'Dropbox',
      client_id: 'd-id',
      client_secret: 'd-secret',
      issuer_url: 'http://127.0.0.1:4603',
      claims_source: 'id_token',
      mapper_url: 'base64://eA==',
    },
    {
      id: 'apple',
      provider: 'apple',
      label: 'Apple',
      client_id: 'a-id',
      issuer_url: 'http://127.0.0.1:4604',
      apple_team_id: 'TEAM',
      apple_private_key_id: 'KID',
      apple_private_key: applePem,
      scope: ['email', 'name'],
    },
  ] as const;
  const config = translate({
    config: {
      selfservice: {
        methods: { oidc: { enabled: true, config: { providers: providers as never } } },
      },
    },
  });
  const translated = config.selfservice.methods.oidc;
  const byId = (id: string) => translated.config.providers.find((p: Tree) => p.id === id) as Tree;
  const mapperOf = (id: string) => Buffer.from(String(byId(id).mapper_url).replace('base64://', ''), 'base64').toString('utf8');

  it('makes every provider generic with its id, label, client, issuer, scope and PKCE, and nothing generic refuses', () => {
    expect(translated.enabled).toBe(true);
    expect(translated.config.providers.map((p: Tree) => [p.id, p.provider])).toEqual([
      ['google', 'generic'],
      ['microsoft', 'generic'],
      ['dropbox', 'generic'],
      ['apple', 'generic'],
    ]);
    expect(byId('google')).toMatchObject({
      label: 'Google',
      client_id: 'g-id',
      client_secret: 'g-secret',
      issuer_url: 'http://127.0.0.1:4601',
      scope: ['openid', 'email', 'profile'],
      pkce: 'auto',
    });
    expect(byId('dropbox')).toMatchObject({ claims_source: 'id_token' });
    // v1.3.1's schema refuses the tenant and Apple's keys on any other type.
    expect(byId('microsoft')).not.toHaveProperty('microsoft_tenant');
    expect(byId('apple')).not.toHaveProperty('apple_private_key');
    expect(byId('apple')).not.toHaveProperty('apple_team_id');
  });

  it('gives Apple a client secret as its own type signs it: an ES256 JWT of the team, for the client, verifiable with the key', () => {
    const [header, claims, signature] = String(byId('apple').client_secret).split('.');
    expect(JSON.parse(Buffer.from(header!, 'base64url').toString())).toEqual({ alg: 'ES256', kid: 'KID', typ: 'JWT' });
    const body = JSON.parse(Buffer.from(claims!, 'base64url').toString()) as Tree;
    expect(body).toMatchObject({ iss: 'TEAM', sub: 'a-id', aud: 'https://appleid.apple.com' });
    expect(body.exp - body.iat).toBe(180 * 24 * 3600);
    const ok = verify(
      'sha256',
      Buffer.from(`${header}.${claims}`),
      { key: createPublicKey(privateKey), dsaEncoding: 'ieee-p1363' },
      Buffer.from(signature!, 'base64url'),
    );
    expect(ok).toBe(true);
  });

  it('maps claims with Jsonnet: e-mail, name cut to the schema length, loginService by provider id, the address verified when the provider says so', () => {
    for (const [id, service] of [
      ['google', 'GOOGLE'],
      ['microsoft', 'MICROSOFT'],
      ['dropbox', 'DROPBOX'],
      ['apple', 'APPLE'],
    ]) {
      const jsonnet = mapperOf(id!);
      expect(jsonnet).toContain(`loginService: '${service}'`);
      expect(jsonnet).toContain("std.extVar('claims')");
      expect(jsonnet).toContain('std.substr(name, 0, 32)');
      expect(jsonnet).toContain("claim('given_name') + ' ' + claim('family_name')");
      expect(jsonnet).toContain("[if verified then 'verified_addresses']: [{ via: 'email', value: claims.email }]");
      // Entra's xms_edov (Kratos keeps it in raw_claims) verifies a Microsoft address.
      expect(jsonnet).toContain('raw.xms_edov == true');
    }
    // The stand-in's own mapper_url is not Kratos's: ours replaces it.
    expect(byId('dropbox').mapper_url).not.toBe('base64://eA==');
    expect(oidcMapperJsonnet('other')).not.toContain('loginService');
  });

  it('keeps the registration and login hooks per method (the stand-in’s default: a session right after registering with a provider)', () => {
    expect(config.selfservice.flows.registration.after.oidc).toEqual({ hooks: [{ hook: 'session' }] });
    const without = translate({ config: { selfservice: { flows: { registration: { after: { oidc: { hooks: [] } } } } } } as never });
    expect(without.selfservice.flows.registration.after.oidc).toBeUndefined();
    expect(config.selfservice.flows.registration.after.password.hooks).toEqual([{ hook: 'show_verification_ui' }]);
    expect(config.selfservice.flows.login.after.oidc).toBeUndefined();
  });

  it('encrypts the OIDC state (Kratos’s default cipher, noop, would leave the PKCE verifier readable in it)', () => {
    expect(config.ciphers).toEqual({ algorithm: 'xchacha20-poly1305' });
    expect(config.secrets.cipher[0]).toHaveLength(32);
  });

  it('leaves the method out when the stand-in has no provider, and refuses a provider without an issuer', () => {
    expect(translate().selfservice.methods.oidc).toBeUndefined();
    expect(() => genericProvider({ id: 'x', provider: 'google', client_id: 'c', client_secret: 's' })).toThrow(/issuer_url/);
  });
});
