import { describe, expect, it } from 'vitest';
import { mapIdentityProviderError, translateMessage } from '../../../core/kratos/messages.ts';
import { knownProvider, loginServiceOf, SOCIAL_FAILURE_KEYS, SOCIAL_FAILURES, socialFailureOf, socialFailureOfMessage } from '../../../core/kratos/social.ts';

// Kratos v1.3.1's own texts (selfservice/strategy/oidc, continuity/manager_cookie.go): contract §1.3 rows first.
const REASONS: readonly (readonly [string, string])[] = [
  ['Unable to complete OpenID Connect flow because the OpenID Provider did not return the state query parameter.', 'stateMissing'],
  ['Unable to complete OpenID Connect flow because the state parameter is invalid.', 'stateInvalid'],
  ['Unable to complete OpenID Connect flow: provider mismatch between internal state and URL.', 'providerMismatch'],
  ['Unable to complete OpenID Connect flow: provider could not be retrieved from state nor URL.', 'stateInvalid'],
  ['The session cookie contains invalid values and the flow could not be executed. Please try again.', 'stateInvalid'],
  [
    "The browser does not contain the necessary cookie to resume the session. This is a security violation and was blocked. Please clear your browser's cookies and cache and try again!",
    'continuityMissing',
  ],
  ['Unable to complete OpenID Connect flow because the query state parameter does not match the state parameter from the session cookie.', 'stateMismatch'],
  ['Unable to complete OpenID Connect flow because the OpenID Provider returned error "access_denied": user cancelled', 'cancelled'],
  ['Unable to complete OpenID Connect flow because the OpenID Provider returned error "server_error": boom', 'providerError'],
  ['Unable to complete OpenID Connect flow because the OpenID Provider did not return the code query parameter.', 'codeMissing'],
  ['OpenID Connect Provider "github" is unknown or has not been configured', 'unknownProvider'],
  ['Could not verify id_token', 'idTokenInvalid'],
  ['The id_token claims were invalid', 'idTokenInvalid'],
  ['oidc: id token issued by a different provider, expected "https://a" got "https://b"', 'idTokenInvalid'],
  ['No nonce was included in the id_token but is required by the provider', 'nonceMismatch'],
  ['The supplied nonce does not match the nonce from the id_token', 'nonceMismatch'],
  ['Unable to initialize OpenID Connect Provider: Get "http://127.0.0.1:1/.well-known/openid-configuration": dial tcp', 'providerUnavailable'],
  ['oauth2: "invalid_grant" "grant request is invalid"', 'exchangeFailed'],
];

const t = (key: string, params?: Record<string, unknown>) => (key.startsWith('social.') ? `«${key}»` : params?.reason ? String(params.reason) : key);

describe('social sign-in failures (core/kratos/social.ts)', () => {
  it.each(REASONS)('%s → %s', (reason, failure) => {
    expect(socialFailureOf(reason)).toBe(failure);
  });

  it('leave every other text alone', () => {
    for (const text of [
      'The provided credentials are invalid, check for spelling mistakes in your password or username, email address, or phone number.',
      '',
      undefined,
      42,
    ]) {
      expect(socialFailureOf(text)).toBeUndefined();
    }
  });

  it('each failure has its translation key', () => {
    for (const failure of SOCIAL_FAILURES) expect(SOCIAL_FAILURE_KEYS[failure]).toBe(`social.error.${failure}`);
  });

  it('a flow message 4000001 carrying the reason is translated as ours; other ids are not read', () => {
    const cancelled = { id: 4000001, type: 'error', text: REASONS[7]![0], context: { reason: REASONS[7]![0] } };
    expect(socialFailureOfMessage(cancelled)).toBe('cancelled');
    expect(translateMessage(t, cancelled)).toBe('«social.error.cancelled»');
    expect(socialFailureOfMessage({ ...cancelled, id: 4000006 })).toBeUndefined();
    // 4000001 with another reason keeps Kratos's reason (the catalogue's {{reason}}).
    expect(translateMessage(t, { id: 4000001, type: 'error', text: 'x', context: { reason: 'length must be <= 32' } })).toBe('length must be <= 32');
  });

  it('an error answer with an OIDC reason becomes our text with a 4xx, even where Kratos says 500', () => {
    const badToken = mapIdentityProviderError(500, { error: { code: 500, reason: 'Could not verify id_token' } }, t);
    expect(badToken.status).toBe(400);
    expect(badToken.message).toBe('«social.error.idTokenInvalid»');
    expect(badToken.meta.socialFailure).toBe('idTokenInvalid');
    const unknown = mapIdentityProviderError(404, { error: { code: 404, reason: REASONS[10]![0] } }, t);
    expect(unknown.status).toBe(404);
    expect(unknown.message).toBe('«social.error.unknownProvider»');
    // A redirect that quotes a URL with "nonce" in it stays a redirect.
    const redirect = mapIdentityProviderError(
      422,
      {
        error: { id: 'browser_location_change_required', reason: 'redirect to https://p.example/auth?nonce=1' },
        redirect_browser_to: 'https://p.example/auth?nonce=1',
      },
      t,
    );
    expect(redirect.status).toBe(422);
  });

  it('providers and login services (spec §3)', () => {
    expect(knownProvider('Google')).toBe('google');
    expect(knownProvider(' APPLE ')).toBe('apple');
    expect(knownProvider('github')).toBeUndefined();
    expect(loginServiceOf('password')).toBe('EMAIL_PASSWORD');
    expect(loginServiceOf('dropbox')).toBe('DROPBOX');
    expect(loginServiceOf('github')).toBe('UNKNOWN');
  });
});
