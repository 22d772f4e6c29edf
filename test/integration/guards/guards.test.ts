import request from 'supertest';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { signIn, uniqueEmail, useIdentities } from '../../support/fixtures.ts';
import { Browser, flowFormAction } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';
import { ROUTES, SIGNED_OUT_UNSAVED } from '../../../core/routes.ts';
import { catalogueText } from '../../support/browser.ts';

let stack: Stack;
let documentApp: Stack;
beforeAll(async () => {
  stack = await startStack({ env: { ACCOUNT_HOST: 'accounts.localtest' } });
  documentApp = await startStack({ env: { DOCUMENT_APP_URL: 'https://docs.example.com/app' } });
});
afterAll(async () => {
  await stack?.close();
  await documentApp?.close();
});
const identities = useIdentities(() => stack.identity.adminUrl);
const documentAppIdentities = useIdentities(() => documentApp.identity.adminUrl);

async function signedIn(target: Stack): Promise<Browser> {
  const email = uniqueEmail('guard');
  await (target === stack ? identities : documentAppIdentities).create({ email, name: 'Grace' });
  const browser = new Browser(target.appUrl);
  expect((await signIn(browser, email)).status).toBe(303);
  return browser;
}

describe('login required', () => {
  test('a guest on / goes to /sign-in with return_to', async () => {
    const answer = await new Browser(stack.appUrl).get('/?tab=1');
    expect(answer.status).toBe(303);
    const location = new URL(answer.location!, stack.appUrl);
    expect(location.pathname).toBe('/sign-in');
    expect(location.searchParams.get('return_to')).toBe(`${stack.appUrl}/?tab=1`);
    expect(location.searchParams.has('logged_out')).toBe(false); // nothing was lost: no notice
  });

  test('a guest posting one of the profile page’s forms comes back to that page after signing in, not to the form’s action', async () => {
    const actions = [ROUTES.avatarUpload, ROUTES.avatarRemove, ROUTES.deleteAccount, ROUTES.reactivate, ROUTES.signOutEverywhere];
    for (const action of actions) {
      const answer = await new Browser(stack.appUrl).post(action, {});
      expect(answer.status, action).toBe(303);
      expect(new URL(answer.location!, stack.appUrl).searchParams.get('return_to'), action).toBe(`${stack.appUrl}${ROUTES.profile}`);
    }
    // Signed out elsewhere while the page was open, then a form sent: sign-in leads back to the page.
    const email = uniqueEmail('guard-action');
    await identities.create({ email, name: 'Grace' });
    const browser = new Browser(stack.appUrl);
    const toSignIn = await browser.post(ROUTES.signOutEverywhere, {});
    // The sign-in page says the change was not made (JavaScript off has no session-changed dialog before it).
    expect(new URL(toSignIn.location!, stack.appUrl).searchParams.get('logged_out')).toBe(SIGNED_OUT_UNSAVED);
    for (const lng of ['en', 'vi']) {
      const page = await new Browser(stack.appUrl).follow(`${toSignIn.location!}&lng=${lng}`);
      expect(/data-notice="signed-out"[^>]*>([\s\S]*?)<\/div>/.exec(page.text)?.[1], lng).toContain(catalogueText(lng, 'authPage.signedOutUnsaved'));
    }
    const signedIn = await signIn(browser, email, undefined, new URL(toSignIn.location!, stack.appUrl).search);
    expect(signedIn.status).toBe(303);
    expect(new URL(signedIn.location!, stack.appUrl).pathname).toBe(ROUTES.profile);
    expect((await browser.follow(signedIn.location!)).status).toBe(200);
  });

  test('a JSON guest gets 401 in the spec error shape', async () => {
    const answer = await new Browser(stack.appUrl).get('/', { accept: 'application/json' });
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.text)).toEqual({ code: 'unauthorized', message: 'Please sign in to continue.', meta: {} });
  });

  test('a garbage session cookie is a guest, not a crash', async () => {
    const browser = new Browser(stack.appUrl);
    browser.cookies.set('ory_kratos_session', 'garbage');
    const answer = await browser.get('/');
    expect(answer.status).toBe(303);
  });

  test('signed in: the minimal home shows who you are and links to settings and logout', async () => {
    const browser = await signedIn(stack);
    const home = await browser.get('/');
    expect(home.status).toBe(200);
    expect(home.text).toContain('Hello, Grace');
    expect(home.text).toContain('href="/profile-settings"');
    expect(home.text).toContain('href="/logout"');
  });

  test('with DOCUMENT_APP_URL configured, / goes to the document app', async () => {
    const browser = await signedIn(documentApp);
    const home = await browser.get('/');
    expect(home.status).toBe(303);
    expect(home.location).toBe('https://docs.example.com/app');
  });
});

describe('guests only', () => {
  test('a signed-in user on /sign-in and /sign-up goes on to return_to, else /', async () => {
    const browser = await signedIn(stack);
    const plain = await browser.get('/sign-in');
    expect(plain.status).toBe(303);
    expect(plain.location).toBe('/');
    const withReturn = await browser.get('/sign-up?return_to=%2Fprofile-settings');
    expect(withReturn.status).toBe(303);
    expect(withReturn.location).toBe(`${stack.appUrl}/profile-settings`);
    const evil = await browser.get('/sign-in?return_to=%2F%2Fevil.example');
    expect(evil.status).toBe(303);
    expect(evil.location).toBe('/');
  });

  test('a signed-in POST to /sign-in does not sign in again', async () => {
    const browser = await signedIn(stack);
    const answer = await browser.post('/sign-in?flow=00000000-0000-4000-8000-000000000000', { csrf_token: 'x', identifier: 'a@b.c', password: 'whatever1' });
    expect(answer.status).toBe(303);
    expect(answer.location).toBe('/');
  });
});

describe('ACCOUNT_HOST', () => {
  const onAccountHost = { host: 'accounts.localtest' };

  // fetch() may not set Host; supertest (node:http) can.
  test('sign-in and sign-up answer on the account host', async () => {
    const signInPage = await request(stack.appUrl).get('/sign-in').set(onAccountHost);
    expect(signInPage.status).toBe(200);
    expect(flowFormAction(signInPage.text)).toMatch(/^\/sign-in\?flow=/);
    const signUpPage = await request(stack.appUrl).get('/sign-up').set(onAccountHost);
    expect(signUpPage.status).toBe(200);
    expect(flowFormAction(signUpPage.text)).toMatch(/^\/sign-up\?flow=/);
  });

  test('other paths on the account host go to PUBLIC_URL', async () => {
    const answer = await request(stack.appUrl).get('/profile-settings?x=1').set(onAccountHost);
    expect(answer.status).toBe(303);
    expect(answer.headers.location).toBe(`${stack.appUrl}/profile-settings?x=1`);
    const post = await request(stack.appUrl).post('/logout').set(onAccountHost).type('form').send({});
    expect(post.status).toBe(307);
    expect(post.headers.location).toBe(`${stack.appUrl}/logout`);
    // The same paths on the public host are served normally.
    expect((await request(stack.appUrl).get('/profile-settings')).headers.location).not.toBe(`${stack.appUrl}/profile-settings`);
  });
});
