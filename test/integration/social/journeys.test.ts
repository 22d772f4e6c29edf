// Signing up and in with each provider over HTTP, JavaScript off: our button → the provider's
// choose-account page → Kratos's callback → home (or return_to), signed in; signing out and in again
// with the same provider. Against the stand-in and real Kratos (the fakes configured as generic there).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { catalogueText } from '../../support/browser.ts';
import { findIdentity, getIdentity, uniqueEmail, useIdentities } from '../../support/fixtures.ts';
import { Browser, formAction, hiddenValue } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';
import { pathOf, PROVIDERS, returnFromProvider, signedIn, signOut, socialRoundTrip } from './social-support.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ socialProviders: true });
});
afterAll(() => stack?.close());
const identities = useIdentities(() => stack.identity.adminUrl);

const LOGIN_SERVICE = { google: 'GOOGLE', microsoft: 'MICROSOFT', dropbox: 'DROPBOX', apple: 'APPLE' } as const;

/** A new account at provider `id`, its identity (made by the flow under test) deleted after the test. */
function newAccount(id: (typeof PROVIDERS)[number], label: string): string {
  const email = uniqueEmail(`${id}-${label}`);
  stack.providers!.addAccount(id, { email, name: `${label} ${id}` });
  identities.track(email);
  return email;
}

describe.each(PROVIDERS)('%s', (id) => {
  test('sign up with it → home, signed in; sign out; sign in with it → home', async () => {
    const email = newAccount(id, 'journey');
    const browser = new Browser(stack.appUrl);
    const signedUp = await socialRoundTrip(stack, browser, '/sign-up', id, { email });
    expect(signedUp.status, signedUp.text.slice(0, 300)).toBe(200);
    expect(signedUp.url).toBe(`${stack.appUrl}/`);
    expect(await signedIn(browser)).toBe(true);
    const found = await findIdentity(stack.identity.adminUrl, email);
    expect((await getIdentity(stack.identity.adminUrl, found!.id)).traits).toMatchObject({ email, loginService: LOGIN_SERVICE[id] });

    await signOut(browser);
    expect(await signedIn(browser)).toBe(false);

    const again = await socialRoundTrip(stack, browser, '/sign-in', id, { email });
    expect(again.url).toBe(`${stack.appUrl}/`);
    expect(again.status).toBe(200);
    expect(await signedIn(browser)).toBe(true);
  });
});

describe('after the provider', () => {
  test('a new person pressing a provider on sign-in gets an account and is signed in, on to return_to', async () => {
    const email = newAccount('google', 'from-sign-in');
    const browser = new Browser(stack.appUrl);
    const end = await socialRoundTrip(stack, browser, '/sign-in', 'google', { email }, '?return_to=%2Fprofile-settings');
    expect(pathOf(end.url)).toBe('/profile-settings');
    expect(end.status).toBeLessThan(400);
    expect(await findIdentity(stack.identity.adminUrl, email)).toBeDefined();
  });

  test('signing in again goes to return_to, through our allow-list', async () => {
    const email = newAccount('dropbox', 'return-to');
    const first = new Browser(stack.appUrl);
    await socialRoundTrip(stack, first, '/sign-up', 'dropbox', { email });
    const browser = new Browser(stack.appUrl);
    const end = await socialRoundTrip(stack, browser, '/sign-in', 'dropbox', { email }, '?return_to=%2Fprofile-settings');
    expect(pathOf(end.url)).toBe('/profile-settings');
    // A return_to outside the allow-list is never where Kratos sends the browser.
    const other = new Browser(stack.appUrl);
    const refused = await socialRoundTrip(stack, other, '/sign-in', 'dropbox', { email }, '?return_to=https%3A%2F%2Fevil.example%2F');
    expect(refused.url).toBe(`${stack.appUrl}/`);
  });

  test('a cancel at the provider: the sign-in form again with our translated message and a 400; then another provider works', async () => {
    const browser = new Browser(stack.appUrl);
    browser.cookies.set('lng', 'vi'); // the language cookie: Kratos's redirect back carries no ?lng
    const end = await socialRoundTrip(stack, browser, '/sign-in', 'microsoft', { cancel: true }, '?return_to=%2Fprofile-settings');
    expect(pathOf(end.url)).toBe('/sign-in');
    expect(end.status).toBe(400);
    expect(end.text).toContain(catalogueText('vi', 'social.error.cancelled'));
    // Our return_to came back from the flow although Kratos's redirect carried only ?flow=.
    const action = new URL(formAction(end.text, 'sign-in-form')!, stack.appUrl);
    expect(action.searchParams.get('return_to')).toBe(`${stack.appUrl}/profile-settings`);
    const email = newAccount('microsoft', 'after-cancel');
    const pressed = await browser.post(formAction(end.text, 'sign-in-form')!, { csrf_token: hiddenValue(end.text, 'csrf_token')!, provider: 'microsoft' });
    expect(pressed.status).toBe(303);
    const done = await returnFromProvider(stack, browser, pressed.location!, { email });
    expect(pathOf(done.url)).toBe('/profile-settings');
  });
});
