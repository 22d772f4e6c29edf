// The consent screen over HTTP (decision 130): an OAuth2 client's authorize URL → the app's sign-in page
// with Hydra's login challenge → Kratos accepts it → our consent page → Allow / Deny → the client's
// redirect URI; skipped for a remembered choice, skip_consent and OAUTH2_TRUSTED_CLIENT_IDS.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { signIn, useIdentities } from '../../support/fixtures.ts';
import { Browser, hiddenValue, visibleText } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';
import { MAX_RETURN_TO_LENGTH } from '../../../server/security/return-to.ts';
import { AFTER_LOGOUT_PATH } from '../../../core/routes.ts';
import {
  answerConsent,
  authorizeUrl,
  callbackParams,
  exchangeCode,
  idTokenClaims,
  registerClient,
  signInOnPage,
  STATE,
  submitAndWalk,
  userinfo,
  walk,
  type Client,
} from './support.ts';

const TRUSTED_ID = 'trusted-first-party-app';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ oauth2: true, env: { OAUTH2_TRUSTED_CLIENT_IDS: `other-app, ${TRUSTED_ID}` } });
});
afterAll(() => stack?.close());
const identities = useIdentities(() => stack.identity.adminUrl);

/** A new browser at the client's authorize URL, signed in on the app's page: the page it ends on. */
async function signInThroughClient(client: Client, scope?: string) {
  const person = await identities.create({ name: 'Ada Lovelace' });
  const browser = new Browser(stack.appUrl);
  const signInPage = await walk(browser, authorizeUrl(stack, client, scope));
  expect(signInPage.status).toBe(200);
  expect(new URL(signInPage.url).searchParams.get('login_challenge')).toBeTruthy();
  const afterSignIn = await signInOnPage(browser, stack.appUrl, signInPage, person.email);
  return { person, browser, page: afterSignIn };
}

