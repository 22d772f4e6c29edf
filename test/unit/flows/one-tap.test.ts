import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../server/config.ts';
import {
  doubleSubmitHolds,
  G_CSRF_COOKIE,
  isCredentialShaped,
  issuedNonce,
  MAX_CREDENTIAL_LENGTH,
  nonceCookieName,
  offerCookies,
  screenOfFlow,
  unverifiedClaims,
} from '../../../server/flows/one-tap.ts';
import { oneTapSources } from '../../../server/security/headers.ts';
import type { KratosFlow } from '../../../core/kratos/types.ts';

const config = loadConfig({ NODE_ENV: 'test', GOOGLE_CLIENT_ID: 'client' });
const production = { ...config, isProduction: true };

type SetCookie = { name: string; value: string; options: Record<string, unknown> };

/** A request with these cookies and a response that records what it sets. */
function exchange(cookies: Record<string, string> = {}) {
  const set: SetCookie[] = [];
  const req = { cookies } as unknown as Request;
  const res = { cookie: (name: string, value: string, options: Record<string, unknown>) => set.push({ name, value, options }) } as unknown as Response;
  return { req, res, set };
}

/** The browser's next request: the cookies it was given. */
const carry = (set: SetCookie[], extra: Record<string, string> = {}) => ({ ...Object.fromEntries(set.map((c) => [c.name, c.value])), ...extra });

describe('One Tap offer cookies', () => {
  it('issues a signed, HttpOnly nonce and a double-submit token, then reuses both', () => {
    const first = exchange();
    const offer = offerCookies(first.req, first.res, config);
    expect(offer.nonce).toMatch(/^[\w-]{43}$/);
    expect(offer.csrfToken).toMatch(/^[\w-]{43}$/);
    const nonceCookie = first.set.find((c) => c.name === 'one_tap_nonce')!;
    expect(nonceCookie.options).toMatchObject({ httpOnly: true, sameSite: 'lax', path: '/' });
    expect(nonceCookie.value.startsWith(`${offer.nonce}.`)).toBe(true);
    const tokenCookie = first.set.find((c) => c.name === G_CSRF_COOKIE)!;
    expect(tokenCookie.value).toBe(offer.csrfToken);
    expect(tokenCookie.options.httpOnly).toBeUndefined(); // Google's library writes it too

    const second = exchange(carry(first.set));
    expect(offerCookies(second.req, second.res, config)).toEqual(offer);
    expect(second.set).toEqual([]);
    expect(issuedNonce(second.req, config)).toBe(offer.nonce);
  });

  it('refuses a nonce cookie that was altered, signed with another secret, or has expired', () => {
    const given = exchange();
    offerCookies(given.req, given.res, config);
    const value = given.set.find((c) => c.name === 'one_tap_nonce')!.value;
    const [nonce, expires, signature] = value.split('.');
    const forged = `${'A'.repeat(43)}.${expires}.${signature}`;
    const longer = `${nonce}.${Number(expires) + 86_400_000}.${signature}`;
    for (const cookie of [forged, longer, `${nonce}.${expires}.`, 'garbage'])
      expect(issuedNonce(exchange({ one_tap_nonce: cookie }).req, config), cookie).toBeUndefined();
    const otherSecret = { ...config, SESSION_SECRET: 'another-secret-of-at-least-32-characters!' };
    expect(issuedNonce(exchange({ one_tap_nonce: value }).req, otherSecret)).toBeUndefined();
    expect(issuedNonce(exchange({ one_tap_nonce: value }).req, config)).toBe(nonce);
  });

  it('renews a nonce close to its end, so an offer always has minutes to live', () => {
    const given = exchange();
    offerCookies(given.req, given.res, config);
    const real = Date.now;
    try {
      Date.now = () => real() + 26 * 60 * 1000; // 4 of its 30 minutes left
      const later = exchange(carry(given.set));
      const renewed = offerCookies(later.req, later.res, config);
      expect(later.set.map((c) => c.name)).toEqual(['one_tap_nonce']);
      expect(renewed.nonce).not.toBe(issuedNonce(given.req, config));
    } finally {
      Date.now = real;
    }
  });

  it('uses the __Host- name in production', () => {
    expect(nonceCookieName(production)).toBe('__Host-one_tap_nonce');
    const given = exchange();
    offerCookies(given.req, given.res, production);
    expect(given.set.find((c) => c.name === '__Host-one_tap_nonce')?.options).toMatchObject({ secure: true, path: '/' });
    expect(given.set.find((c) => c.name === G_CSRF_COOKIE)?.options).toMatchObject({ secure: true });
  });
});

describe('the double-submit check', () => {
  const token = 'b'.repeat(43);
  it('holds only with the cookie present and the same value posted', () => {
    expect(doubleSubmitHolds(exchange({ g_csrf_token: token }).req, token)).toBe(true);
    expect(doubleSubmitHolds(exchange({ g_csrf_token: token }).req, 'c'.repeat(43))).toBe(false);
    expect(doubleSubmitHolds(exchange({ g_csrf_token: token }).req, undefined)).toBe(false);
    expect(doubleSubmitHolds(exchange({}).req, token)).toBe(false);
    expect(doubleSubmitHolds(exchange({ g_csrf_token: '' }).req, '')).toBe(false);
  });
});

describe('credentials', () => {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const token = `${part({ alg: 'RS256' })}.${part({ email: 'ada@example.com', exp: 1_900_000_000, nonce: 'n-1', sub: '1' })}.c2ln`;

  it('are JWT-shaped and short enough for a cookie', () => {
    expect(isCredentialShaped(token)).toBe(true);
    for (const bad of ['', 'a.b', 'a.b.c.d', 'a b.c.d', `${'a'.repeat(MAX_CREDENTIAL_LENGTH)}.b.c`, 42, undefined])
      expect(isCredentialShaped(bad), String(bad)).toBe(false);
  });

  it('show their e-mail, expiry and nonce without being verified (display only), and nothing for garbage', () => {
    expect(unverifiedClaims(token)).toEqual({ email: 'ada@example.com', exp: 1_900_000_000, nonce: 'n-1' });
    expect(unverifiedClaims('a.b.c')).toBeUndefined();
  });
});

describe('the flow Kratos answered with', () => {
  const flow = (action: string) => ({ id: 'x', ui: { action, method: 'POST', nodes: [] } }) as unknown as KratosFlow;
  it('goes to sign-up for a registration, to sign-in otherwise (the account-linking login flow)', () => {
    expect(screenOfFlow(flow('http://127.0.0.1:4433/self-service/registration?flow=x'))).toBe('/sign-up');
    expect(screenOfFlow(flow('http://127.0.0.1:4433/self-service/login?flow=x'))).toBe('/sign-in');
  });
});

describe('the CSP sources of One Tap', () => {
  it('are the script’s origin while a client id is set, nothing otherwise', () => {
    expect(oneTapSources({ GOOGLE_CLIENT_ID: 'client', GOOGLE_GSI_SCRIPT_URL: 'https://accounts.google.com/gsi/client' })).toEqual([
      'https://accounts.google.com',
    ]);
    expect(oneTapSources({ GOOGLE_CLIENT_ID: '', GOOGLE_GSI_SCRIPT_URL: 'https://accounts.google.com/gsi/client' })).toEqual([]);
    expect(loadConfig({}).GOOGLE_GSI_SCRIPT_URL).toBe('https://accounts.google.com/gsi/client');
    expect(() => loadConfig({ GOOGLE_GSI_SCRIPT_URL: 'accounts.google.com/gsi/client' })).toThrow(/GOOGLE_GSI_SCRIPT_URL/);
  });
});
