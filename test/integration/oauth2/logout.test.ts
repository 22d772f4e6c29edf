// Hydra's logout challenge over HTTP (decision 130): the client's end_session with its ID token → our
// "Sign out of <app>?" → Yes ends the Kratos session and Hydra's login session and lands on the client's
// post-logout URI; No keeps both and goes home; skip_logout_consent signs out without asking.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { catalogueText } from '../../support/browser.ts';
import { useIdentities } from '../../support/fixtures.ts';
import { Browser, hiddenValue, visibleText } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';
import {
  answerConsent,
  authorizeUrl,
  callbackParams,
  exchangeCode,
  loginRequest,
  POST_LOGOUT_URI,
  registerClient,
  signInOnPage,
  submitAndWalk,
  walk,
  type Client,
} from './support.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ oauth2: true });
});
afterAll(() => stack?.close());
const identities = useIdentities(() => stack.identity.adminUrl);

/** A browser signed in to the client through the app (consent allowed); its ID token. */
async function signedInToClient(client: Client) {
  const person = await identities.create();
  const browser = new Browser(stack.appUrl);
  const consent = await signInOnPage(browser, stack.appUrl, await walk(browser, authorizeUrl(stack, client)), person.email);
  const done = await answerConsent(browser, stack.appUrl, consent, 'allow');
  const tokens = await exchangeCode(stack, client, callbackParams(done.url).get('code')!);
  return { person, browser, idToken: tokens.id_token! };
}

function endSessionUrl(idToken: string): string {
  const query = new URLSearchParams({ id_token_hint: idToken, post_logout_redirect_uri: POST_LOGOUT_URI, state: 'logout-state-1' });
  return `${stack.oauth2!.publicUrl}/oauth2/sessions/logout?${query}`;
}

const whoamiStatus = async (browser: Browser) => (await browser.get(`${stack.identity.publicUrl}/sessions/whoami`, { accept: 'application/json' })).status;

/** Where the next authorization stops: the sign-in page (with Hydra's skip) or, signed in still, the consent page. */
async function nextAuthorization(browser: Browser, client: Client): Promise<{ path: string; skip?: boolean }> {
  const page = await walk(browser, authorizeUrl(stack, client));
  const url = new URL(page.url);
  const challenge = url.searchParams.get('login_challenge');
  return { path: url.pathname, ...(challenge ? { skip: (await loginRequest(stack, challenge)).skip } : {}) };
}

describe('logout challenge', () => {
  test('confirm page → Yes: Kratos and Hydra sessions ended, on to the post-logout URI with its state', async () => {
    const client = await registerClient(stack, { client_name: 'Document app' });
    const { browser, idToken } = await signedInToClient(client);
    const page = await walk(browser, endSessionUrl(idToken));
    expect(page.status).toBe(200);
    expect(new URL(page.url).pathname).toBe('/logout');
    expect(visibleText(page.text)).toContain('Sign out of Document app?');
    expect(page.headers.get('content-security-policy')).toMatch(/form-action [^;]*http:\/\/127\.0\.0\.1:9/);
    expect(await whoamiStatus(browser)).toBe(200); // GET alone signs nobody out

    const challenge = hiddenValue(page.text, 'logout_challenge')!;
    const done = await submitAndWalk(browser, stack.appUrl, '/logout', {
      _csrf: hiddenValue(page.text, '_csrf')!,
      logout_challenge: challenge,
      decision: 'accept',
    });
    expect(done.posted.status).toBe(303);
    expect(done.posted.headers.get('clear-site-data')).toBe('"cache", "storage"');
    expect(done.url.startsWith(POST_LOGOUT_URI)).toBe(true);
    expect(new URL(done.url).searchParams.get('state')).toBe('logout-state-1');
    expect(await whoamiStatus(browser)).toBe(401);
    expect(await nextAuthorization(browser, client)).toEqual({ path: '/sign-in', skip: false });

    // The same challenge again: handled (410 at Hydra) → on to Hydra's logout URL, no page of ours.
    const again = await browser.get(`/logout?logout_challenge=${encodeURIComponent(challenge)}`);
    expect(again.status).toBe(303);
    expect(again.location!.startsWith(`${stack.oauth2!.publicUrl}/oauth2/sessions/logout`)).toBe(true);
  });

  test("signed out here already: the page says Yes ends the app's sign-in only", async () => {
    const client = await registerClient(stack, { client_name: 'Document app' });
    const { browser, idToken } = await signedInToClient(client);
    for (const name of [...browser.cookies.keys()].filter((cookie) => cookie.startsWith('ory_kratos_session'))) browser.cookies.delete(name);
    expect(await whoamiStatus(browser)).toBe(401);
    const page = await walk(browser, endSessionUrl(idToken));
    expect(new URL(page.url).pathname).toBe('/logout');
    expect(visibleText(page.text)).toContain(catalogueText('en', 'oauth2.logout.textSignedOut'));
    expect(visibleText(page.text)).not.toContain(catalogueText('en', 'oauth2.logout.text'));
  });

  test('No: Hydra is told, both sessions stay, home', async () => {
    const client = await registerClient(stack);
    const { browser, idToken } = await signedInToClient(client);
    const page = await walk(browser, endSessionUrl(idToken));
    const done = await browser.post('/logout', {
      _csrf: hiddenValue(page.text, '_csrf')!,
      logout_challenge: hiddenValue(page.text, 'logout_challenge')!,
      decision: 'cancel',
    });
    expect(done.status).toBe(303);
    expect(done.location).toBe('/');
    expect(await whoamiStatus(browser)).toBe(200);
    expect(await nextAuthorization(browser, client)).toEqual({ path: '/consent' }); // the login is still remembered: no sign-in page
  });

  test('skip_logout_consent: signed out of both without a page', async () => {
    const client = await registerClient(stack, { skip_logout_consent: true });
    const { browser, idToken } = await signedInToClient(client);
    const done = await walk(browser, endSessionUrl(idToken));
    expect(done.url.startsWith(POST_LOGOUT_URI)).toBe(true);
    expect(await whoamiStatus(browser)).toBe(401);
    expect(await nextAuthorization(browser, client)).toEqual({ path: '/sign-in', skip: false });
  });

  test('JSON: the client and our CSRF token; a POST without the token is refused', async () => {
    const client = await registerClient(stack, { client_name: 'Sheets' });
    const { browser, idToken } = await signedInToClient(client);
    const page = await walk(browser, endSessionUrl(idToken));
    const url = new URL(page.url);
    const json = JSON.parse((await browser.get(`${url.pathname}${url.search}`, { accept: 'application/json' })).text) as Record<string, unknown>;
    expect(json).toMatchObject({ client_name: 'Sheets', action: '/logout' });
    expect(json.csrf_token).toMatch(/^[0-9a-f]{64}$/);
    const forged = await browser.post('/logout', { logout_challenge: url.searchParams.get('logout_challenge')!, decision: 'accept' });
    expect(forged.status).toBe(403);
    expect(await whoamiStatus(browser)).toBe(200);
  });
});
