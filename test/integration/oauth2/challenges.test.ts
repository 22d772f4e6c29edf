// Hydra's challenges that go wrong, and Hydra's own error page (decision 130): every one ends in a page of
// ours, translated, never Hydra's answer; a handled challenge goes on to Hydra's redirect_to. Also the
// login challenge of a browser already signed in: not bounced by the guest guard.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestClock } from '../../../embedded/clock.ts';
import { createIdentity, useIdentities } from '../../support/fixtures.ts';
import { Browser, visibleText } from '../../support/http.ts';
import { standInOnly, startStack, type Stack } from '../../support/stack.ts';
import { answerConsent, authorizeUrl, callbackParams, loginRequest, registerClient, signInOnPage, walk } from './support.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ oauth2: true });
});
afterAll(() => stack?.close());
const identities = useIdentities(() => stack.identity.adminUrl);

const json = { accept: 'application/json' };
const codeOf = (text: string) => (JSON.parse(text) as { code: string }).code;

describe('challenges Hydra refuses', () => {
  test('an unknown consent, login or logout challenge: a translated 404, JSON code oauth2_request_unknown', async () => {
    const browser = new Browser(stack.appUrl);
    for (const path of [
      '/consent?consent_challenge=unknown0challenge',
      '/sign-in?login_challenge=unknown0challenge',
      '/logout?logout_challenge=unknown0challenge',
    ]) {
      const page = await browser.get(path);
      expect(page.status, path).toBe(404);
      expect(visibleText(page.text)).toContain('Request not found');
      expect(page.text).not.toMatch(/Not Found|Unable to locate/);
      const answer = await browser.get(path, json);
      expect(codeOf(answer.text)).toBe('oauth2_request_unknown');
    }
  });

  test('a missing or malformed challenge: a translated 400 without asking Hydra', async () => {
    const browser = new Browser(stack.appUrl);
    for (const path of ['/consent', '/consent?consent_challenge=%3Cscript%3E', '/sign-in?login_challenge=a%20b', '/logout?logout_challenge=%22x%22']) {
      const page = await browser.get(path);
      expect(page.status, path).toBe(400);
      expect(visibleText(page.text)).toContain('The app’s request could not be accepted');
      expect(page.text).not.toContain('<script>');
    }
  });

  // A handled challenge (410 {redirect_to}) is tested with the logout challenge (logout.test.ts): real Hydra
  // v2.3.0's login and consent challenges are stateless (the flow encrypted in the challenge), so it answers
  // a used one with 200 again; only the stored logout request is known to be handled.

  standInOnly('moves the OAuth2 provider clock')('an expired consent challenge: a translated page (oauth2_request_expired)', async () => {
    const clock = createTestClock();
    const own = await startStack({ oauth2: true, clock });
    try {
      const client = await registerClient(own);
      const person = await createIdentity(own.identity.adminUrl); // gone with this stack's in-memory database
      const browser = new Browser(own.appUrl);
      const signInPage = await walk(browser, authorizeUrl(own, client));
      const consentPage = await signInOnPage(browser, own.appUrl, signInPage, person.email);
      clock.advance(31 * 60_000);
      const url = new URL(consentPage.url);
      const page = await browser.get(`${url.pathname}${url.search}`);
      expect(page.status).toBe(410);
      expect(visibleText(page.text)).toContain('This request has expired');
      expect(codeOf((await browser.get(`${url.pathname}${url.search}`, json)).text)).toBe('oauth2_request_expired');
    } finally {
      await own.close();
    }
  });
});

describe('a login challenge for a browser already signed in', () => {
  test('Hydra has no login to skip: the sign-in page asks again (Kratos refresh), then on to consent', async () => {
    const client = await registerClient(stack);
    const person = await identities.signedIn(stack.appUrl);
    const page = await walk(person.browser, authorizeUrl(stack, client));
    expect(page.status).toBe(200);
    const challenge = new URL(page.url).searchParams.get('login_challenge')!;
    expect((await loginRequest(stack, challenge)).skip).toBe(false);
    expect(new URL(page.url).pathname).toBe('/sign-in'); // not bounced home by the guest guard
    const consent = await signInOnPage(person.browser, stack.appUrl, page, person.email);
    expect(new URL(consent.url).pathname).toBe('/consent');
    const done = await answerConsent(person.browser, stack.appUrl, consent, 'allow');
    expect(callbackParams(done.url).get('code')).toBeTruthy();
  });
});

describe("Hydra's error page (/error?error=)", () => {
  test('a known error in our words, Hydra’s description only as an escaped detail; JSON too', async () => {
    const browser = new Browser(stack.appUrl);
    const description = 'The client <script>alert(1)</script> is unknown';
    const page = await browser.get(`/error?error=invalid_client&error_description=${encodeURIComponent(description)}`);
    expect(page.status).toBe(400);
    expect(visibleText(page.text)).toContain('The app is not known to us, or could not prove who it is.');
    expect(page.text).not.toContain('<script>alert');
    expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    const answer = JSON.parse((await browser.get('/error?error=invalid_client', json)).text) as { code: string; meta: { error: string } };
    expect(answer).toMatchObject({ code: 'oauth2_error', meta: { error: 'invalid_client' } });
  });

  test('an unknown error code, or server_error, gets the generic text and no 5xx', async () => {
    const browser = new Browser(stack.appUrl);
    const odd = await browser.get('/error?error=%3Cb%3Ewhatever');
    expect(odd.status).toBe(400);
    expect(visibleText(odd.text)).toContain('The app’s sign-in could not be completed.');
    const server = await browser.get('/error?error=server_error&error_description=boom');
    expect(server.status).toBe(400);
  });

  test('a client Hydra does not know: Hydra sends the browser to our error page', async () => {
    const browser = new Browser(stack.appUrl);
    const page = await walk(browser, `${stack.oauth2!.publicUrl}/oauth2/auth?client_id=nobody&response_type=code&scope=openid&state=state-long-enough`);
    expect(new URL(page.url).pathname).toBe('/error');
    expect(page.status).toBe(400);
    expect(visibleText(page.text)).toContain('Signing in to the app failed');
  });
});

describe('Hydra unreachable', () => {
  test('consent, logout and sign-in with a challenge: a translated 503 with Retry-After, within HYDRA_TIMEOUT_MS', async () => {
    const down = await startStack({ env: { HYDRA_ADMIN_URL: 'http://127.0.0.1:9', HYDRA_PUBLIC_URL: 'http://127.0.0.1:9', HYDRA_TIMEOUT_MS: '2000' } });
    try {
      const browser = new Browser(down.appUrl);
      for (const path of ['/consent?consent_challenge=abc', '/logout?logout_challenge=abc', '/sign-in?login_challenge=abc']) {
        const page = await browser.get(path);
        expect(page.status, path).toBe(503);
        expect(page.headers.get('retry-after')).toBe('5');
        expect(visibleText(page.text)).toContain('We cannot reach our sign-in service for apps right now.');
        expect(codeOf((await browser.get(path, json)).text)).toBe('oauth2_unavailable');
      }
    } finally {
      await down.close();
    }
  });

  test('without HYDRA_ADMIN_URL there is no consent page', async () => {
    const plain = await startStack();
    try {
      expect((await new Browser(plain.appUrl).get('/consent?consent_challenge=abc')).status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});
