// Google One Tap without a Google at the other end: what the app offers and checks before Kratos verifies a
// token (decision 120). The journeys with the fake Google's tokens are in one-tap-kratos.test.ts.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createApp } from '../../../server/app.ts';
import { loadConfig } from '../../../server/config.ts';
import { memoryLogger } from '../../support/app.ts';
import { alerts, Browser, formAction, hiddenValue } from '../../support/http.ts';
import { buildAssets, catalogueText } from '../../support/browser.ts';
import { startStack, type Stack } from '../../support/stack.ts';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const GSI = 'http://gsi.example.test:4601/gsi/client';
const CLIENT_ID = 'one-tap-test-client';

/** A token-shaped credential (not signed by anyone Kratos trusts). */
function credential(claims: Record<string, unknown>): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'RS256', kid: 'k' })}.${part({ iss: 'https://accounts.google.com', aud: CLIENT_ID, sub: '1001', exp: Math.floor(Date.now() / 1000) + 600, ...claims })}.${Buffer.from('not-a-signature').toString('base64url')}`;
}

let plain: Stack;
let oneTap: Stack;
// The run's build: the One Tap island is an asset of its own.
const build = buildAssets('one-tap');

beforeAll(async () => {
  const assets = { ASSETS_DIR: build.assetsDir };
  [plain, oneTap] = await Promise.all([
    startStack({ env: assets }),
    startStack({ env: { ...assets, GOOGLE_CLIENT_ID: CLIENT_ID, GOOGLE_GSI_SCRIPT_URL: GSI } }),
  ]);
});
afterAll(async () => {
  await Promise.all([plain?.close(), oneTap?.close()]);
  build.remove();
});

const csp = (answer: { headers: Headers }) => answer.headers.get('content-security-policy') ?? '';

/** The One Tap page: the sign-in form's flow page with the hidden One Tap form. */
async function offer(browser: Browser, query = '') {
  const page = await browser.follow(`/sign-in${query}`);
  expect(page.status).toBe(200);
  return { page, action: formAction(page.text, 'one-tap'), token: hiddenValue(page.text, 'g_csrf_token') };
}

describe('without GOOGLE_CLIENT_ID', () => {
  test('no One Tap form or island, no Google host in the CSP, no One Tap cookie', async () => {
    const browser = new Browser(plain.appUrl);
    const page = await browser.follow('/sign-in');
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('data-island="one-tap"');
    expect(page.text).not.toMatch(/one-tap-[\w]+\.js/);
    expect(csp(page)).not.toMatch(/google|gsi/);
    expect(csp(page)).not.toContain('frame-src');
    expect([...browser.cookies.keys()].filter((name) => /one_tap|g_csrf/.test(name))).toEqual([]);
  });

  test('request_google_sign_in goes on to Google’s redirect sign-in, keeping return_to', async () => {
    const answer = await new Browser(plain.appUrl).get('/sign-in?request_google_sign_in=true&return_to=%2Fprofile-settings');
    expect(answer.status).toBe(303);
    const to = new URL(answer.location!, plain.appUrl);
    expect(to.pathname).toBe('/sign-in');
    expect(Object.fromEntries(to.searchParams)).toEqual({ request_social_sign_in: 'true', provider: 'google', return_to: '/profile-settings' });
  });
});

describe('with GOOGLE_CLIENT_ID', () => {
  test('sign-in and sign-up carry the One Tap form and island; the CSP names the script’s origin only', async () => {
    for (const path of ['/sign-in', '/sign-up']) {
      const browser = new Browser(oneTap.appUrl);
      const page = await browser.follow(`${path}?return_to=%2Fprofile-settings`);
      expect(page.status).toBe(200);
      expect(formAction(page.text, 'one-tap')).toBe('/sign-in/google-one-tap?return_to=%2Fprofile-settings');
      expect(page.text).toMatch(/<form id="one-tap" hidden="" data-island="one-tap"/);
      expect(page.text).toContain(`data-client-id="${CLIENT_ID}"`);
      expect(page.text).toContain(`data-src="${GSI}"`);
      expect(page.text).toMatch(/<script type="module" nonce="[^"]+" src="\/assets\/one-tap-\w+\.js"><\/script>/);
      expect(page.text).not.toContain('data-prompt');
      const nonce = /data-nonce="([\w-]{43})"/.exec(page.text)?.[1];
      expect(nonce).toBeDefined();
      // The double-submit pair: the cookie and the form carry one value.
      expect(hiddenValue(page.text, 'g_csrf_token')).toBe(browser.cookies.get('g_csrf_token'));
      expect(browser.cookies.get('one_tap_nonce')?.startsWith(`${nonce}.`)).toBe(true);
      const policy = csp(page);
      for (const directive of ['script-src', 'style-src', 'connect-src', 'frame-src']) {
        expect(new RegExp(`${directive} [^;]*http://gsi\\.example\\.test:4601(;|$| )`).test(policy), directive).toBe(true);
      }
      expect(policy).not.toContain('accounts.google.com');
    }
  });

  test('the nonce cookie is HttpOnly and signed; a second page view reuses the nonce and the token', async () => {
    const browser = new Browser(oneTap.appUrl);
    const first = await offer(browser);
    const nonceCookie = first.page.setCookies.find((line) => line.startsWith('one_tap_nonce='));
    expect(nonceCookie).toMatch(/HttpOnly/i);
    expect(first.page.setCookies.find((line) => line.startsWith('g_csrf_token='))).toMatch(/SameSite=Strict/i);
    const second = await offer(browser);
    expect(second.page.setCookies.filter((line) => /^(one_tap_nonce|g_csrf_token)=/.test(line))).toEqual([]);
    expect(second.token).toBe(first.token);
  });

  test('request_google_sign_in survives the hop to the flow and asks the island to prompt at once', async () => {
    const { page, action } = await offer(new Browser(oneTap.appUrl), '?request_google_sign_in=true');
    expect(page.text).toContain('data-prompt="now"');
    expect(action).toBe('/sign-in/google-one-tap');
  });

  test('a post without the double-submit cookie, or with another value, is refused: 403 and the sign-in form, translated', async () => {
    const browser = new Browser(oneTap.appUrl);
    const { token } = await offer(browser);
    const forged = new Browser(oneTap.appUrl); // another site's form: no g_csrf_token cookie on our host
    const cross = await forged.post('/sign-in/google-one-tap', { credential: credential({}), g_csrf_token: token! });
    expect(cross.status).toBe(403);
    expect(alerts(cross.text)).toContain(catalogueText('en', 'oneTap.refused'));
    expect(formAction(cross.text, 'sign-in-form')).toMatch(/^\/sign-in\?flow=[\w-]+$/);
    const mismatch = await browser.post('/sign-in/google-one-tap', { credential: credential({}), g_csrf_token: 'x'.repeat(43) });
    expect(mismatch.status).toBe(403);
    const french = await new Browser(oneTap.appUrl).request('POST', '/sign-in/google-one-tap', {
      form: { credential: credential({}) },
      headers: { 'accept-language': 'fr', accept: 'text/html' },
    });
    expect(french.status).toBe(403);
    expect(alerts(french.text)).toContain(catalogueText('fr', 'oneTap.refused'));
  });

  test('no nonce cookie (expired offer): 400 with the translated message; JSON callers get the same as JSON', async () => {
    const browser = new Browser(oneTap.appUrl);
    const { token } = await offer(browser);
    browser.cookies.delete('one_tap_nonce');
    const answer = await browser.post('/sign-in/google-one-tap', { credential: credential({ nonce: 'n' }), g_csrf_token: token! });
    expect(answer.status).toBe(400);
    expect(alerts(answer.text)).toContain(catalogueText('en', 'oneTap.expired'));

    const again = await offer(browser);
    browser.cookies.set('one_tap_nonce', browser.cookies.get('one_tap_nonce')!.replace(/\.[\w-]+$/, '.forged-signature'));
    const json = await browser.postJson('/sign-in/google-one-tap', { credential: credential({}), g_csrf_token: again.token });
    expect(json.status).toBe(400);
    expect(JSON.stringify(JSON.parse(json.text))).toContain(catalogueText('en', 'oneTap.expired'));
  });

  test('a token Kratos does not accept: 400, the translated message on the sign-in form, every One Tap cookie expired', async () => {
    const browser = new Browser(oneTap.appUrl);
    const { token, page } = await offer(browser);
    const nonce = /data-nonce="([\w-]{43})"/.exec(page.text)![1];
    const answer = await browser.post('/sign-in/google-one-tap', { credential: credential({ nonce }), g_csrf_token: token! });
    expect(answer.status).toBe(400);
    expect(alerts(answer.text)).toContain(catalogueText('en', 'oneTap.failed'));
    expect(formAction(answer.text, 'sign-in-form')).toMatch(/^\/sign-in\?flow=[\w-]+$/);
    expect(answer.text).not.toContain('data-island="one-tap"'); // no prompt loop on the failure page
    for (const name of ['one_tap_nonce', 'g_csrf_token']) expect(browser.cookies.has(name), name).toBe(false);
    const garbage = await new Browser(oneTap.appUrl).post('/sign-in/google-one-tap', { credential: 'not a token', g_csrf_token: token! });
    expect(garbage.status).toBeGreaterThanOrEqual(400);
    expect(garbage.status).toBeLessThan(500);
  });
});

