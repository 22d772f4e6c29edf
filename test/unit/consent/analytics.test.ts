// Analytics facts of core/analytics.ts (spec §3, §9): the GA4 40/100 and attribute 200 truncations,
// nothing personal in events, and the user-auth event cookie's shape.
import { describe, expect, test } from 'vitest';
import { analyticsAttributes, ga4Params, parseUserAuthEvent, safeParams, userAuthEventValue } from '../../../core/analytics.ts';

describe('truncations', () => {
  test('GA4: keys cut to 40 characters, string values to 100; numbers and booleans as they are', () => {
    const key = 'k'.repeat(41);
    const cut = ga4Params({ [key]: 'v'.repeat(101), short: 'ok', n: 12345678901234, yes: true, exact: 'x'.repeat(100), [`${'e'.repeat(40)}`]: 'y' });
    expect(Object.keys(cut)).toEqual(['k'.repeat(40), 'short', 'n', 'yes', 'exact', 'e'.repeat(40)]);
    expect(cut['k'.repeat(40)]).toBe('v'.repeat(100));
    expect(cut).toMatchObject({ short: 'ok', n: 12345678901234, yes: true, exact: 'x'.repeat(100) });
  });

  test('the analytics service: values cut to 200, keys kept whole', () => {
    const key = 'a'.repeat(60);
    const cut = analyticsAttributes({ [key]: 'v'.repeat(201), at200: 'w'.repeat(200), n: 3 });
    expect(cut).toEqual({ [key]: 'v'.repeat(200), at200: 'w'.repeat(200), n: 3 });
  });
});

describe('safeParams', () => {
  test('drops e-mail addresses, names, tokens and secrets, by key or by value', () => {
    expect(
      safeParams({
        method: 'password',
        email: 'a@b.c',
        userEmail: 'x',
        name: 'Ada',
        token: 't',
        idToken: 't',
        csrf_token: 'c',
        reason: '4000006',
        contact: 'ada@example.com',
        durationMs: 12,
      }),
    ).toEqual({ method: 'password', reason: '4000006', durationMs: 12 });
  });
});

describe('the user-auth event cookie', () => {
  test('JSON with method, clickedAt in epoch ms and url as origin plus path (no query, no hash), plus extras', () => {
    const value = userAuthEventValue('google', 1_767_000_000_000, 'https://accounts.example.com/sign-in?flow=abc&email=a%40b.c#x', { flow: 'sign_in' });
    expect(JSON.parse(value)).toEqual({ flow: 'sign_in', method: 'google', clickedAt: 1_767_000_000_000, url: 'https://accounts.example.com/sign-in' });
    expect(parseUserAuthEvent(value)).toEqual(JSON.parse(value));
  });

  test('extras never carry personal data; the method is at most 40 characters', () => {
    const value = JSON.parse(userAuthEventValue('m'.repeat(50), 1, 'http://localhost/sign-up', { email: 'a@b.c', flow: 'sign_up', hint: 'x@y.z' }));
    expect(value).toEqual({ flow: 'sign_up', method: 'm'.repeat(40), clickedAt: 1, url: 'http://localhost/sign-up' });
  });

  test('anything else reads as no cookie', () => {
    for (const raw of [undefined, '', 'not json', '{}', '{"method":"x","clickedAt":"1","url":"u"}', '{"method":1,"clickedAt":1,"url":"u"}', 'null'])
      expect(parseUserAuthEvent(raw), String(raw)).toBeNull();
  });
});
