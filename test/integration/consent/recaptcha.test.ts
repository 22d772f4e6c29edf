// reCAPTCHA v2 on sign-up (decision 170): the token is checked with siteverify (the local stand-in in
// embedded/captcha) before Kratos hears of the sign-up; a refusal is recaptcha_v2_validation_failed with
// its translated message and no identity; a good token goes on. Sign-in asks for it after repeated
// failures. On both identity targets.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startCaptchaStandIn, type CaptchaStandIn } from '../../../embedded/captcha/index.ts';
import { STRONG_PASSWORD, uniqueEmail, useIdentities } from '../../support/fixtures.ts';
import { alerts, Browser, formAction, hiddenValue, openSignIn, openSignUp } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';
import { catalogueText } from '../../support/browser.ts';

const SITE_KEY = 'stand-in-site-key';
const SECRET = 'stand-in-secret-key';
const REFUSED = 'We couldn’t confirm that you’re not a robot. Please try again.';

let captcha: CaptchaStandIn;
let stack: Stack;
beforeAll(async () => {
  captcha = await startCaptchaStandIn();
  stack = await startStack({
    env: { RECAPTCHA_SITE_KEY: SITE_KEY, RECAPTCHA_SECRET_KEY: SECRET, RECAPTCHA_VERIFY_URL: captcha.verifyUrl, RECAPTCHA_SCRIPT_URL: captcha.scriptUrl },
  });
});
afterAll(async () => {
  await stack?.close();
  await captcha?.close();
});
const identities = useIdentities(() => stack.identity.adminUrl);

/** The profile step of the (profile_first) registration: the credential screen, with the widget. */
async function credentialScreen(email: string) {
  const browser = new Browser(stack.appUrl);
  const { action, csrf } = await openSignUp(browser);
  const step = await browser.post(action, { csrf_token: csrf, 'traits.email': email, 'traits.name': 'Robo', method: 'profile', terms: 'on' });
  const page = await browser.follow(step.location!);
  return { browser, page, action: formAction(page.text, 'sign-up-form')!, csrf: hiddenValue(page.text, 'csrf_token')! };
}

const passwordStep = (email: string, csrf: string, extra: Record<string, string> = {}) => ({
  csrf_token: csrf,
  'traits.email': email,
  'traits.name': 'Robo',
  password: STRONG_PASSWORD,
  method: 'password',
  terms: 'on',
  ...extra,
});

async function identitiesWith(email: string): Promise<unknown[]> {
  const answer = await fetch(`${stack.identity.adminUrl}/admin/identities?credentials_identifier=${encodeURIComponent(email)}`);
  return (await answer.json()) as unknown[];
}

describe('sign-up with reCAPTCHA v2', () => {
  test('the credential step shows the widget, its JS-off fallback, and the CSP names the captcha origin', async () => {
    const { page } = await credentialScreen(uniqueEmail('captcha-widget'));
    expect(page.text).toContain(`<div class="g-recaptcha" data-sitekey="${SITE_KEY}"></div>`);
    // In the page's language (Google's `hl`), not the browser's.
    expect(page.text).toMatch(new RegExp(`<script nonce="[^"]+" src="${captcha.scriptUrl}\\?hl=en" async="" defer="">`));
    expect(page.text).toContain(`<iframe class="captcha__fallback-frame" src="${captcha.url}/recaptcha/api/fallback?k=${SITE_KEY}&amp;hl=en"`);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toMatch(new RegExp(`script-src [^;]*${captcha.url}`));
    expect(csp).toMatch(new RegExp(`frame-src [^;]*${captcha.url}`));
  });

  test('a failing token: the form again (400) with the translated message, and nothing reaches Kratos', async () => {
    const email = uniqueEmail('captcha-bad');
    identities.track(email);
    const { browser, action, csrf } = await credentialScreen(email);
    const before = captcha.verifications.length;
    const refused = await browser.post(action, passwordStep(email, csrf, { 'g-recaptcha-response': 'forged-token' }));
    expect(refused.status).toBe(400);
    expect(alerts(refused.text)).toContain(REFUSED);
    expect(captcha.verifications.slice(before)).toMatchObject([
      { secret: SECRET, response: 'forged-token', success: false, errorCodes: ['invalid-input-response'] },
    ]);
    const missing = await browser.post(action, passwordStep(email, csrf));
    expect(missing.status).toBe(400);
    expect(alerts(missing.text)).toContain(REFUSED);
    expect(await identitiesWith(email)).toEqual([]);
  });

  test('JSON callers get the code recaptcha_v2_validation_failed; a token used twice fails the second time', async () => {
    const email = uniqueEmail('captcha-json');
    identities.track(email);
    const { browser, action, csrf } = await credentialScreen(email);
    const token = captcha.issueToken();
    captcha.fail(true); // siteverify says no, whatever the token
    try {
      const refused = await browser.postJson(action, passwordStep(email, csrf, { 'g-recaptcha-response': token }));
      expect(refused.status).toBe(400);
      expect(JSON.parse(refused.text)).toMatchObject({ code: 'recaptcha_v2_validation_failed', message: REFUSED });
    } finally {
      captcha.fail(false);
    }
    expect(await identitiesWith(email)).toEqual([]);
  });

  test('a passing token: the sign-up goes on to verification', async () => {
    const email = uniqueEmail('captcha-good');
    identities.track(email);
    const { browser, action, csrf } = await credentialScreen(email);
    const done = await browser.post(action, passwordStep(email, csrf, { 'g-recaptcha-response': captcha.issueToken() }));
    expect(done.status).toBe(303);
    expect(done.location).toMatch(/^\/sign-up\/verification\?flow=/);
    expect(await identitiesWith(email)).toHaveLength(1);
    expect(captcha.verifications.at(-1)).toMatchObject({ success: true, remoteip: expect.any(String) });
  });

  test('the profile step is not checked (no account is made there)', async () => {
    const browser = new Browser(stack.appUrl);
    const { action, csrf, page } = await openSignUp(browser);
    expect(page.text).not.toContain('g-recaptcha');
    const step = await browser.post(action, {
      csrf_token: csrf,
      'traits.email': uniqueEmail('captcha-profile'),
      'traits.name': 'Robo',
      method: 'profile',
      terms: 'on',
    });
    expect(step.status).toBe(303);
  });
});

