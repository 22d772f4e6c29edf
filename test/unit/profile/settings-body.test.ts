import { describe, expect, it } from 'vitest';
import type { KratosFlow, UiNode } from '../../../core/kratos/types.ts';
import { settingsSubmitFrom } from '../../../server/routes/profile/settings-body.ts';

const node = (group: string, name: string, value?: string): UiNode => ({
  type: 'input',
  group,
  attributes: { node_type: 'input', name, type: group === 'oidc' ? 'submit' : 'text', value },
  messages: [],
  meta: {},
});

const flow: KratosFlow = {
  id: '11111111-2222-4333-8444-555555555555',
  ui: {
    action: 'https://kratos/self-service/settings?flow=x',
    method: 'POST',
    nodes: [
      node('default', 'csrf_token', 'k'),
      node('profile', 'traits.email'),
      node('profile', 'traits.name'),
      node('oidc', 'link', 'google'),
      node('oidc', 'unlink', 'apple'),
    ],
  },
  identity: {
    id: 'identity-1',
    traits: { email: 'ada@example.com', name: 'Ada', loginService: 'EMAIL_PASSWORD', avatarRemoteId: 'abc.png' },
  },
};

describe('settingsSubmitFrom', () => {
  it('profile: only the name changes; every other trait comes from the identity, never from the request', () => {
    const built = settingsSubmitFrom(
      {
        method: 'profile',
        csrf_token: 't',
        'traits.name': '  Ada L ',
        'traits.email': 'evil@example.com',
        'traits.loginService': 'GOOGLE',
        'traits.verified': 'true',
        traits: { state: 'inactive', email: 'evil2@example.com' },
        metadata_admin: { role: 'admin' },
        identity_id: 'someone-else',
        state: 'inactive',
      },
      flow,
    );
    expect(built).toEqual({
      ok: true,
      method: 'profile',
      body: {
        method: 'profile',
        csrf_token: 't',
        traits: { email: 'ada@example.com', name: 'Ada L', loginService: 'EMAIL_PASSWORD', avatarRemoteId: 'abc.png' },
      },
    });
  });

  it('profile from JSON (nested traits) reads only traits.name', () => {
    const built = settingsSubmitFrom({ method: 'profile', csrf_token: 't', traits: { name: 'Grace', email: 'x@y.z', verified: true } }, flow);
    expect(built.ok && built.body.traits).toEqual({ email: 'ada@example.com', name: 'Grace', loginService: 'EMAIL_PASSWORD', avatarRemoteId: 'abc.png' });
  });

  it('profile: an empty name removes it; a missing one or one over 32 characters is refused', () => {
    const cleared = settingsSubmitFrom({ method: 'profile', 'traits.name': ' ' }, flow);
    expect(cleared.ok && 'name' in (cleared.body.traits as object)).toBe(false);
    expect(settingsSubmitFrom({ method: 'profile' }, flow)).toEqual({ ok: false, method: 'profile', reason: 'missing_value' });
    expect(settingsSubmitFrom({ method: 'profile', 'traits.name': 'x'.repeat(33) }, flow)).toEqual({ ok: false, method: 'profile', reason: 'too_long' });
    expect(settingsSubmitFrom({ method: 'profile', 'traits.name': ['a', 'b'] }, flow)).toEqual({ ok: false, method: 'profile', reason: 'missing_value' });
  });

  it('password: only the password and the CSRF token go out', () => {
    expect(settingsSubmitFrom({ method: 'password', password: 'Secret-123', csrf_token: 't', traits: { email: 'x' } }, flow)).toEqual({
      ok: true,
      method: 'password',
      body: { method: 'password', password: 'Secret-123', csrf_token: 't' },
    });
    expect(settingsSubmitFrom({ method: 'password', password: '' }, flow)).toMatchObject({ ok: false, reason: 'missing_value' });
  });

  it('oidc: only providers the flow offers, for the action it offers; a link carries the account address as login_hint', () => {
    expect(settingsSubmitFrom({ link: 'google', csrf_token: 't', upstream_parameters: { login_hint: 'evil@example.com' } }, flow)).toEqual({
      ok: true,
      method: 'oidc',
      body: { method: 'oidc', link: 'google', csrf_token: 't', upstream_parameters: { login_hint: 'ada@example.com' } },
    });
    const noEmail = { ...flow, identity: { id: 'identity-2', traits: {} } };
    expect(settingsSubmitFrom({ link: 'google' }, noEmail)).toEqual({ ok: true, method: 'oidc', body: { method: 'oidc', link: 'google', csrf_token: '' } });
    expect(settingsSubmitFrom({ method: 'oidc', unlink: 'apple' }, flow)).toMatchObject({ ok: true, body: { unlink: 'apple' } });
    expect(settingsSubmitFrom({ method: 'oidc', unlink: 'google' }, flow)).toMatchObject({ ok: false, reason: 'unknown_provider' });
    expect(settingsSubmitFrom({ method: 'oidc', link: 'evil' }, flow)).toMatchObject({ ok: false, reason: 'unknown_provider' });
  });

  it('anything else is an unknown method', () => {
    expect(settingsSubmitFrom({ method: 'totp' }, flow)).toEqual({ ok: false, reason: 'unknown_method' });
    expect(settingsSubmitFrom({}, flow)).toEqual({ ok: false, reason: 'unknown_method' });
  });
});
