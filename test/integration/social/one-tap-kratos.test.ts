// Google One Tap end to end over HTTP: the fake Google's credentials (ID tokens signed with its key,
// embedded/providers) posted to the app, which submits them to the identity stand-in as Kratos's
// `id_token` + `id_token_nonce` (decision 120). Stand-in only (test/real-ory-projects.ts says why).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Browser, findIdentity, uniqueEmail, useIdentities } from '../../support/fixtures.ts';
import { alerts, hiddenValue } from '../../support/http.ts';
import { buildAssets, catalogueText } from '../../support/browser.ts';
import { startStack, type Stack } from '../../support/stack.ts';
import { navigate, USER_NAVIGATION } from './social-support.ts';

let stack: Stack;
const build = buildAssets('one-tap-kratos');

beforeAll(async () => {
  stack = await startStack({ socialProviders: true, env: { ASSETS_DIR: build.assetsDir } });
});
afterAll(async () => {
  await stack?.close();
  build.remove();
});
const identities = useIdentities(() => stack.identity.adminUrl);

const google = () => stack.providers!;

/** A Google account at the fake, its identity (made by the flow under test) deleted after the test. */
function googleAccount(label: string): string {
  const email = uniqueEmail(label);
  google().addAccount('google', { email, name: `Tap ${label}` });
  identities.track(email);
  return email;
}

/** The sign-in page with One Tap: the nonce the island would give Google and the double-submit token. */
async function offer(browser: Browser, query = '') {
  const page = await browser.follow(`/sign-in${query}`);
  const nonce = /data-nonce="([\w-]{43})"/.exec(page.text)?.[1];
  const token = hiddenValue(page.text, 'g_csrf_token');
  if (page.status !== 200 || !nonce || !token) throw new Error(`no One Tap offer (status ${page.status})`);
  const action = /<form id="one-tap"[^>]*action="([^"]+)"/.exec(page.text)![1]!.replace(/&amp;/g, '&');
  return { nonce, token, action };
}

/** 200: the home of a signed-in browser; 303: a guest sent to sign in. */
const signedInAt = async (browser: Browser) => (await browser.get('/')).status;