describe('credential in the address (handed over by another surface)', () => {
  test('leaves the address at once (303, kept in an HttpOnly cookie on its own path) and signs nobody in on a GET', async () => {
    const browser = new Browser(plain.appUrl);
    const token = credential({ email: 'handed@example.com' });
    const answer = await browser.get(`/sign-in?credential=${token}&return_to=%2Fprofile-settings`);
    expect(answer.status).toBe(303);
    expect(answer.location).toBe('/sign-in/google-one-tap?return_to=%2Fprofile-settings');
    const stash = answer.setCookies.find((line) => line.startsWith('one_tap_credential='));
    expect(stash).toMatch(/HttpOnly/i);
    expect(stash).toMatch(/Path=\/sign-in\/google-one-tap/i);
    expect(answer.setCookies.some((line) => line.startsWith('ory_kratos_session'))).toBe(false);

    const confirm = await browser.get(answer.location!);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain(catalogueText('en', 'oneTap.confirmAs', { email: 'handed@example.com' }));
    expect(hiddenValue(confirm.text, 'g_csrf_token')).toBe(browser.cookies.get('g_csrf_token'));
    expect(hiddenValue(confirm.text, 'handed_over')).toBe('1');
    expect(confirm.text).not.toContain(token);
  });

  test('a junk credential is dropped from the address; the confirmation without one goes back to sign-in', async () => {
    const browser = new Browser(plain.appUrl);
    const answer = await browser.get('/sign-up?credential=junk&loginHint=ada%40example.com');
    expect(answer.status).toBe(303);
    expect(answer.location).toBe('/sign-up?loginHint=ada%40example.com');
    const confirm = await browser.get('/sign-in/google-one-tap?return_to=%2Fprofile-settings');
    expect(confirm.status).toBe(303);
    expect(confirm.location).toBe('/sign-in?return_to=%2Fprofile-settings');
  });

  test('the confirmation post needs the double-submit pair; without the kept credential it is a translated 400', async () => {
    const browser = new Browser(plain.appUrl);
    await browser.get(`/sign-in?credential=${credential({})}`);
    const confirm = await browser.get('/sign-in/google-one-tap');
    const token = hiddenValue(confirm.text, 'g_csrf_token')!;
    const forged = await new Browser(plain.appUrl).post('/sign-in/google-one-tap', { handed_over: '1', g_csrf_token: token });
    expect(forged.status).toBe(403);
    browser.cookies.delete('one_tap_credential');
    const expired = await browser.post('/sign-in/google-one-tap', { handed_over: '1', g_csrf_token: token });
    expect(expired.status).toBe(400);
    expect(alerts(expired.text)).toContain(catalogueText('en', 'oneTap.expired'));
  });

  test('the logs never show the credential', async () => {
    const { logger, text } = memoryLogger('trace');
    const config = loadConfig({
      NODE_ENV: 'test',
      KRATOS_PUBLIC_URL: plain.identity.publicUrl,
      KRATOS_ADMIN_URL: plain.identity.adminUrl,
      BACKEND_URL: plain.backend.url,
      ASSETS_DIR: build.assetsDir,
      LOG_LEVEL: 'trace',
    });
    const server = http.createServer(await createApp(config, logger));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const browser = new Browser(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      const token = credential({ email: 'logged@example.com' });
      await browser.get(`/sign-in?credential=${token}`);
      const confirm = await browser.get('/sign-in/google-one-tap');
      await browser.post('/sign-in/google-one-tap', { handed_over: '1', g_csrf_token: hiddenValue(confirm.text, 'g_csrf_token')! });
      // The request line is written when the answer finishes, which may be just after the client has it.
      for (const deadline = Date.now() + 5000; !/"method":"POST"[^\n]*google-one-tap/.test(text()) && Date.now() < deadline;) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(text()).toMatch(/"method":"POST"[^\n]*google-one-tap/);
      expect(text()).not.toContain(token.split('.')[1]);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
