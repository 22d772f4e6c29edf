// The account-link sequence of spec §4 confirmed with ANOTHER PROVIDER, over HTTP, JavaScript off, on the
// stand-in and real Kratos. Kratos's callback links and signs in without passing our sign-in handler; the
// link our handler noted when the provider was pressed (server/flows/pending-link.ts) makes the first
// signed-in page go to the SUCCESS notice, with the backend told (user/confirm-link-account). A cancel at
// the provider, or a sign-in that linked nothing, shows no notice.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { catalogueText } from '../../support/browser.ts';
import { uniqueEmail, useIdentities } from '../../support/fixtures.ts';
import { alerts, Browser, formAction, hiddenValue, type Answer } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';
import { backendLinks, pathOf, returnFromProvider, signedIn, signOut, socialRoundTrip } from './social-support.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ socialProviders: true });
});
afterAll(() => stack?.close());
const identities = useIdentities(() => stack.identity.adminUrl);

/** An account made with Microsoft, whose person also has Google with the same address. */
async function microsoftOnly(label: string): Promise<string> {
  const email = uniqueEmail(label);
  for (const id of ['microsoft', 'google'] as const) stack.providers!.addAccount(id, { email, name: 'Ada' });
  identities.track(email);
  const signUp = new Browser(stack.appUrl);
  expect((await socialRoundTrip(stack, signUp, '/sign-up', 'microsoft', { email })).status).toBe(200);
  return email;
}

/** Google on the sign-in page with that address: Kratos's link flow, shown as our sequence. */
async function sequence(browser: Browser, email: string, query = '') {
  const page = await socialRoundTrip(stack, browser, '/sign-in', 'google', { email }, query);
  expect(pathOf(page.url)).toBe('/sign-in');
  expect(page.text).toContain(catalogueText('en', 'accountLink.confirmWith', { provider: 'Microsoft' }));
  return page;
}

/** "Confirm with Microsoft" on the sequence's page, posted as the browser does (with the identifier Kratos hid): our 303 to Microsoft. */
async function confirmWithMicrosoft(browser: Browser, page: Answer): Promise<string> {
  const form = { csrf_token: hiddenValue(page.text, 'csrf_token')!, identifier: hiddenValue(page.text, 'identifier')!, provider: 'microsoft' };
  const pressed = await browser.post(formAction(page.text, 'sign-in-form')!, form);
  expect(pressed.status, pressed.text.slice(0, 300)).toBe(303);
  expect(new URL(pressed.location!).origin).toBe(stack.providers!.microsoft.origin);
  return pressed.location!;
}

const continueHref = (html: string) =>
  /<a[^>]*data-link="continue"[^>]*href="([^"]+)"|<a[^>]*href="([^"]+)"[^>]*data-link="continue"/.exec(html)?.slice(1).find(Boolean);

describe('account linking confirmed with another provider', () => {
  test('a Microsoft account + Google with the same e-mail → Confirm with Microsoft → the same person → the notice, the backend told → next time Google signs straight in', async () => {
    const email = await microsoftOnly('link-by-provider');
    const browser = new Browser(stack.appUrl);
    const prompt = await sequence(browser, email);
    expect(formAction(prompt.text, 'sign-in-form')).toContain('link_provider=google');
    const at = await confirmWithMicrosoft(browser, prompt);

    const linked = await returnFromProvider(stack, browser, at, { email });
    expect(pathOf(linked.url)).toBe('/sign-in/linked');
    expect(new URL(linked.url).searchParams.get('provider')).toBe('google');
    expect(linked.status).toBe(200);
    expect(linked.text).toContain('data-link-state="SUCCESS"');
    expect(alerts(linked.text)).toContain(catalogueText('en', 'accountLink.success', { provider: 'Google' }));
    expect(continueHref(linked.text)).toBe(`${stack.appUrl}/`);
    expect(await backendLinks(stack, browser)).toEqual([expect.objectContaining({ provider: 'google', email })]);
    // Shown once: the home page is the home page again.
    const home = await browser.get('/');
    expect(home.status).toBe(200);
    expect(home.text).not.toContain('data-link-state');

    await signOut(browser);
    const straightIn = await socialRoundTrip(stack, new Browser(stack.appUrl), '/sign-in', 'google', { email });
    expect(straightIn.url).toBe(`${stack.appUrl}/`);
    expect(straightIn.status).toBe(200);
  });

  test('with a return_to: the notice continues there', async () => {
    const email = await microsoftOnly('link-by-provider-return');
    const browser = new Browser(stack.appUrl);
    const at = await confirmWithMicrosoft(browser, await sequence(browser, email, '?return_to=%2Fprofile-settings'));
    const linked = await returnFromProvider(stack, browser, at, { email });
    expect(pathOf(linked.url)).toBe('/sign-in/linked');
    expect(linked.text).toContain('data-link-state="SUCCESS"');
    expect(continueHref(linked.text)).toBe(`${stack.appUrl}/profile-settings`);
  });

  test('a cancel at the provider: CANCELLED, then a plain Microsoft sign-in shows no notice and links nothing', async () => {
    const email = await microsoftOnly('link-by-provider-cancel');
    const browser = new Browser(stack.appUrl);
    const cancelled = await returnFromProvider(stack, browser, await confirmWithMicrosoft(browser, await sequence(browser, email)), { cancel: true });
    expect(pathOf(cancelled.url)).toBe('/sign-in');
    expect(cancelled.text).toContain('data-link-state="CANCELLED"');

    const plain = await socialRoundTrip(stack, browser, '/sign-in', 'microsoft', { email });
    expect(plain.url).toBe(`${stack.appUrl}/`);
    expect(plain.status).toBe(200);
    expect(plain.text).not.toContain('data-link-state');
    expect(await backendLinks(stack, browser)).toEqual([]);
    // Nothing was linked: Google still leads to the sequence.
    await sequence(new Browser(stack.appUrl), email);
  });

  test('left at the provider: a later plain sign-in in the same browser shows no notice', async () => {
    const email = await microsoftOnly('link-by-provider-left');
    const browser = new Browser(stack.appUrl);
    await confirmWithMicrosoft(browser, await sequence(browser, email)); // noted, never finished
    expect(await signedIn(browser)).toBe(false);

    const plain = await socialRoundTrip(stack, browser, '/sign-in', 'microsoft', { email }, '?return_to=%2Fprofile-settings');
    expect(pathOf(plain.url)).toBe('/profile-settings');
    expect(plain.status).toBe(200);
    expect(plain.text).not.toContain('data-link-state');
    expect(await backendLinks(stack, browser)).toEqual([]);
  });
});
