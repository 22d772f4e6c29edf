// startStack({ socialProviders: true }) and identityProviderConfig(): the identity service is configured
// with the four embedded providers, and each provider trusts the identity service's callback URLs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/stack.ts';
import { identityProviderConfig } from '../../../embedded/providers/identity-config.ts';
import { PROVIDER_IDS } from '../../../embedded/providers/index.ts';
import { signInAtProvider } from '../../support/providers.ts';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ socialProviders: true });
});
afterAll(() => stack?.close());

describe('identityProviderConfig', () => {
  it("describes each fake in Kratos's keys: Google, Microsoft and Apple by type, Dropbox generic", () => {
    const fakes = stack.providers!;
    const { enabled, config } = identityProviderConfig(fakes);
    expect(enabled).toBe(true);
    expect(config.providers.map((p) => [p.id, p.provider, p.label])).toEqual([
      ['google', 'google', 'Google'],
      ['microsoft', 'microsoft', 'Microsoft'],
      ['dropbox', 'generic', 'Dropbox'],
      ['apple', 'apple', 'Apple'],
    ]);
    for (const p of config.providers) {
      expect(p.issuer_url).toBe(fakes[p.id].issuer);
      expect(p.client_id).toBe(fakes[p.id].clientId);
    }
    const [google, microsoft, , apple] = config.providers;
    expect(google!.client_secret).toBe(fakes.google.clientSecret);
    expect(microsoft!.microsoft_tenant).toBe(fakes.microsoft.microsoft!.tenant);
    expect(apple).toMatchObject({ apple_team_id: fakes.apple.apple!.teamId, apple_private_key_id: fakes.apple.apple!.keyId, scope: ['email', 'name'] });
    expect(apple!.apple_private_key).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(apple!.client_secret).toBeUndefined();
  });
});

describe('startStack({ socialProviders: true })', () => {
  it('offers the four providers on the identity service’s sign-in flow', async () => {
    const response = await fetch(`${stack.identity.publicUrl}/self-service/login/browser`, { headers: { accept: 'application/json' } });
    const flow = (await response.json()) as { ui: { nodes: { group: string; attributes: { name?: string; value?: unknown } }[] } };
    const offered = flow.ui.nodes.filter((n) => n.group === 'oidc' && n.attributes.name === 'provider').map((n) => n.attributes.value);
    expect([...offered].sort()).toEqual([...PROVIDER_IDS].sort());
  });

  it.each(PROVIDER_IDS)('%s trusts the identity service’s callback URLs', async (id) => {
    const fake = stack.providers![id];
    const meta = (await (await fetch(`${fake.issuer}/.well-known/openid-configuration`)).json()) as { authorization_endpoint: string };
    for (const redirectUri of [
      `${stack.identity.publicUrl}/self-service/methods/oidc/callback/${id}`,
      `${stack.identity.publicUrl}/self-service/methods/oidc/callback`,
    ]) {
      const url = new URL(meta.authorization_endpoint);
      url.search = new URLSearchParams({
        client_id: fake.clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: 'openid email',
        state: 's',
        ...(id === 'apple' ? { response_mode: 'form_post' } : {}),
      }).toString();
      const back = await signInAtProvider(url.href, { email: 'ada@example.com' });
      expect(back.url.startsWith(redirectUri)).toBe(true);
    }
  });

  it('does not start them unless asked', async () => {
    const plain = await startStack();
    try {
      expect(plain.providers).toBeUndefined();
    } finally {
      await plain.close();
    }
  });
});
