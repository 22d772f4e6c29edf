import { describe, expect, it } from 'vitest';
import { buildConfig } from '../../../embedded/identity/index.ts';
import { kratosConfig, type KratosRuntime } from '../../../scripts/ory/kratos-config.ts';

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
