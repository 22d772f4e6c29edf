import { describe, expect, it } from 'vitest';
import type { UiContainer, UiNode } from '../../../core/kratos/types.ts';
import { accountFactsOf, passwordKindOf } from '../../../server/routes/profile/account-facts.ts';
import { linkFailureCode, linkFailureOf } from '../../../server/routes/profile/link-failures.ts';
import { linkedLoginsOf, providerName, providerOfIdentifier } from '../../../views/components/profile/linked-logins.ts';

const oidc = (name: 'link' | 'unlink', provider: string, label?: string): UiNode => ({
  type: 'input',
  group: 'oidc',
  attributes: { node_type: 'input', name, type: 'submit', value: provider },
  messages: [],
  meta: { label: { id: name === 'link' ? 1050002 : 1050003, type: 'info', text: `${name} ${label ?? provider}`, context: label ? { provider: label } : {} } },
});
const csrf: UiNode = {
  type: 'input',
  group: 'default',
  attributes: { node_type: 'input', name: 'csrf_token', type: 'hidden', value: 't' },
  messages: [],
  meta: {},
};
const ui = (...nodes: UiNode[]): UiContainer => ({ action: 'https://kratos/self-service/settings?flow=x', method: 'POST', nodes: [csrf, ...nodes] });

describe('linkedLoginsOf', () => {
  it('linked services (unlink offered) first, then the ones to link, each with Kratos’s label', () => {
    const logins = linkedLoginsOf(ui(oidc('link', 'google', 'Google'), oidc('unlink', 'microsoft', 'Microsoft'), oidc('link', 'apple')), ['microsoft']);
    expect(logins).toEqual([
      { provider: 'microsoft', label: 'Microsoft', linked: true, action: 'unlink' },
      { provider: 'google', label: 'Google', linked: false, action: 'link' },
      { provider: 'apple', label: undefined, linked: false, action: 'link' },
    ]);
  });

  it('a linked service Kratos offers no unlink for is the last way in (no unlink anywhere in the flow)', () => {
    const logins = linkedLoginsOf(ui(oidc('link', 'microsoft'), oidc('link', 'dropbox')), ['google']);
    expect(logins[0]).toEqual({ provider: 'google', linked: true, action: 'lastWayIn' });
    expect(logins.map((login) => login.action)).toEqual(['lastWayIn', 'link', 'link']);
  });

  it('with other unlink buttons present, a linked provider without one is no longer configured: not listed', () => {
    const logins = linkedLoginsOf(ui(oidc('unlink', 'google'), oidc('unlink', 'microsoft')), ['google', 'microsoft', 'retired-idp']);
    expect(logins.map((login) => login.provider)).toEqual(['google', 'microsoft']);
  });

  it('without the credentials (admin API unavailable) the flow alone decides', () => {
    expect(linkedLoginsOf(ui(oidc('link', 'google')), undefined)).toEqual([{ provider: 'google', label: undefined, linked: false, action: 'link' }]);
    expect(linkedLoginsOf(ui(), undefined)).toEqual([]);
  });

  it('reads the provider of an oidc identifier', () => {
    expect(providerOfIdentifier('google:1001')).toBe('google');
    expect(providerOfIdentifier('dropbox:dbid:AAH1001')).toBe('dropbox');
    expect(providerOfIdentifier('nocolon')).toBeUndefined();
  });

  it('names a provider by our translation, else Kratos’s label, else its id', () => {
    const t = (key: string) => (key === 'profile.linkedLogins.provider.google' ? 'Google' : key);
    expect(providerName(t, 'google', 'Ignored')).toBe('Google');
    expect(providerName(t, 'acme', 'ACME ID')).toBe('ACME ID');
    expect(providerName(t, 'acme')).toBe('Acme');
  });
});

