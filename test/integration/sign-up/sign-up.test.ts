import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { STRONG_PASSWORD, uniqueEmail, useIdentities } from '../../support/fixtures.ts';
import { alerts, barAddress, Browser, fieldError, formAction, hiddenValue, openSignUp } from '../../support/http.ts';
import { standInOnly, startStack, type Stack } from '../../support/stack.ts';

/** The "go to sign in" link shown when the e-mail has an account, decoded; undefined when there is none. */
function signInExistingHref(html: string): string | undefined {
  const href = /<a (?=[^>]*data-link="sign-in-existing")[^>]*href="([^"]*)"/.exec(html)?.[1];
  return href?.replaceAll('&amp;', '&');
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());
const identities = useIdentities(() => stack.identity.adminUrl);

/** Step 1 of the default (profile_first) registration; returns the credential screen. */
async function profileStep(browser: Browser, email: string, name = 'Ada') {
  const { action, csrf } = await openSignUp(browser);
  const step = await browser.post(action, { csrf_token: csrf, 'traits.email': email, 'traits.name': name, method: 'profile', terms: 'on' });
  expect(step.status).toBe(303);
  const credential = await browser.follow(step.location!);
  expect(credential.status).toBe(200);
  return credential;
}

describe('GET /sign-up', () => {
  test('creates a registration flow and shows e-mail, name, the terms and no internal traits', async () => {
    const browser = new Browser(stack.appUrl);
    const page = await browser.get('/sign-up?return_to=%2Fprofile-settings&email=new%40example.com');
    expect(page.status).toBe(200);
    const action = formAction(page.text, 'sign-up-form');
    expect(action).toMatch(new RegExp(`^/sign-up\\?flow=${UUID.source}&return_to=%2Fprofile-settings&email=new%40example.com$`));
    expect(barAddress(page.text)).toBe(action);
    expect(page.text).toContain('name="traits.email"');
    expect(page.text).toContain('value="new@example.com"');
    expect(page.text).toContain('name="traits.name"');
    expect(page.text).toContain('name="terms"');
    expect(page.text).not.toContain('traits.loginService');
    expect(page.text).not.toContain('traits.avatarRemoteId');
    expect(page.text).toContain('Terms of Use');
    expect(page.text).toMatch(/href="\/sign-in\?return_to=%2Fprofile-settings[^"]*" data-link="sign-in"/);
  });
});

describe('POST /sign-up', () => {
  test('two steps, then the verification screen with the flow from continue_with', async () => {
    const browser = new Browser(stack.appUrl);
    const email = uniqueEmail('signup');
    const credential = await profileStep(browser, email);
    expect(credential.text).toContain('name="password"');
    expect(hiddenValue(credential.text, 'traits.email')).toBe(email);
    expect(hiddenValue(credential.text, 'terms')).toBe('on');
    const action = formAction(credential.text, 'sign-up-form')!;
    const done = await browser.post(action, {
      csrf_token: hiddenValue(credential.text, 'csrf_token')!,
      'traits.email': email,
      'traits.name': 'Ada',
      password: STRONG_PASSWORD,
      method: 'password',
      terms: 'on',
    });
    expect(done.status).toBe(303);
    expect(done.location).toMatch(new RegExp(`^/sign-up/verification\\?flow=${UUID.source}`));
    // Kratos sent the verification code to the new address.
    const mail = await fetch(`${stack.identity.adminUrl}/admin/courier/messages?recipient=${encodeURIComponent(email)}`).then((r) => r.json());
    expect(Array.isArray(mail) && mail.length).toBeGreaterThan(0);
  });

  test('"Back" on the credential screen returns to the profile step with the values kept', async () => {
    const browser = new Browser(stack.appUrl);
    const email = uniqueEmail('back');
    const credential = await profileStep(browser, email, 'Grace');
    const back = await browser.post(formAction(credential.text, 'sign-up-form')!, {
      csrf_token: hiddenValue(credential.text, 'csrf_token')!,
      'traits.email': email,
      'traits.name': 'Grace',
      screen: 'previous',
      method: 'profile',
      terms: 'on',
    });
    expect(back.status).toBe(303);
    const page = await browser.follow(back.location!);
    expect(page.text).toMatch(/type="email"[^>]*value="[^"]+"|value="[^"]+"[^>]*type="email"/);
    expect(page.text).toContain(`value="${email}"`);
    expect(page.text).toContain('name="terms"');
  });

  test('terms not accepted: 400 with the translated message under the checkbox', async () => {
    const browser = new Browser(stack.appUrl);
    const { action, csrf } = await openSignUp(browser);
    const answer = await browser.post(action, { csrf_token: csrf, 'traits.email': uniqueEmail(), 'traits.name': 'Ada', method: 'profile' });
    expect(answer.status).toBe(400);
    expect(fieldError(answer.text, 'field-terms')).toBe('Please accept the Terms of Use and the Privacy Policy to continue.');
  });

  test('validation before Kratos: e-mail shape and length, name over 32', async () => {
    const browser = new Browser(stack.appUrl);
    const { action, csrf } = await openSignUp(browser);
    const answer = await browser.post(action, {
      csrf_token: csrf,
      'traits.email': 'not-an-email',
      'traits.name': 'N'.repeat(33),
      method: 'profile',
      terms: 'on',
    });
    expect(answer.status).toBe(400);
    expect(fieldError(answer.text, 'field-traits-email')).toBe('Enter a valid email address.');
    expect(fieldError(answer.text, 'field-traits-name')).toBe('The name must be at most 32 characters.');
    expect(answer.text).toContain('value="not-an-email"');
  });

  test('email_exists (4000007) is shown under the e-mail field', async () => {
    const email = uniqueEmail('exists');
    await identities.create({ email });
    const browser = new Browser(stack.appUrl);
    const credential = await profileStep(browser, email);
    const answer = await browser.post(formAction(credential.text, 'sign-up-form')!, {
      csrf_token: hiddenValue(credential.text, 'csrf_token')!,
      'traits.email': email,
      password: STRONG_PASSWORD,
      method: 'password',
      terms: 'on',
    });
    expect(answer.status).toBe(400);
    // On the credential screen the e-mail is a hidden field, so the message cannot sit under it and is
    // shown on the form (with a visible e-mail field it goes under it: unit-tested in placeMessages).
    expect(answer.text).toContain('data-message-id="4000007"');
    expect(alerts(answer.text)).toContain('An account with this email already exists.');
    // In that message: on to sign in with the e-mail filled in and the caret in the password (spec §8).
    expect(signInExistingHref(answer.text)).toBe(`/sign-in?email=${encodeURIComponent(email)}&highlight=password`);
    expect(answer.text).toMatch(/data-message-id="4000007"(?:(?!<\/div>).)*data-link="sign-in-existing"/s);
  });

  test('similarity_password (4000031) under the password, and the form still works', async () => {
    const browser = new Browser(stack.appUrl);
    const email = uniqueEmail('similar');
    const credential = await profileStep(browser, email);
    const action = formAction(credential.text, 'sign-up-form')!;
    const similar = await browser.post(action, {
      csrf_token: hiddenValue(credential.text, 'csrf_token')!,
      'traits.email': email,
      password: email,
      method: 'password',
      terms: 'on',
    });
    expect(similar.status).toBe(400);
    expect(fieldError(similar.text, 'field-password')).toBe('This password is too similar to your email. Please choose a different one.');

    identities.track(email);
    const done = await browser.post(formAction(similar.text, 'sign-up-form')!, {
      csrf_token: hiddenValue(similar.text, 'csrf_token')!,
      'traits.email': email,
      password: STRONG_PASSWORD,
      method: 'password',
      terms: 'on',
    });
    expect(done.status).toBe(303);
    expect(done.location).toMatch(/^\/sign-up\/verification\?flow=/);
  });

  standInOnly('haveibeenpwned is off for real Kratos: the tests have no network')('leaked_password (4000034) under the password', async () => {
    const browser = new Browser(stack.appUrl);
    const email = uniqueEmail('leaked');
    const credential = await profileStep(browser, email);
    const leaked = await browser.post(formAction(credential.text, 'sign-up-form')!, {
      csrf_token: hiddenValue(credential.text, 'csrf_token')!,
      'traits.email': email,
      password: 'password123',
      method: 'password',
      terms: 'on',
    });
    expect(leaked.status).toBe(400);
    expect(fieldError(leaked.text, 'field-password')).toBe('This password has appeared in a data breach. Please choose a different one.');
  });
});

