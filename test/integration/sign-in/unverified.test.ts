// Sign-in needs a verified address (require_verified_address, decision 090): an unverified account gets
// Kratos's 4000010 on the sign-in page, translated, with a plain link to resend the verification e-mail
// (no JavaScript needed), and no session. After verifying, the same sign-in works.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { configureRateLimits, resetRateLimitSettings } from '../../../server/security/rate-limit.ts';
import { latestCode, signIn, STRONG_PASSWORD, uniqueEmail, useIdentities } from '../../support/fixtures.ts';
import { Browser, formAction, hiddenValue, openSignIn, visibleText } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';

const LANGUAGES = ['en', 'es', 'fr', 'pt', 'vi'] as const;

/** A key of locales/<lng>/common.json, e.g. errorMessage.unVerifyAccount. */
function catalogue(lng: string, key: string): string {
  const tree = JSON.parse(readFileSync(new URL(`../../../locales/${lng}/common.json`, import.meta.url), 'utf8')) as Record<string, unknown>;
  return key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], tree) as string;
}

let stack: Stack;
beforeAll(async () => {
  // Several sign-ins per address: not what the limiter is being tested for here.
  configureRateLimits({ 'sign-in': { perIp: 10_000, perEmail: 10_000 }, resend: { perIp: 10_000, perEmail: 10_000 } });
  stack = await startStack();
});
afterAll(async () => {
  resetRateLimitSettings();
  await stack?.close();
});
const identities = useIdentities(() => stack.identity.adminUrl);

describe('an unverified account signing in', () => {
  test('plain form post: 400, 4000010 translated in every language, a link to resend verification, no session', async () => {
    const { email } = await identities.create({ prefix: 'unverified', verified: false });
    for (const lng of LANGUAGES) {
      const browser = new Browser(stack.appUrl);
      browser.cookies.set('lng', lng);
      const answer = await signIn(browser, email);
      expect(answer.status, lng).toBe(400);
      expect(answer.text).toContain('data-message-id="4000010"');
      const text = visibleText(answer.text);
      expect(text, lng).toContain(catalogue(lng, 'errorMessage.unVerifyAccount'));
      expect(text, lng).toContain(catalogue(lng, 'authPage.resendVerificationEmail'));
      expect(answer.text).toContain(`href="/sign-up/resend-verification-email?email=${encodeURIComponent(email)}"`);
      expect(answer.setCookies.some((line) => line.startsWith('ory_kratos_session='))).toBe(false);
      // The form is still there to try again.
      expect(formAction(answer.text, 'sign-in-form')).toBeTruthy();
      expect(hiddenValue(answer.text, 'csrf_token')).toBeTruthy();
    }
  });

  test('JSON: 400 unactivated_account with the translated message; the link leads to a resend form that works without JavaScript', async () => {
    const { email } = await identities.create({ prefix: 'unverified.json', verified: false });
    const browser = new Browser(stack.appUrl);
    const { action, csrf } = await openSignIn(browser);
    const answer = await browser.postJson(action, { csrf_token: csrf, identifier: email, password: STRONG_PASSWORD });
    expect(answer.status).toBe(400);
    const body = JSON.parse(answer.text) as { code: string; message: string; meta: Record<string, unknown> };
    expect(body.code).toBe('unactivated_account');
    expect(body.message).toBe(catalogue('en', 'errorMessage.unVerifyAccount'));
    expect(answer.setCookies.some((line) => line.startsWith('ory_kratos_session='))).toBe(false);

    // The resend link of the page: a plain form with the address filled in.
    const resend = await browser.follow(`/sign-up/resend-verification-email?email=${encodeURIComponent(email)}`);
    expect(resend.status).toBe(200);
    expect(resend.text).toContain(`value="${email}"`);
    const sent = await browser.post(formAction(resend.text, 'resend-verification-form') ?? resend.url, {
      csrf_token: hiddenValue(resend.text, 'csrf_token')!,
      email,
      method: 'code',
    });
    expect(sent.status).toBe(303);
    expect(sent.location).toMatch(/^\/sign-up\/verification\?flow=/);
  });

  test('after verifying with the mailed code, the same account signs in', async () => {
    const email = uniqueEmail('verify-then-sign-in');
    await identities.create({ email, verified: false });
    const browser = new Browser(stack.appUrl);
    expect((await signIn(browser, email)).status).toBe(400);

    const resend = await browser.follow(`/sign-up/resend-verification-email?email=${encodeURIComponent(email)}`);
    const sent = await browser.post(formAction(resend.text, 'resend-verification-form') ?? resend.url, {
      csrf_token: hiddenValue(resend.text, 'csrf_token')!,
      email,
      method: 'code',
    });
    const page = await browser.follow(sent.location!);
    const verified = await browser.post(formAction(page.text, 'verification-form') ?? page.url, {
      csrf_token: hiddenValue(page.text, 'csrf_token')!,
      code: await latestCode(stack.identity.adminUrl, email, 'verification'),
      method: 'code',
    });
    expect(verified.status).toBeLessThan(400);

    const answer = await signIn(browser, email);
    expect(answer.status).toBe(303);
    expect(answer.setCookies.some((line) => line.startsWith('ory_kratos_session='))).toBe(true);
  });
});