describe('consent screen', () => {
  test('shows the app and its scopes in plain words; Allow → a code, tokens with the identity, userinfo', async () => {
    const client = await registerClient(stack, { client_name: 'Document app', logo_uri: 'https://logos.example/doc.png' });
    const { person, browser, page } = await signInThroughClient(client);
    expect(page.status).toBe(200);
    expect(new URL(page.url).pathname).toBe('/consent');
    const text = visibleText(page.text);
    expect(text).toContain('Document app wants to use your account');
    expect(text).toContain(`Signed in as ${person.email}`);
    for (const words of ['Know who you are', 'Stay connected while you are not using it', 'See your email address', 'See your name'])
      expect(text).toContain(words);
    expect(page.text).toContain('src="https://logos.example/doc.png"');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/img-src [^;]*https:\/\/logos\.example/);
    expect(csp).toMatch(/form-action [^;]*http:\/\/127\.0\.0\.1:9/);

    const done = await answerConsent(browser, stack.appUrl, page, 'allow');
    expect(done.posted.status).toBe(303);
    const params = callbackParams(done.url);
    expect(params.get('state')).toBe(STATE);
    const tokens = await exchangeCode(stack, client, params.get('code')!);
    expect(tokens.refresh_token).toBeTruthy();
    const claims = idTokenClaims(tokens.id_token!);
    expect(claims).toMatchObject({ sub: person.id, email: person.email, email_verified: true, name: 'Ada Lovelace' });
    expect(await userinfo(stack, tokens.access_token)).toMatchObject({ sub: person.id, email: person.email, name: 'Ada Lovelace' });
  });

  test('in French, with an unknown scope named; JSON gives the same facts and our CSRF token, and takes the answer', async () => {
    const client = await registerClient(stack, { scope: 'openid photos.read' });
    const { browser, page } = await signInThroughClient(client, 'openid photos.read');
    const url = new URL(page.url);
    const french = await browser.get(`${url.pathname}${url.search}&lng=fr`);
    expect(visibleText(french.text)).toContain('Utiliser « photos.read » de votre compte');
    const json = await browser.get(`${url.pathname}${url.search}`, { accept: 'application/json' });
    expect(json.status).toBe(200);
    const body = JSON.parse(json.text) as { client: { client_id: string }; scopes: { scope: string }[]; csrf_token: string; action: string };
    expect(body.client.client_id).toBe(client.client_id);
    expect(body.scopes.map((scope) => scope.scope)).toEqual(['openid', 'photos.read']);
    expect(body.csrf_token).toMatch(/^[0-9a-f]{64}$/);
    expect(body.action).toBe('/consent');
    // The JSON answer: Deny with our token in the header → Hydra's redirect_to, the client's error after it.
    const challenge = new URL(page.url).searchParams.get('consent_challenge')!;
    const denied = await browser.postJson('/consent', { consent_challenge: challenge, decision: 'deny' }, { 'x-csrf-token': body.csrf_token });
    expect(denied.status).toBe(200);
    const redirectTo = (JSON.parse(denied.text) as { redirect_to: string }).redirect_to;
    expect(redirectTo.startsWith(stack.oauth2!.publicUrl)).toBe(true);
    expect(callbackParams((await walk(browser, redirectTo)).url).get('error')).toBe('access_denied');
  });

  test('Deny → the client gets error=access_denied with its state', async () => {
    const client = await registerClient(stack);
    const { browser, page } = await signInThroughClient(client);
    const done = await answerConsent(browser, stack.appUrl, page, 'deny');
    const params = callbackParams(done.url);
    expect(params.get('error')).toBe('access_denied');
    expect(params.get('state')).toBe(STATE);
    expect(params.get('code')).toBeNull();
  });

  test('a denied consent reopened and allowed gives the client no code: Hydra refuses a second answer', async () => {
    const client = await registerClient(stack);
    const { browser, page } = await signInThroughClient(client);
    const url = new URL(page.url);
    const denied = await answerConsent(browser, stack.appUrl, page, 'deny');
    expect(callbackParams(denied.url).get('error')).toBe('access_denied');
    const reopened = { ...(await browser.get(`${url.pathname}${url.search}`)), url: page.url };
    const allowed = await answerConsent(browser, stack.appUrl, reopened, 'allow');
    const params = callbackParams(allowed.url);
    expect(params.get('code')).toBeNull();
    expect(params.get('error')).toBe('access_denied');
    expect(params.get('error_description')).toContain('The consent verifier has already been used');
  });

  test('remember my choice: the next authorization skips the screen; without it, the screen comes again', async () => {
    const client = await registerClient(stack);
    const first = await signInThroughClient(client);
    const done = await answerConsent(first.browser, stack.appUrl, first.page, 'allow', true);
    expect(callbackParams(done.url).get('code')).toBeTruthy();
    const again = await walk(first.browser, authorizeUrl(stack, client));
    expect(callbackParams(again.url).get('code')).toBeTruthy(); // no sign-in, no consent page

    const other = await registerClient(stack);
    const once = await signInThroughClient(other);
    await answerConsent(once.browser, stack.appUrl, once.page, 'allow', false);
    const next = await walk(once.browser, authorizeUrl(stack, other));
    expect(new URL(next.url).pathname).toBe('/consent');
  });

  test('skip_consent and a trusted client id are given consent without asking', async () => {
    const skipping = await registerClient(stack, { skip_consent: true });
    const a = await signInThroughClient(skipping);
    expect(callbackParams(a.page.url).get('code')).toBeTruthy();
    const trusted = await registerClient(stack, { client_id: TRUSTED_ID });
    const b = await signInThroughClient(trusted);
    const tokens = await exchangeCode(stack, trusted, callbackParams(b.page.url).get('code')!);
    expect(idTokenClaims(tokens.id_token!).email).toBe(b.person.email);
  });

  /** An account whose deletion was asked from its profile (signed in there just now, so no second sign-in is asked). */
  async function accountWaitingForDeletion() {
    const person = await identities.create();
    const profileBrowser = new Browser(stack.appUrl);
    expect((await signIn(profileBrowser, person.email)).status).toBe(303);
    const profile = await profileBrowser.follow('/profile-settings');
    const deleted = await profileBrowser.postJson('/profile-settings/delete-account', {}, { 'x-csrf-token': hiddenValue(profile.text, '_csrf')! });
    expect(deleted.status).toBe(200);
    return person;
  }

  /** The client's authorize URL in a new browser, signed in as `email`: the restore offer it is sent to. */
  async function restoreOfferThrough(client: Client, email: string) {
    const browser = new Browser(stack.appUrl);
    const signInPage = await walk(browser, authorizeUrl(stack, client));
    const offer = await signInOnPage(browser, stack.appUrl, signInPage, email);
    expect(offer.status).toBe(200);
    expect(new URL(offer.url).pathname).toBe('/profile-settings');
    expect(offer.text).toContain('data-page="reactivate-account"');
    return { browser, offer };
  }

  test('an account waiting for deletion is offered its restore before any app, even a skipped consent, gets it; then the app does', async () => {
    const skipping = await registerClient(stack, { skip_consent: true });
    const person = await accountWaitingForDeletion();
    const { browser, offer } = await restoreOfferThrough(skipping, person.email);
    const back = hiddenValue(offer.text, 'return_to')!;
    expect(new URL(back).pathname).toBe('/consent');
    // The way back fits what the offer takes back (server/security/return-to.ts MAX_RETURN_TO_LENGTH).
    expect(new URL(offer.url).searchParams.get('return_to')!.length).toBeLessThanOrEqual(MAX_RETURN_TO_LENGTH);

    const restored = await submitAndWalk(browser, stack.appUrl, '/profile-settings/reactivate', { _csrf: hiddenValue(offer.text, '_csrf')!, return_to: back });
    expect(new URL(restored.posted.location!).pathname).toBe('/consent');
    expect(callbackParams(restored.url).get('code')).toBeTruthy();
  });

  test("the restore offer's sign-out declines the app's consent: the app hears access_denied, and the browser is signed out", async () => {
    const client = await registerClient(stack);
    const person = await accountWaitingForDeletion();
    const { browser, offer } = await restoreOfferThrough(client, person.email);
    const challenge = new URL(hiddenValue(offer.text, 'return_to')!).searchParams.get('consent_challenge')!;
    const signOutLink = /<a href="([^"]*)">No thanks, sign out<\/a>/.exec(offer.text)?.[1]?.replaceAll('&amp;', '&');
    expect(signOutLink).toBe(`/logout?consent_challenge=${encodeURIComponent(challenge)}`);

    const confirm = await browser.get(signOutLink!);
    expect(confirm.status).toBe(200);
    expect(hiddenValue(confirm.text, 'consent_challenge')).toBe(challenge);
    // JavaScript off, the post ends at the app's redirect URI through Hydra.
    expect(confirm.headers.get('content-security-policy') ?? '').toMatch(/form-action [^;]*http:\/\/127\.0\.0\.1:9/);
    const out = await submitAndWalk(browser, stack.appUrl, '/logout', { _csrf: hiddenValue(confirm.text, '_csrf')!, consent_challenge: challenge });
    expect(out.posted.status).toBe(303);
    expect(out.posted.headers.get('clear-site-data')).toBe('"cache", "storage"');
    expect(callbackParams(out.url).get('error')).toBe('access_denied');
    expect(callbackParams(out.url).get('state')).toBe(STATE);
    const profile = await browser.get('/profile-settings');
    expect(profile.status).toBe(303);
    expect(new URL(profile.location!, stack.appUrl).pathname).toBe('/sign-in');
  });

  test("a sign-out naming someone else's consent signs out only: that consent is still theirs to answer", async () => {
    const client = await registerClient(stack);
    const { browser: owner, page } = await signInThroughClient(client);
    const challenge = hiddenValue(page.text, 'consent_challenge')!;
    const other = new Browser(stack.appUrl);
    expect((await signIn(other, (await identities.create()).email)).status).toBe(303);

    const confirm = await other.get(`/logout?consent_challenge=${encodeURIComponent(challenge)}`);
    expect(confirm.status).toBe(200);
    expect(hiddenValue(confirm.text, 'consent_challenge')).toBeUndefined();
    const out = await other.post('/logout', { _csrf: hiddenValue(confirm.text, '_csrf')!, consent_challenge: challenge });
    expect(out.status).toBe(303);
    const landing = new URL(out.location!, stack.appUrl);
    expect(`${landing.pathname}${landing.search}`).toBe(AFTER_LOGOUT_PATH);

    const allowed = await answerConsent(owner, stack.appUrl, page, 'allow');
    expect(callbackParams(allowed.url).get('code')).toBeTruthy();
  });

  test('a consent for someone else, or a signed-out browser, is not shown: sign in again (prompt=login)', async () => {
    const client = await registerClient(stack);
    const { page } = await signInThroughClient(client);
    const stranger = new Browser(stack.appUrl);
    const url = new URL(page.url);
    const answer = await stranger.get(`${url.pathname}${url.search}`);
    expect(answer.status).toBe(303);
    const restart = new URL(answer.location!);
    expect(`${restart.origin}${restart.pathname}`).toBe(`${stack.oauth2!.publicUrl}/oauth2/auth`);
    expect(restart.searchParams.get('prompt')).toBe('login');
    expect(answer.text).not.toContain('consent_challenge');
  });

  test('a POST without our CSRF token is refused', async () => {
    const client = await registerClient(stack);
    const { browser, page } = await signInThroughClient(client);
    const challenge = hiddenValue(page.text, 'consent_challenge')!;
    const forged = await browser.post('/consent', { consent_challenge: challenge, decision: 'allow' });
    expect(forged.status).toBe(403);
  });
});