describe('One Tap post', () => {
  test('a new Google account: registered and signed in, 303 to return_to, the Google token cookie set', async () => {
    const email = googleAccount('tap-new');
    const browser = new Browser(stack.appUrl);
    const { nonce, token, action } = await offer(browser, '?return_to=%2Fprofile-settings');
    expect(action).toBe('/sign-in/google-one-tap?return_to=%2Fprofile-settings');
    const credential = await google().oneTapCredential(email, { nonce });
    const answer = await browser.post(action, { credential, g_csrf_token: token });
    expect(answer.status, answer.text.slice(0, 300)).toBe(303);
    expect(answer.location).toBe(`${stack.appUrl}/profile-settings`);
    expect(answer.setCookies.some((line) => line.startsWith('ory_kratos_session='))).toBe(true);
    const googleCookie = answer.setCookies.find((line) => line.startsWith('google_access_token_test='));
    expect(googleCookie).toMatch(/HttpOnly/i);
    expect(browser.cookies.get('google_access_token_test')).toBe(credential);
    expect(JSON.parse(decodeURIComponent(browser.cookies.get('last_access_account')!))).toMatchObject({ email });
    expect(await signedInAt(browser)).toBe(200);
    const identity = await findIdentity(stack.identity.adminUrl, email);
    expect(identity?.verifiable_addresses?.[0]).toMatchObject({ value: email, verified: true });
  });

  test('the same account the next time: signed straight in; the used nonce cannot be replayed', async () => {
    const email = googleAccount('tap-again');
    const first = new Browser(stack.appUrl);
    const offered = await offer(first);
    const credential = await google().oneTapCredential(email, { nonce: offered.nonce });
    expect((await first.post(offered.action, { credential, g_csrf_token: offered.token })).status).toBe(303);

    const second = new Browser(stack.appUrl);
    const again = await offer(second);
    const answer = await second.post(again.action, { credential: await google().oneTapCredential(email, { nonce: again.nonce }), g_csrf_token: again.token });
    expect(answer.status).toBe(303);
    expect(answer.location).toBe('/');
    expect(await signedInAt(second)).toBe(200);

    // The same credential posted again from a third browser with a token pair of its own: its nonce is not that browser's.
    const third = new Browser(stack.appUrl);
    const replay = await offer(third);
    const refused = await third.post(replay.action, { credential, g_csrf_token: replay.token });
    expect(refused.status).toBe(400);
    expect(alerts(refused.text)).toContain(catalogueText('en', 'oneTap.failed'));
    expect(refused.setCookies.some((line) => line.startsWith('ory_kratos_session='))).toBe(false);
  });

  test('a nonce mismatch or another audience: the translated message and a 400, nobody signed in', async () => {
    const email = googleAccount('tap-mismatch');
    for (const options of [{ nonce: 'not-the-nonce-we-issued' }, { audience: 'another-client-id' }]) {
      const browser = new Browser(stack.appUrl);
      const { nonce, token, action } = await offer(browser);
      const credential = await google().oneTapCredential(email, { nonce, ...options });
      const answer = await browser.post(action, { credential, g_csrf_token: token });
      expect(answer.status, JSON.stringify(options)).toBe(400);
      expect(alerts(answer.text)).toContain(catalogueText('en', 'oneTap.failed'));
      expect(answer.setCookies.some((line) => line.startsWith('ory_kratos_session='))).toBe(false);
      expect(await signedInAt(browser)).toBe(303);
    }
    expect(await findIdentity(stack.identity.adminUrl, email)).toBeUndefined();
  });

  test('an e-mail that already has an account: on to the account-linking sign-in flow', async () => {
    const existing = await identities.create({ prefix: 'tap-taken' });
    google().addAccount('google', { email: existing.email, name: 'Tap Taken' });
    const browser = new Browser(stack.appUrl);
    const { nonce, token, action } = await offer(browser, '?return_to=%2Fprofile-settings');
    const answer = await browser.post(action, { credential: await google().oneTapCredential(existing.email, { nonce }), g_csrf_token: token });
    expect(answer.status).toBe(303);
    const to = new URL(answer.location!, stack.appUrl);
    expect(to.pathname).toBe('/sign-in');
    expect(to.searchParams.get('flow')).toMatch(/^[0-9a-f-]{36}$/);
    expect(to.searchParams.get('return_to')).toBe('/profile-settings');
    expect(answer.setCookies.some((line) => line.startsWith('ory_kratos_session='))).toBe(false);
    const page = await browser.get(answer.location!);
    expect(page.status).toBe(200);
    expect(page.text).toContain(existing.email);
  });

  test('JSON callers get where to go', async () => {
    const email = googleAccount('tap-json');
    const browser = new Browser(stack.appUrl);
    const { nonce, token, action } = await offer(browser);
    const answer = await browser.postJson(action, { credential: await google().oneTapCredential(email, { nonce }), g_csrf_token: token });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toMatchObject({ redirect_to: '/' });
  });
});

