import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../server/config.ts';
import { isUserNavigation, kratosReturnTo, returnToOfFlow, socialErrorOf, socialRedirect, socialSignInShown } from '../../../server/flows/social.ts';
import { linkedDuringSignIn } from '../../../server/flows/account-link.ts';
import type { KratosSession } from '../../../core/kratos/types.ts';

const config = loadConfig({ PUBLIC_URL: 'https://accounts.example.com', ALLOWED_RETURN_URLS: 'https://docs.example.com/editor' });

/** A request carrying these headers, as Express's req.get reads them. */
const request = (headers: Record<string, string>) => ({ get: (name: string) => headers[name.toLowerCase()] }) as unknown as Request;
const NAVIGATION = { 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document', 'sec-fetch-site': 'cross-site', 'sec-fetch-user': '?1' };

describe('request_social_sign_in acts only for a navigation the user made (decision 110)', () => {
  it('a followed link from another site, the address bar, a link of ours: yes', () => {
    expect(isUserNavigation(request(NAVIGATION))).toBe(true);
    expect(isUserNavigation(request({ ...NAVIGATION, 'sec-fetch-site': 'none', 'sec-fetch-user': '?1' }))).toBe(true);
    expect(isUserNavigation(request({ ...NAVIGATION, 'sec-fetch-site': 'same-origin', 'sec-fetch-user': '?0' }))).toBe(true);
  });

  it('an image, a frame, a script, a redirect chain without user activation, or no Fetch Metadata: no', () => {
    expect(isUserNavigation(request({}))).toBe(false);
    expect(isUserNavigation(request({ ...NAVIGATION, 'sec-fetch-dest': 'image', 'sec-fetch-mode': 'no-cors' }))).toBe(false);
    expect(isUserNavigation(request({ ...NAVIGATION, 'sec-fetch-dest': 'iframe' }))).toBe(false);
    expect(isUserNavigation(request({ ...NAVIGATION, 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty' }))).toBe(false);
    expect(isUserNavigation(request({ ...NAVIGATION, 'sec-fetch-user': '?0' }))).toBe(false);
    expect(isUserNavigation(request({ ...NAVIGATION, 'sec-fetch-site': 'same-site', 'sec-fetch-user': '?0' }))).toBe(false);
  });
});

describe('return_to through Kratos', () => {
  it('Kratos gets our sign-in page carrying ours; none when there is none', () => {
    expect(kratosReturnTo(config, '/sign-in', '/profile-settings')).toBe('https://accounts.example.com/sign-in?return_to=%2Fprofile-settings');
    expect(kratosReturnTo(config, '/sign-in', undefined)).toBeUndefined();
  });

  it('read back from a flow: only from our own page, and through the allow-list again', () => {
    const via = (url: string) => returnToOfFlow({ return_to: url }, config);
    expect(via('https://accounts.example.com/sign-in?return_to=%2Fprofile-settings')).toBe('https://accounts.example.com/profile-settings');
    expect(via('https://accounts.example.com/sign-in?return_to=https%3A%2F%2Fdocs.example.com%2Feditor%2Fx')).toBe('https://docs.example.com/editor/x');
    expect(via('https://accounts.example.com/sign-in?return_to=https%3A%2F%2Fevil.example%2F')).toBeUndefined();
    expect(via('https://evil.example/sign-in?return_to=%2Fprofile-settings')).toBeUndefined();
    expect(via('not a url')).toBeUndefined();
    expect(returnToOfFlow({}, config)).toBeUndefined();
  });
});

describe('query parameters', () => {
  it('loginHint goes to Google only, and never twice', () => {
    expect(socialRedirect('https://accounts.google.com/o/oauth2/v2/auth?state=x', 'google', 'a@b.c')).toBe(
      'https://accounts.google.com/o/oauth2/v2/auth?state=x&login_hint=a%40b.c',
    );
    expect(socialRedirect('http://127.0.0.1:4601/o/oauth2/v2/auth?state=x', 'google', 'a@b.c')).toContain('login_hint=a%40b.c');
    expect(socialRedirect('https://login.microsoftonline.com/x?state=x', 'microsoft', 'a@b.c')).not.toContain('login_hint');
    expect(socialRedirect('https://accounts.google.com/auth?login_hint=z%40y.x', 'google', 'a@b.c')).toBe(
      'https://accounts.google.com/auth?login_hint=z%40y.x',
    );
  });

  it('social_sign_in_enabled: only false or 0 hides the buttons; social_error only from our list', () => {
    expect(socialSignInShown({ social_sign_in_enabled: 'false' })).toBe(false);
    expect(socialSignInShown({ social_sign_in_enabled: '0' })).toBe(false);
    expect(socialSignInShown({ social_sign_in_enabled: 'true' })).toBe(true);
    expect(socialSignInShown({})).toBe(true);
    expect(socialErrorOf({ social_error: 'unknownProvider' })).toBe('unknownProvider');
    expect(socialErrorOf({ social_error: '<script>' })).toBeUndefined();
  });
});

describe('a sign-in that linked a provider', () => {
  const session = (methods: string[]) => ({ id: 's', authentication_methods: methods.map((method) => ({ method })) }) as unknown as KratosSession;
  it('is a password sign-in whose session also completed oidc (Kratos’s maybeLinkCredentials)', () => {
    expect(linkedDuringSignIn(session(['password', 'oidc']))).toBe(true);
    expect(linkedDuringSignIn(session(['password']))).toBe(false);
    expect(linkedDuringSignIn(session(['oidc']))).toBe(false);
    expect(linkedDuringSignIn(undefined)).toBe(false);
  });
});