describe('sign-in after repeated failures (SIGN_IN_CAPTCHA_AFTER_FAILURES, default 3)', () => {
  test('the widget appears after the third failure; then a password sign-in without a good token never reaches Kratos, with one it does', async () => {
    const person = await identities.create({ name: 'Cap' });
    const browser = new Browser(stack.appUrl);
    const { page, action, csrf } = await openSignIn(browser);
    expect(page.text).not.toContain('g-recaptcha');
    const wrong = { csrf_token: csrf, identifier: person.email, password: 'Wrong-Password-123', method: 'password' };
    let last: { text: string; status: number } = page;
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      last = await browser.post(action, wrong);
      expect(last.status, `attempt ${attempt}`).toBe(400);
      expect(alerts(last.text)).not.toContain(REFUSED);
    }
    expect(last.text).toContain(`<div class="g-recaptcha" data-sitekey="${SITE_KEY}"></div>`);
    // Now even the right password needs the captcha: refused here, with no verification of the password.
    const right = { ...wrong, csrf_token: hiddenValue(last.text, 'csrf_token')!, password: STRONG_PASSWORD };
    const refused = await browser.post(action, right);
    expect(refused.status).toBe(400);
    expect(alerts(refused.text)).toContain(REFUSED);
    const done = await browser.post(action, { ...right, csrf_token: hiddenValue(refused.text, 'csrf_token')!, 'g-recaptcha-response': captcha.issueToken() });
    expect(done.status).toBe(303);
    // A success clears the count for this address and IP: the next visit has no widget.
    const fresh = await openSignIn(new Browser(stack.appUrl));
    expect(fresh.page.text).not.toContain('g-recaptcha');
  });

  test('the refusal says only why this post was refused: not also the last post\'s "incorrect password"', async () => {
    const person = await identities.create({ name: 'Stale' });
    const browser = new Browser(stack.appUrl);
    // Counted from an address of its own (TRUST_PROXY's default trusts the test's loopback proxy header).
    const from = { 'x-forwarded-for': '203.0.113.71' };
    let { action, csrf } = await openSignIn(browser);
    let last = { text: '', status: 0 };
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      last = await browser.post(action, { csrf_token: csrf, identifier: person.email, password: 'Wrong-Password-123', method: 'password' }, from);
      csrf = hiddenValue(last.text, 'csrf_token')!;
      action = formAction(last.text, 'sign-in-form')!;
    }
    expect(alerts(last.text)).toContain(catalogueText('en', 'errorMessage.incorrectEmailOrPassword'));
    const refused = await browser.post(action, { csrf_token: csrf, identifier: person.email, password: STRONG_PASSWORD, method: 'password' }, from);
    expect(refused.status).toBe(400);
    expect(alerts(refused.text)).toEqual([REFUSED]);
    const json = await browser.postJson(action, { csrf_token: csrf, identifier: person.email, password: STRONG_PASSWORD }, from);
    expect(JSON.parse(json.text)).toMatchObject({ code: 'recaptcha_v2_validation_failed', message: REFUSED });
    expect(JSON.parse(json.text).meta?.messageId).toBeUndefined();
    // On a flow that is gone too, the message still says what the code says (it said "this form was no longer available").
    const gone = await browser.postJson(
      '/sign-in?flow=00000000-1111-4222-8333-444444444442',
      { csrf_token: csrf, identifier: person.email, password: STRONG_PASSWORD },
      from,
    );
    expect(JSON.parse(gone.text)).toMatchObject({ code: 'recaptcha_v2_validation_failed', message: REFUSED });
  });

  test('JSON posts without `method` (a password sign-in by default) count towards the captcha like form posts', async () => {
    const person = await identities.create({ name: 'Jason' });
    const browser = new Browser(stack.appUrl);
    const { action, csrf } = await openSignIn(browser);
    const codes: string[] = [];
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      const answer = await browser.postJson(
        action,
        { csrf_token: csrf, identifier: person.email, password: 'Wrong-Password-123' },
        { 'x-forwarded-for': '203.0.113.72' },
      );
      codes.push(JSON.parse(answer.text).code);
    }
    expect(codes).toEqual(['incorrect_email_password', 'incorrect_email_password', 'incorrect_email_password', 'recaptcha_v2_validation_failed']);
  });
});
