import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { signIn, uniqueEmail, useIdentities } from '../../support/fixtures.ts';
import { Browser, csrfFrom, flowFormAction, hiddenValue } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());
const identities = useIdentities(() => stack.identity.adminUrl);

/** The text of the sign-in page's signed-out notice, if it has one. */
const noticeOf = (html: string) => /data-notice="signed-out"[^>]*>.*?<p>([^<]*)<\/p>/s.exec(html)?.[1];

async function signedIn(): Promise<Browser> {
  const email = uniqueEmail('logout');
  await identities.create({ email });
  const browser = new Browser(stack.appUrl);
  const answer = await signIn(browser, email);
  expect(answer.status).toBe(303);
  expect((await browser.get('/')).status).toBe(200);
  return browser;
}

describe('/logout', () => {
  test('GET never signs out: it shows a form that POSTs with our CSRF token', async () => {
    const browser = await signedIn();
    const page = await browser.get('/logout');
    expect(page.status).toBe(200);
    const form = /<form id="logout-form"[^>]*>/.exec(page.text)?.[0] ?? '';
    expect(form).toContain('action="/logout"');
    expect(form).toContain('method="post"');
    expect(hiddenValue(page.text, '_csrf')).toMatch(/^[0-9a-f]{64}$/);
    expect((await browser.get('/')).status).toBe(200); // still signed in
  });

  test('a cross-site POST without our token is refused and the session survives', async () => {
    const browser = await signedIn();
    const forged = await browser.post('/logout', {});
    expect(forged.status).toBe(403);
    expect((await browser.get('/')).status).toBe(200);
  });

  test('POST ends the Kratos session, clears our cookies, sends Clear-Site-Data, lands on sign-in', async () => {
    const browser = await signedIn();
    browser.cookies.set('auth_token_test', 'x');
    browser.cookies.set('google_access_token_test', 'y');
    const page = await browser.get('/logout');
    const answer = await browser.post('/logout', { _csrf: hiddenValue(page.text, '_csrf')! });
    expect(answer.status).toBe(303);
    expect(answer.location).toBe('/sign-in?logged_out=1');
    expect(answer.headers.get('clear-site-data')).toBe('"cache", "storage"');
    const cleared = (name: string) => answer.setCookies.some((line) => line.startsWith(`${name}=`) && /expires=Thu, 01 Jan 1970|max-age=0/i.test(line));
    expect(cleared('ory_kratos_session')).toBe(true);
    expect(cleared('auth_token_test')).toBe(true);
    expect(cleared('google_access_token_test')).toBe(true);
    expect(browser.cookies.has('ory_kratos_session')).toBe(false);

    // The Kratos session is really gone, not only our cookie.
    const home = await browser.get('/');
    expect(home.status).toBe(303);
    expect(home.location).toMatch(/^\/sign-in\?return_to=/);

    // The landing page asks the islands to drop the stored token (kept across the flow redirect).
    const landing = await browser.follow('/sign-in?logged_out=1');
    expect(landing.url).toContain('logged_out=1');
    expect(landing.text).toContain('data-clear-storage="token"');
    // It says the person has been signed out (errorMessage.forceLogoutTitle), in their language.
    expect(noticeOf(landing.text)).toBe('You have been signed out');
    const inVietnamese = await new Browser(stack.appUrl).follow('/sign-in?logged_out=1&lng=vi');
    expect(noticeOf(inVietnamese.text)).toBe('Bạn đã bị đăng xuất');
    // A plain sign-in page has no such notice, nor the answer to a sign-in tried from the signed-out page.
    expect(noticeOf((await browser.follow('/sign-in')).text)).toBeUndefined();
    const tried = await browser.post(flowFormAction(landing.text), {
      identifier: 'nobody@example.com',
      password: 'wrong password',
      method: 'password',
      csrf_token: csrfFrom(landing.text),
    });
    expect(tried.status).toBe(400);
    expect(noticeOf(tried.text)).toBeUndefined();
  });

  test('the old session cookie is dead at Kratos after logout', async () => {
    const browser = await signedIn();
    const stolen = browser.cookies.get('ory_kratos_session')!;
    const page = await browser.get('/logout');
    await browser.post('/logout', { _csrf: hiddenValue(page.text, '_csrf')! });
    const replay = new Browser(stack.appUrl);
    replay.cookies.set('ory_kratos_session', stolen);
    const home = await replay.get('/');
    expect(home.status).toBe(303);
  });

  test('a guest needs no login: GET /logout cleans up and lands on sign-in', async () => {
    const browser = new Browser(stack.appUrl);
    const answer = await browser.get('/logout');
    expect(answer.status).toBe(303);
    expect(answer.location).toBe('/sign-in?logged_out=1');
    expect(answer.headers.get('clear-site-data')).toBe('"cache", "storage"');
  });
});