describe('account facts and the password kind (spec §3)', () => {
  it('reads the password credential, the linked providers and the recorded change', () => {
    const facts = accountFactsOf({
      credentials: {
        password: { identifiers: ['ada@example.com'], config: { hashed_password: '$argon2id$v=19$m=1024,t=1,p=1$c2FsdA$aGFzaA' } },
        oidc: { identifiers: ['google:1', 'microsoft:2', 'google:3'] },
      },
      metadata_public: { passwordChangedAt: '2026-01-02T03:04:05.000Z' },
    });
    expect(facts).toEqual({ hasPassword: true, linkedProviders: ['google', 'microsoft'], passwordChangedAt: '2026-01-02T03:04:05.000Z' });
    expect(accountFactsOf({ credentials: { oidc: { identifiers: ['apple:x'] } }, metadata_public: { passwordChangedAt: 'not a date' } })).toEqual({
      hasPassword: false,
      linkedProviders: ['apple'],
      passwordChangedAt: undefined,
    });
    expect(accountFactsOf({ credentials: { password: { identifiers: [], config: { hashed_password: 'x' } } } }).hasPassword).toBe(false);
    // Kratos gives a social-only identity an empty password credential (the schema's identifier): no password.
    expect(accountFactsOf({ credentials: { password: { identifiers: ['ada@example.com'], config: {} } } }).hasPassword).toBe(false);
    // The facts keep no trace of the hash.
    expect(JSON.stringify(facts)).not.toContain('argon2');
  });

  it('decides the kind: no password → changeLoginService; a recorded change → changedPassword; else default', () => {
    expect(passwordKindOf({ hasPassword: false, linkedProviders: ['google'] }, 'GOOGLE')).toBe('changeLoginService');
    expect(passwordKindOf({ hasPassword: true, linkedProviders: ['google'] }, 'GOOGLE')).toBe('default');
    expect(passwordKindOf({ hasPassword: true, linkedProviders: [], passwordChangedAt: '2026-01-02T03:04:05.000Z' }, 'EMAIL_PASSWORD')).toBe('changedPassword');
  });

  it('without facts, the sign-up service decides', () => {
    expect(passwordKindOf(null, 'MICROSOFT')).toBe('changeLoginService');
    expect(passwordKindOf(null, 'EMAIL_PASSWORD')).toBe('default');
    expect(passwordKindOf(null, undefined)).toBe('default');
  });
});

describe('linkFailureOf', () => {
  const text = (t: string, id = 4000001) => ({ id, text: t });
  it('reads Kratos’s texts (v1.3.1 strategy_settings.go; the callback’s through core/kratos/social.ts)', () => {
    expect(linkFailureOf(text('Unable to complete OpenID Connect flow because the OpenID Provider returned error "access_denied": user cancelled'))).toBe(
      'cancelled',
    );
    expect(linkFailureOf(text('Unable to complete OpenID Connect flow because the OpenID Provider returned error "server_error": boom'))).toBe('providerError');
    expect(linkFailureOf(text('can not unlink OpenID Connect connection because it is the last remaining first factor credential'))).toBe('lastWayIn');
    expect(linkFailureOf(text('can not link unknown or already existing OpenID Connect connection'))).toBe('notLinkable');
    expect(linkFailureOf(text('can not unlink non-existing OpenID Connect connection'))).toBe('notLinked');
    expect(
      linkFailureOf(
        text('Unable to complete OpenID Connect flow because the query state parameter does not match the state parameter from the session cookie.'),
      ),
    ).toBe('interrupted');
    expect(linkFailureOf(text('Unable to complete OpenID Connect flow because the state parameter is invalid.'))).toBe('interrupted');
    expect(linkFailureOf(text('An account with the same identifier (email, phone, username, ...) exists already.', 4000007))).toBe('alreadyLinkedElsewhere');
    expect(linkFailureOf(text('The request was made from a browser that does not contain the necessary cookie to resume the session.'))).toBe('interrupted');
    expect(
      linkFailureOf({
        id: 4000001,
        text: 'x',
        context: { reason: 'Unable to complete OpenID Connect flow because the OpenID Provider did not return the code query parameter.' },
      }),
    ).toBe('interrupted');
    expect(linkFailureOf(text('something new'))).toBe('failed');
  });

  it('names each failure for JSON', () => {
    expect(linkFailureCode('alreadyLinkedElsewhere')).toBe('link_already_linked_elsewhere');
    expect(linkFailureCode('cancelled')).toBe('link_cancelled');
  });
});
