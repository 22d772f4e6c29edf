import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, test } from 'vitest';
import { createI18n } from '../../../server/i18n.ts';
import {
  mapIdentityProviderError,
  messageAction,
  messageKey,
  messageParams,
  placeMessages,
  specCodeOf,
  translateMessage,
  type Translate,
} from '../../../core/kratos/messages.ts';
import type { KratosFlow } from '../../../core/kratos/types.ts';
import { AppError } from '../../../core/errors.ts';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../../fixtures/flows/${name}.json`, import.meta.url), 'utf8')) as KratosFlow;

let en: Translate;
let vi: Translate;
beforeAll(async () => {
  const i18n = await createI18n(['en', 'vi', 'fr', 'pt', 'es'], 'en');
  en = (key, params) => String(i18n.getFixedT('en')(key, params as never));
  vi = (key, params) => String(i18n.getFixedT('vi')(key, params as never));
});

const text = (id: number, context?: Record<string, unknown>) => ({ id, text: `kratos text ${id}`, type: 'error', ...(context ? { context } : {}) });

describe('spec §8 numeric mapping (one row each)', () => {
  test('4000006 → incorrect_email_password', () => {
    expect(specCodeOf(4000006)).toBe('incorrect_email_password');
    expect(messageKey(text(4000006))).toBe('errorMessage.incorrectEmailOrPassword');
    expect(translateMessage(en, text(4000006))).toBe('Incorrect email or password.');
  });

  test('4000010 → unactivated_account, with a path to resend verification', () => {
    expect(specCodeOf(4000010)).toBe('unactivated_account');
    expect(messageKey(text(4000010))).toBe('errorMessage.unVerifyAccount');
    expect(translateMessage(en, text(4000010))).toMatch(/isn’t verified/);
    expect(messageAction(text(4000010), 'a+b@example.com')).toEqual({
      href: '/sign-up/resend-verification-email?email=a%2Bb%40example.com',
      labelKey: 'authPage.resendVerificationEmail',
    });
    expect(messageAction(text(4000006))).toBeUndefined();
  });

  test('4000007 → email_exists', () => {
    expect(specCodeOf(4000007)).toBe('email_exists');
    expect(translateMessage(en, text(4000007))).toBe('An account with this email already exists.');
  });

  test('4000031 → similarity_password', () => {
    expect(specCodeOf(4000031)).toBe('similarity_password');
    expect(translateMessage(en, text(4000031))).toBe('This password is too similar to your email. Please choose a different one.');
  });

  test('4000034 → leaked_password', () => {
    expect(specCodeOf(4000034)).toBe('leaked_password');
    expect(translateMessage(en, text(4000034))).toBe('This password has appeared in a data breach. Please choose a different one.');
  });

  test('4070001 → already_verified', () => {
    expect(specCodeOf(4070001)).toBe('already_verified');
    expect(translateMessage(en, text(4070001))).toBe('This account is already verified. You can sign in now.');
  });

  test('other ids are not spec codes and use kratos.<id>', () => {
    expect(specCodeOf(4000002)).toBeUndefined();
    expect(messageKey(text(4000002))).toBe('kratos.4000002');
  });
});

describe('every Kratos message id translates', () => {
  test('kratos.<id> with its context as params, in every language', () => {
    const missing = text(4000002, { property: 'password' });
    const english = translateMessage(en, missing);
    expect(english).toContain('password');
    expect(english).not.toContain('{{');
    const vietnamese = translateMessage(vi, missing);
    expect(vietnamese).not.toBe(english);
    expect(vietnamese).not.toBe('kratos text 4000002');
  });

  test('expiry messages get `minutes` from expired_at', () => {
    const now = Date.parse('2026-07-30T10:20:00Z');
    const params = messageParams(text(4010001, { expired_at: '2026-07-30T10:10:00Z' }), now);
    expect(params.minutes).toBe(10);
  });

  test('an unknown id (a webhook message) falls back to Kratos’s own text', () => {
    expect(translateMessage(en, { id: 9_999_999, text: 'Custom hook says no', type: 'error' })).toBe('Custom hook says no');
  });
});

describe('field placement', () => {
  test('email_exists goes under the visible e-mail field, not to the form', () => {
    const placed = placeMessages(fixture('registration-unified-email-exists'));
    expect(placed.fields['traits.email']?.map((m) => m.id)).toEqual([4000007]);
    expect(placed.form).toEqual([]);
  });

  test('node messages stay under their node name', () => {
    const placed = placeMessages(fixture('registration-similar-password'));
    expect(placed.fields.password?.map((m) => m.id)).toEqual([4000031]);
    const missing = placeMessages(fixture('login-missing-password'));
    expect(missing.fields.password?.map((m) => m.id)).toEqual([4000002]);
  });

  test('the rest is form-level (wrong password; messages of hidden nodes)', () => {
    expect(placeMessages(fixture('login-wrong-password')).form.map((m) => m.id)).toEqual([4000006]);
    const step2 = fixture('registration-step2');
    step2.ui.nodes.find((n) => n.attributes.name === 'traits.email')!.messages = [text(4000040)];
    const placed = placeMessages(step2);
    expect(placed.form.map((m) => m.id)).toEqual([1040009, 4000040]);
    expect(placed.fields['traits.email']).toBeUndefined();
  });
});

describe('identity-provider errors by HTTP status (spec §8, one row each)', () => {
  test('400 with a flow: its first message and spec code, as a bad request', () => {
    const error = mapIdentityProviderError(400, fixture('login-wrong-password'), en);
    expect(error).toMatchObject({ status: 400, code: 'incorrect_email_password', message: 'Incorrect email or password.' });
    expect(error.meta).toMatchObject({ messageId: 4000006 });
  });

  test('400 with a raw error: its id as code and its message', () => {
    const error = mapIdentityProviderError(400, { error: { id: 'session_already_available', code: 400, reason: 'A valid session was detected' } }, en);
    expect(error).toMatchObject({ status: 400, code: 'session_already_available', message: 'You are already signed in.', meta: {} });
  });

  test('401 → code unauthorized, as every "not signed in" answer', () => {
    const error = mapIdentityProviderError(401, { error: { code: '401', message: 'The request could not be authorized' } }, en);
    expect(error).toBeInstanceOf(AppError);
    expect(error.toJSON()).toEqual({ code: 'unauthorized', message: 'Please sign in to continue.', meta: {} });
    expect(error.status).toBe(401);
  });

  test('403 → message from the reason, meta.errorCode = the error id', () => {
    const csrf = mapIdentityProviderError(403, { error: { id: 'security_csrf_violation', code: 403, reason: 'Please retry the flow' } }, en);
    expect(csrf).toMatchObject({ status: 403, code: 'security_csrf_violation', meta: { errorCode: 'security_csrf_violation' } });
    expect(csrf.message).toBe('Your form session has expired or was opened in another browser. Please try again.');
    const unknown = mapIdentityProviderError(403, { error: { id: 'some_new_id', code: 403, reason: 'A reason from Kratos' } }, en);
    expect(unknown).toMatchObject({ message: 'A reason from Kratos', meta: { errorCode: 'some_new_id' } });
  });

  test('422 browser_location_change_required → redirect_browser_to in meta', () => {
    const error = mapIdentityProviderError(
      422,
      { error: { id: 'browser_location_change_required', code: 422 }, redirect_browser_to: 'https://accounts.google.com/o/oauth2/v2/auth?x=1' },
      en,
    );
    expect(error).toMatchObject({
      status: 422,
      code: 'browser_location_change_required',
      meta: { redirect_browser_to: 'https://accounts.google.com/o/oauth2/v2/auth?x=1' },
    });
  });

  test('429 → too many requests', () => {
    expect(mapIdentityProviderError(429, {}, en)).toMatchObject({
      status: 429,
      code: '429',
      message: 'Too many attempts. Please wait a moment and try again.',
      meta: {},
    });
  });

  test('others → the reason, or “Something went wrong”', () => {
    expect(mapIdentityProviderError(500, { error: { code: '500', reason: 'database is down' } }, en)).toMatchObject({
      status: 500,
      code: '500',
      message: 'database is down',
    });
    expect(mapIdentityProviderError(502, undefined, en)).toMatchObject({ status: 502, message: 'Something went wrong. Please try again.' });
  });
});
