import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { setIdentityState, signIn, STRONG_PASSWORD, uniqueEmail, useIdentities } from '../../support/fixtures.ts';
import { alerts, barAddress, Browser, fieldError, formAction, hiddenValue, openSignIn } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

let stack: Stack;

beforeAll(async () => {
  // Kratos configured with a cookie Domain: the app must strip it when relaying.
  stack = await startStack({ identityConfig: { cookies: { domain: 'example.test' }, session: { cookie: { domain: 'example.test' } } } as never });
});
afterAll(() => stack?.close());
const identities = useIdentities(() => stack.identity.adminUrl);

describe('GET /sign-in', () => {
  test('creates a flow and shows it at once, relays the CSRF cookie without Domain, and keeps the spec query parameters', async () => {
    const browser = new Browser(stack.appUrl);
    const answer = await browser.get('/sign-in?return_to=%2Fprofile-settings&loginHint=ada%40example.com&platform=desktop&unknown=x');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toContain('no-store');
    // The form posts to the flow, and the page puts the same address in the address bar (decision 190).
    const action = formAction(answer.text, 'sign-in-form')!;
    expect(barAddress(answer.text)).toBe(action);
    const location = new URL(action, stack.appUrl);
    expect(location.pathname).toBe('/sign-in');
    expect(location.searchParams.get('flow')).toMatch(UUID);
    expect(location.searchParams.get('return_to')).toBe('/profile-settings');
    expect(location.searchParams.get('loginHint')).toBe('ada@example.com');
    expect(location.searchParams.get('platform')).toBe('desktop');
    expect(location.searchParams.has('unknown')).toBe(false);
    const csrfCookie = answer.setCookies.find((line) => line.startsWith('csrf_token_'));
    expect(csrfCookie).toBeDefined();
    expect(csrfCookie).not.toMatch(/domain=/i);
    expect(csrfCookie).toMatch(/HttpOnly/i);
  });

  test('renders the flow: CSRF token, prefilled e-mail, links that keep return_to, forgot password', async () => {
    const browser = new Browser(stack.appUrl);
    const { page, action } = await openSignIn(browser, '?return_to=%2Fprofile-settings&loginHint=ada%40example.com&highlight=password');
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toContain('no-store');
    expect(action).toMatch(new RegExp(`^/sign-in\\?flow=${UUID.source}&return_to=%2Fprofile-settings`));
    expect(page.text).toContain('value="ada@example.com"');
    expect(page.text).toMatch(/href="\/sign-up\?return_to=%2Fprofile-settings[^"]*" data-link="sign-up"/);
    expect(page.text).toMatch(/href="\/forgot-password\?return_to=%2Fprofile-settings[^"]*" data-link="forgot-password"/);
    expect(page.text).toMatch(/autofocus=""[^>]*name="password"|name="password"[^>]*autofocus=""/i);
    expect(page.text).toContain('Forgot password?');
  });

  test('from and action are read from return_to (not from the page query), platform from the query', async () => {
    const browser = new Browser(stack.appUrl);
    const returnTo = encodeURIComponent('/profile-settings?from=editor&action=upload');
    const { page } = await openSignIn(browser, `?return_to=${returnTo}&from=ignored&platform=desktop`);
    expect(page.text).toContain('data-from="editor"');
    expect(page.text).toContain('data-action="upload"');
    expect(page.text).toContain('data-platform="desktop"');
    expect(page.text).not.toContain('ignored');
  });

  test("a language chosen in the address is kept in the new flow's address", async () => {
    const browser = new Browser(stack.appUrl);
    const page = await browser.get('/sign-in?lng=vi');
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/<html lang="vi"/);
    expect(formAction(page.text, 'sign-in-form')).toContain('lng=vi');
    expect(new URL(barAddress(page.text)!, stack.appUrl).searchParams.get('lng')).toBe('vi');
  });

  test('reuses a valid flow id instead of creating a new one', async () => {
    const browser = new Browser(stack.appUrl);
    const { action } = await openSignIn(browser);
    const id = UUID.exec(action)![0];
    const again = await browser.get(`/sign-in?flow=${id}`);
    expect(again.status).toBe(200);
    expect(formAction(again.text, 'sign-in-form')).toContain(id);
    // Rendering a live flow sets nothing: no new Kratos cookie, and no server session of ours.
    expect(again.setCookies).toEqual([]);
  });

  test('an unknown or garbage flow id is replaced by a new flow', async () => {
    const browser = new Browser(stack.appUrl);
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const answer = await browser.get(`/sign-in?flow=${id}&return_to=%2Fx`);
      expect(answer.status).toBe(200);
      const next = new URL(barAddress(answer.text)!, stack.appUrl);
      expect(formAction(answer.text, 'sign-in-form')).toContain(`flow=${next.searchParams.get('flow')}`);
      expect(next.searchParams.get('flow')).toMatch(UUID);
      expect(next.searchParams.get('flow')).not.toBe(id);
      expect(next.searchParams.get('return_to')).toBe('/x');
    }
  });
});