describe('credential handed over in the address', () => {
  test('confirmed by the user, it signs in and goes on to return_to', async () => {
    const email = googleAccount('tap-link');
    const browser = new Browser(stack.appUrl);
    const credential = await google().oneTapCredential(email); // minted elsewhere: no nonce of ours
    const moved = await browser.get(`/sign-in?credential=${credential}&return_to=%2Fprofile-settings`);
    expect(moved.status).toBe(303);
    expect(await signedInAt(browser)).toBe(303); // the GET signed nobody in
    const confirm = await browser.get(moved.location!);
    expect(confirm.text).toContain(catalogueText('en', 'oneTap.confirmAs', { email }));
    const answer = await browser.post('/sign-in/google-one-tap?return_to=%2Fprofile-settings', {
      handed_over: '1',
      g_csrf_token: hiddenValue(confirm.text, 'g_csrf_token')!,
    });
    expect(answer.status, answer.text.slice(0, 300)).toBe(303);
    expect(answer.location).toBe(`${stack.appUrl}/profile-settings`);
    expect(browser.cookies.has('one_tap_credential')).toBe(false);
    expect(await signedInAt(browser)).toBe(200);
  });

  test('a One Tap credential (it carries a nonce) cannot be handed over: refused with the translated message', async () => {
    const email = googleAccount('tap-link-nonce');
    const browser = new Browser(stack.appUrl);
    await browser.get(`/sign-in?credential=${await google().oneTapCredential(email, { nonce: 'minted-for-someone-else' })}`);
    const confirm = await browser.get('/sign-in/google-one-tap');
    const answer = await browser.post('/sign-in/google-one-tap', { handed_over: '1', g_csrf_token: hiddenValue(confirm.text, 'g_csrf_token')! });
    expect(answer.status).toBe(400);
    expect(alerts(answer.text)).toContain(catalogueText('en', 'oneTap.failed'));
    expect(await signedInAt(browser)).toBe(303);
  });
});

describe('an identity service that does not sign a social sign-up in', () => {
  let quiet: Stack;
  beforeAll(async () => {
    // registration.after.oidc without the `session` hook (its own list replaces the default one).
    const hooks = [{ hook: 'show_verification_ui' }];
    quiet = await startStack({
      socialProviders: true,
      env: { ASSETS_DIR: build.assetsDir },
      identityConfig: { selfservice: { flows: { registration: { after: { oidc: { hooks } } } } } } as never,
    });
  });
  afterAll(() => quiet?.close());

  test('the new account is registered, then signs in with One Tap from the sign-in page it lands on', async () => {
    const email = uniqueEmail('tap-quiet');
    quiet.providers!.addAccount('google', { email, name: 'Tap Quiet' });
    const browser = new Browser(quiet.appUrl);
    const first = await offer(browser, '?return_to=%2Fprofile-settings');
    const answer = await browser.post(first.action, {
      credential: await quiet.providers!.oneTapCredential(email, { nonce: first.nonce }),
      g_csrf_token: first.token,
    });
    expect(answer.status).toBe(303);
    expect(answer.location).toBe(`/sign-in?email=${encodeURIComponent(email)}&return_to=%2Fprofile-settings`);
    expect(answer.setCookies.some((line) => line.startsWith('ory_kratos_session='))).toBe(false);
    expect(await findIdentity(quiet.identity.adminUrl, email)).toBeDefined(); // gone with this stack's in-memory store

    const second = await offer(browser, answer.location!.replace('/sign-in', ''));
    const signedIn = await browser.post(second.action, {
      credential: await quiet.providers!.oneTapCredential(email, { nonce: second.nonce }),
      g_csrf_token: second.token,
    });
    expect(signedIn.status).toBe(303);
    expect(signedIn.location).toBe(`${quiet.appUrl}/profile-settings`);
    expect(await signedInAt(browser)).toBe(200);
  });
});

describe('request_google_sign_in without One Tap', () => {
  let redirectOnly: Stack;
  beforeAll(async () => {
    redirectOnly = await startStack({ socialProviders: true, env: { ASSETS_DIR: build.assetsDir, GOOGLE_CLIENT_ID: '' } });
  });
  afterAll(() => redirectOnly?.close());

  test('starts Google’s redirect sign-in at once: on to the fake Google’s authorize page', async () => {
    const browser = new Browser(redirectOnly.appUrl);
    const asked = await navigate(browser, '/sign-in?request_google_sign_in=true', USER_NAVIGATION);
    expect(asked.status).toBe(303);
    expect(asked.location).toBe('/sign-in?request_social_sign_in=true&provider=google');
    const started = await navigate(browser, asked.location!, USER_NAVIGATION);
    expect(started.status).toBe(303);
    const authorize = new URL(started.location!);
    expect(authorize.origin).toBe(redirectOnly.providers!.google.origin);
    expect(authorize.searchParams.get('client_id')).toBe(redirectOnly.providers!.google.clientId);
  });
});