describe('unified registration style (one screen)', () => {
  let unified: Stack;
  beforeAll(async () => {
    unified = await startStack({ identityConfig: { selfservice: { flows: { registration: { style: 'unified' } } } } as never });
  });
  afterAll(() => unified?.close());
  const unifiedIdentities = useIdentities(() => unified.identity.adminUrl);

  test('e-mail, name and password on one screen; success goes to verification', async () => {
    const browser = new Browser(unified.appUrl);
    const { page, action, csrf } = await openSignUp(browser);
    expect(page.text).toContain('name="password"');
    expect(page.text).toContain('name="terms"');
    const done = await browser.post(action, {
      csrf_token: csrf,
      'traits.email': uniqueEmail('unified'),
      'traits.name': 'Ada',
      password: STRONG_PASSWORD,
      method: 'password',
      terms: 'on',
    });
    expect(done.status).toBe(303);
    expect(done.location).toMatch(/^\/sign-up\/verification\?flow=/);
  });

  test('email_exists (4000007) sits under the visible e-mail field', async () => {
    const email = uniqueEmail('unified-exists');
    await unifiedIdentities.create({ email });
    const browser = new Browser(unified.appUrl);
    const { action, csrf } = await openSignUp(browser);
    const answer = await browser.post(action, { csrf_token: csrf, 'traits.email': email, password: STRONG_PASSWORD, method: 'password', terms: 'on' });
    expect(answer.status).toBe(400);
    expect(fieldError(answer.text, 'field-traits-email')).toBe('An account with this email already exists.');
    expect(signInExistingHref(answer.text)).toBe(`/sign-in?email=${encodeURIComponent(email)}&highlight=password`);
    const signIn = await browser.get(signInExistingHref(answer.text)!);
    expect(signIn.status).toBe(200);
    expect(signIn.text).toMatch(new RegExp(`<input(?=[^>]*name="identifier")(?=[^>]*value="${email.replace(/[.+]/g, '\\$&')}")`));
  });

  test('no such link without the message', async () => {
    const browser = new Browser(unified.appUrl);
    const { action, csrf } = await openSignUp(browser);
    const answer = await browser.post(action, { csrf_token: csrf, 'traits.email': 'not-an-email', password: STRONG_PASSWORD, method: 'password', terms: 'on' });
    expect(answer.status).toBe(400);
    expect(signInExistingHref(answer.text)).toBeUndefined();
  });
});