describe('POST /sign-in', () => {
  test('signs in, relays the session cookie without Domain, remembers the account and goes to return_to', async () => {
    const email = uniqueEmail('signin');
    await identities.create({ email });
    const browser = new Browser(stack.appUrl);
    const answer = await signIn(browser, email, STRONG_PASSWORD, '?return_to=%2Fprofile-settings');
    expect(answer.status).toBe(303);
    expect(answer.location).toBe(`${stack.appUrl}/profile-settings`);
    const session = answer.setCookies.find((line) => line.startsWith('ory_kratos_session='));
    expect(session).toBeDefined();
    expect(session).not.toMatch(/domain=/i);
    expect(answer.setCookies.some((line) => line.startsWith('last_access_account='))).toBe(true);

    const home = await browser.get('/');
    expect(home.status).toBe(200);
    expect(home.text).toContain(email);
  });

  test('a return_to off the allow-list is ignored: success goes to /', async () => {
    const email = uniqueEmail('evil');
    await identities.create({ email });
    const browser = new Browser(stack.appUrl);
    const answer = await signIn(browser, email, STRONG_PASSWORD, '?return_to=https%3A%2F%2Fevil.example%2Fsteal');
    expect(answer.status).toBe(303);
    expect(answer.location).toBe('/');
  });

  test('wrong password: 400, translated incorrect_email_password, e-mail kept, password never echoed', async () => {
    const email = uniqueEmail('wrong');
    await identities.create({ email });
    const browser = new Browser(stack.appUrl);
    const answer = await signIn(browser, email, 'Not-The-Password-1');
    expect(answer.status).toBe(400);
    expect(alerts(answer.text)).toContain('Incorrect email or password.');
    expect(answer.text).toContain(`value="${email}"`);
    expect(answer.text).not.toContain('Not-The-Password-1');
    expect(hiddenValue(answer.text, 'csrf_token')).toBeTruthy();
  });

  test('the same message in Vietnamese', async () => {
    const email = uniqueEmail('vi');
    await identities.create({ email });
    const browser = new Browser(stack.appUrl);
    browser.cookies.set('lng', 'vi');
    const answer = await signIn(browser, email, 'Not-The-Password-1');
    expect(answer.status).toBe(400);
    expect(alerts(answer.text).join(' ')).not.toContain('Incorrect email or password.');
    expect(answer.text).toContain('lang="vi"');
  });

  test('validation before Kratos: e-mail over 255, password under 8 or over 72', async () => {
    const browser = new Browser(stack.appUrl);
    const { action, csrf } = await openSignIn(browser);
    const long = `${'a'.repeat(250)}@example.com`;
    const answer = await browser.post(action, { csrf_token: csrf, identifier: long, password: 'short', method: 'password' });
    expect(answer.status).toBe(400);
    expect(fieldError(answer.text, 'field-identifier')).toBe('The email address must be at most 255 characters.');
    expect(fieldError(answer.text, 'field-password')).toBe('The password must be at least 8 characters.');

    const tooLong = await browser.post(action, { csrf_token: csrf, identifier: 'a@example.com', password: 'x'.repeat(73), method: 'password' });
    expect(tooLong.status).toBe(400);
    expect(fieldError(tooLong.text, 'field-password')).toBe('The password must be at most 72 characters.');
  });

  test('a disabled account gets Kratos 4010011, translated', async () => {
    const email = uniqueEmail('disabled');
    const { id } = await identities.create({ email });
    await setIdentityState(stack.identity.adminUrl, id, 'inactive');
    const browser = new Browser(stack.appUrl);
    const answer = await signIn(browser, email);
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('data-message-id="4010011"');
  });
});

describe('re-authentication (refresh=true)', () => {
  test('a signed-in user is sent on from /sign-in, but gets a refresh flow with refresh=true and comes back', async () => {
    const email = uniqueEmail('refresh');
    await identities.create({ email });
    const browser = new Browser(stack.appUrl);
    expect((await signIn(browser, email)).status).toBe(303);

    const plain = await browser.get('/sign-in');
    expect(plain.status).toBe(303);
    expect(plain.location).toBe('/');

    const { page, action, csrf } = await openSignIn(browser, '?refresh=true&return_to=%2Fprofile-settings');
    expect(page.status).toBe(200);
    expect(action).toContain('refresh=true');
    const flowId = UUID.exec(action)![0];
    const flow = (await (
      await fetch(`${stack.identity.publicUrl}/self-service/login/flows?id=${flowId}`, { headers: { cookie: browser.cookieHeader() } })
    ).json()) as { refresh: boolean };
    expect(flow.refresh).toBe(true);
    // Confirming who one is: no sign-up link, no other account offered (the sign-in left the last-used one).
    expect(browser.cookies.has('last_access_account')).toBe(true);
    expect(page.text).not.toContain('data-link="sign-up"');
    expect(page.text).not.toContain('class="last-account"');

    const answer = await browser.post(action, { csrf_token: csrf, identifier: email, password: STRONG_PASSWORD, method: 'password' });
    expect(answer.status).toBe(303);
    expect(answer.location).toBe(`${stack.appUrl}/profile-settings`);
  });
});

describe('last-used account', () => {
  test('is offered after a sign-in and can be forgotten by a same-origin post only (no stored session: decision 080)', async () => {
    const email = uniqueEmail('last');
    await identities.create({ email });
    const browser = new Browser(stack.appUrl);
    await signIn(browser, email);
    // Keep only the remembered account: as after a logout.
    browser.cookies.delete('ory_kratos_session');
    browser.cookies.delete('accounts.sid');
    const { page } = await openSignIn(browser);
    expect(page.text).toContain('class="last-account"');
    expect(page.text).toContain(email);
    expect(browser.cookies.has('accounts.sid')).toBe(false);

    const forged = await browser.post('/sign-in/forget-account', { _csrf: 'wrong' }, { origin: 'https://evil.example' });
    expect(forged.status).toBe(403);
    expect(browser.cookies.has('last_access_account')).toBe(true);

    const forgotten = await browser.post('/sign-in/forget-account', {}, { origin: new URL(stack.appUrl).origin, 'sec-fetch-site': 'same-origin' });
    expect(forgotten.status).toBe(303);
    expect(browser.cookies.has('last_access_account')).toBe(false);
    const after = await openSignIn(browser);
    expect(after.page.text).not.toContain('class="last-account"');
  });
});
