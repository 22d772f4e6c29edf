import { describe, expect, test } from 'vitest';
import { echoedInput, flattenBody, parseBody, signInBody, signUpBody } from '../../../server/flows/schemas.ts';

describe('flattenBody', () => {
  test('nested JSON traits become the dotted names forms use', () => {
    expect(flattenBody({ traits: { email: 'a@b.c', name: 'Ada' }, csrf_token: 't' })).toEqual({
      'traits.email': 'a@b.c',
      'traits.name': 'Ada',
      csrf_token: 't',
    });
  });

  test('a name posted twice with the same value (hidden method + submit method) is one value', () => {
    expect(flattenBody({ method: ['code', 'code'], code: '123456' })).toEqual({ method: 'code', code: '123456' });
  });

  test('different repeated values stay an array, and the schema refuses them', () => {
    const body = { csrf_token: 't', identifier: ['a@b.c', 'x@y.z'], password: 'Long-enough-1' };
    expect(flattenBody(body).identifier).toEqual(['a@b.c', 'x@y.z']);
    expect(parseBody(signInBody, body).ok).toBe(false);
  });
});

describe('validation before Kratos (spec §5)', () => {
  const base = { csrf_token: 't', method: 'password', identifier: 'ada@example.com', password: 'Long-enough-1' };

  test('sign-in: e-mail ≤ 255, password 8–72, provider alone for social', () => {
    expect(parseBody(signInBody, base).ok).toBe(true);
    const long = parseBody(signInBody, { ...base, identifier: `${'a'.repeat(244)}@example.com` });
    expect(long).toEqual({ ok: false, fieldErrors: { identifier: ['validation.emailTooLong'] }, formErrors: [] });
    expect(parseBody(signInBody, { ...base, password: 'x'.repeat(7) })).toMatchObject({ fieldErrors: { password: ['validation.passwordTooShort'] } });
    expect(parseBody(signInBody, { ...base, password: 'x'.repeat(72) }).ok).toBe(true);
    expect(parseBody(signInBody, { ...base, password: 'x'.repeat(73) })).toMatchObject({ fieldErrors: { password: ['validation.passwordTooLong'] } });
    expect(parseBody(signInBody, { csrf_token: 't', provider: 'google' }).ok).toBe(true);
    expect(parseBody(signInBody, { csrf_token: 't', provider: '../evil' }).ok).toBe(false);
    expect(parseBody(signInBody, { identifier: 'a@b.c', password: 'Long-enough-1' })).toMatchObject({ fieldErrors: { csrf_token: ['validation.required'] } });
  });

  test('sign-up: name ≤ 32, terms required except for "Back"', () => {
    const signUp = { csrf_token: 't', method: 'profile', 'traits.email': 'ada@example.com', 'traits.name': 'N'.repeat(32), terms: 'on' };
    expect(parseBody(signUpBody, signUp).ok).toBe(true);
    expect(parseBody(signUpBody, { ...signUp, 'traits.name': 'N'.repeat(33) })).toMatchObject({ fieldErrors: { 'traits.name': ['validation.nameTooLong'] } });
    expect(parseBody(signUpBody, { ...signUp, terms: undefined })).toMatchObject({ fieldErrors: { terms: ['validation.termsRequired'] } });
    expect(parseBody(signUpBody, { ...signUp, terms: true }).ok).toBe(true);
    expect(parseBody(signUpBody, { csrf_token: 't', screen: 'previous', method: 'profile' }).ok).toBe(true);
    expect(parseBody(signUpBody, { ...signUp, method: 'password', password: 'short' })).toMatchObject({
      fieldErrors: { password: ['validation.passwordTooShort'] },
    });
  });

  test('echoedInput never returns secrets', () => {
    expect(echoedInput({ identifier: 'a@b.c', password: 'p', csrf_token: 't', _csrf: 'c', 'traits.name': 'Ada' })).toEqual({
      identifier: 'a@b.c',
      'traits.name': 'Ada',
    });
  });
});
