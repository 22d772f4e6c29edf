// The account-link sequence of spec §4 over HTTP, JavaScript off, on the stand-in and real Kratos: an
// e-mail-and-password account, then Google with the same e-mail → Kratos's account-linking sign-in flow
// (1010016) shown as our sequence → the password → linked (the backend told: user/confirm-link-account)
// → the notice → home; next time Google signs straight in. A wrong account (4010009) and a cancel, at
// the provider or with our Cancel link, each end in the translated message.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { catalogueText } from '../../support/browser.ts';
import { STRONG_PASSWORD, uniqueEmail, useIdentities } from '../../support/fixtures.ts';
import { alerts, Browser, formAction, hiddenValue } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';
import { backendLinks, followOn, pathOf, returnFromProvider, signedIn, signOut, socialRoundTrip } from './social-support.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ socialProviders: true });
});
afterAll(() => stack?.close());
const identities = useIdentities(() => stack.identity.adminUrl);

/** A password account and a Google account with the same address. */
async function adaWithGoogle(label: string) {
  const ada = await identities.create({ prefix: label, name: 'Ada' });
  stack.providers!.addAccount('google', { email: ada.email, name: 'Ada at Google' });
  return ada;
}

/** Google on the sign-in page with Ada's address: where Kratos sends the browser (our sign-in page, the link flow). */
async function promptFor(browser: Browser, email: string, query = '') {
  const page = await socialRoundTrip(stack, browser, '/sign-in', 'google', { email }, query);
  expect(pathOf(page.url)).toBe('/sign-in');
  expect(new URL(page.url).searchParams.get('flow')).toMatch(/^[0-9a-f-]{36}$/);
  return page;
}

describe('account linking', () => {
  test('password account + Google with the same e-mail → the sequence → the password → linked → next time Google signs straight in', async () => {
    const ada = await adaWithGoogle('link-ok');
    const browser = new Browser(stack.appUrl);
    const prompt = await promptFor(browser, ada.email, '?return_to=%2Fprofile-settings');
    expect(prompt.status).toBe(200);
    expect(prompt.text).toContain('data-link-state="PROMPT_SELECT_ACCOUNT"');
    expect(prompt.text).toContain(catalogueText('en', 'accountLink.titleWith', { provider: 'Google' }));
    expect(prompt.text).toContain(catalogueText('en', 'errorMessage.alreadySignUpBy', { loginService: 'email and password' }).slice(0, 40));
    expect(prompt.text).toContain(catalogueText('en', 'accountLink.signInWith', { loginService: 'email and password' }));
    expect(hiddenValue(prompt.text, 'identifier')).toBe(ada.email);
    expect(prompt.text).toContain('>Sign in and link<');
    // Only the ways in Ada's account has: no provider Kratos offers for it (Ada has none), not Google again.
    expect(prompt.text).not.toContain('data-provider=');
    expect(await signedIn(browser)).toBe(false);

    const action = formAction(prompt.text, 'sign-in-form')!;
    expect(action).toContain('link_provider=google');
    const linked = await browser.post(action, {
      csrf_token: hiddenValue(prompt.text, 'csrf_token')!,
      identifier: ada.email,
      password: STRONG_PASSWORD,
      method: 'password',
    });
    expect(linked.status, linked.text.slice(0, 300)).toBe(303);
    expect(pathOf(new URL(linked.location!, stack.appUrl).href)).toBe('/sign-in/linked');
    const notice = await browser.get(linked.location!);
    expect(notice.status).toBe(200);
    expect(notice.text).toContain('data-link-state="SUCCESS"');
    expect(notice.text).toContain(catalogueText('en', 'accountLink.success', { provider: 'Google' }));
    const continueLink = /<a[^>]*data-link="continue"[^>]*>/.exec(notice.text)?.[0] ?? '';
    expect(continueLink).toMatch(/href="[^"]*\/profile-settings"/);
    expect(await backendLinks(stack, browser)).toEqual([expect.objectContaining({ provider: 'google', email: ada.email })]);

    await signOut(browser);
    const next = new Browser(stack.appUrl);
    const straightIn = await socialRoundTrip(stack, next, '/sign-in', 'google', { email: ada.email });
    expect(straightIn.url).toBe(`${stack.appUrl}/`);
    expect(straightIn.status).toBe(200);
  });

  test('JSON: the flow comes with the sequence’s state; a provider to confirm with is LINKING_ACCOUNT; the linking sign-in answers SUCCESS', async () => {
    const ada = await adaWithGoogle('link-json');
    stack.providers!.addAccount('microsoft', { email: ada.email, name: 'Ada' });
    const browser = new Browser(stack.appUrl);
    const prompt = await promptFor(browser, ada.email);
    const json = await browser.get(new URL(prompt.url).pathname + new URL(prompt.url).search, { accept: 'application/json' });
    const body = JSON.parse(json.text) as { account_link: { state: string; step: number; email: string; provider: string }; flow: { ui: { action: string } } };
    expect(body.account_link).toMatchObject({ state: 'PROMPT_SELECT_ACCOUNT', step: 1, email: ada.email, provider: 'google' });
    // The page's form address carries what the sequence remembers (link_provider).
    const toProvider = await browser.postJson(formAction(prompt.text, 'sign-in-form')!, {
      csrf_token: hiddenValue(prompt.text, 'csrf_token')!,
      provider: 'microsoft',
    });
    expect(toProvider.status).toBe(422);
    expect(JSON.parse(toProvider.text)).toMatchObject({
      code: 'browser_location_change_required',
      meta: { account_link: { state: 'LINKING_ACCOUNT', step: 2 } },
    });
    const answer = await browser.postJson(body.flow.ui.action, {
      csrf_token: hiddenValue(prompt.text, 'csrf_token')!,
      identifier: ada.email,
      password: STRONG_PASSWORD,
      method: 'password',
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toMatchObject({
      account_link: { state: 'SUCCESS', step: 5, provider: 'google' },
      redirect_to: expect.stringContaining('/sign-in/linked'),
    });
  });

  test('a wrong password keeps the sequence, with the message under it', async () => {
    const ada = await adaWithGoogle('link-wrong-password');
    const browser = new Browser(stack.appUrl);
    const prompt = await promptFor(browser, ada.email);
    const answer = await browser.post(formAction(prompt.text, 'sign-in-form')!, {
      csrf_token: hiddenValue(prompt.text, 'csrf_token')!,
      identifier: ada.email,
      password: 'Not-The-Password-42',
      method: 'password',
    });
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('data-link-state="PROMPT_SELECT_ACCOUNT"');
    expect(alerts(answer.text)).toContain(catalogueText('en', 'errorMessage.incorrectEmailOrPassword'));
    // What Kratos said on the first page is remembered in our address: the headline stays.
    expect(answer.text).toContain(catalogueText('en', 'accountLink.titleWith', { provider: 'Google' }));
  });

  test('an account that signs in with Microsoft: "continue with Microsoft", its button only; a cancel there → CANCELLED; another person’s Microsoft account → WRONG_ACCOUNT_SELECTED; its own → linked', async () => {
    const email = uniqueEmail('link-microsoft');
    for (const id of ['microsoft', 'google'] as const) stack.providers!.addAccount(id, { email, name: 'Ada' });
    identities.track(email);
    expect((await socialRoundTrip(stack, new Browser(stack.appUrl), '/sign-up', 'microsoft', { email })).status).toBe(200);
    const bobEmail = uniqueEmail('link-bob');
    stack.providers!.addAccount('microsoft', { email: bobEmail, name: 'Bob' });
    identities.track(bobEmail);
    expect((await socialRoundTrip(stack, new Browser(stack.appUrl), '/sign-up', 'microsoft', { email: bobEmail })).status).toBe(200);

    const browser = new Browser(stack.appUrl);
    const prompt = await promptFor(browser, email);
    expect(prompt.text).toContain(catalogueText('en', 'errorMessage.alreadySignedInAnotherMethod', { provider: 'Microsoft' }));
    expect(prompt.text).toContain(catalogueText('en', 'accountLink.confirmWith', { provider: 'Microsoft' }));
    expect(prompt.text.match(/data-provider="/g)).toHaveLength(1);
    expect(prompt.text).not.toContain('name="password"'); // no password to sign in with
    const confirm = async (page: typeof prompt) => {
      // As the browser posts it: with the identifier Kratos hid in the form.
      const form = { csrf_token: hiddenValue(page.text, 'csrf_token')!, identifier: hiddenValue(page.text, 'identifier')!, provider: 'microsoft' };
      const pressed = await browser.post(formAction(page.text, 'sign-in-form')!, form);
      expect(pressed.status).toBe(303);
      return pressed.location!;
    };

    const cancelled = await returnFromProvider(stack, browser, await confirm(prompt), { cancel: true });
    expect(pathOf(cancelled.url)).toBe('/sign-in');
    expect(cancelled.status).toBe(400);
    expect(cancelled.text).toContain('data-link-state="CANCELLED"');
    expect(alerts(cancelled.text)).toContain(catalogueText('en', 'accountLink.cancelled'));
    expect(alerts(cancelled.text)).toContain(catalogueText('en', 'social.error.cancelled'));

    const wrong = await returnFromProvider(stack, browser, await confirm(cancelled), { email: bobEmail });
    expect(pathOf(wrong.url)).toBe('/sign-in');
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('data-link-state="WRONG_ACCOUNT_SELECTED"');
    expect(alerts(wrong.text)).toContain(catalogueText('en', 'accountLink.wrongAccount', { email }));
    expect(await signedIn(browser)).toBe(false);

    // Kratos's callback links and signs in; our first signed-in page shows the notice (account-link-provider.test.ts).
    const linked = await returnFromProvider(stack, browser, await confirm(wrong), { email });
    expect(pathOf(linked.url)).toBe('/sign-in/linked');
    expect(new URL(linked.url).searchParams.get('provider')).toBe('google'); // Kratos's page no longer named it: the provider gained
    expect(await signedIn(browser)).toBe(true);
    await signOut(browser);
    const straightIn = await socialRoundTrip(stack, new Browser(stack.appUrl), '/sign-in', 'google', { email });
    expect(straightIn.url).toBe(`${stack.appUrl}/`);
  });

  test('our Cancel link: a fresh sign-in saying so, nothing linked', async () => {
    const ada = await adaWithGoogle('link-cancel');
    const browser = new Browser(stack.appUrl);
    const prompt = await promptFor(browser, ada.email);
    const cancelHref = /<a[^>]*data-link="cancel-link"[^>]*href="([^"]+)"|<a[^>]*href="([^"]+)"[^>]*data-link="cancel-link"/.exec(prompt.text)!;
    const href = (cancelHref[1] ?? cancelHref[2])!.replace(/&amp;/g, '&');
    const fresh = await followOn(stack, browser, await browser.get(href), `${stack.appUrl}${href}`);
    expect(fresh.status).toBe(200);
    expect(alerts(fresh.text)).toContain(catalogueText('en', 'accountLink.cancelled'));
    expect(hiddenValue(fresh.text, 'identifier')).toBeUndefined(); // an ordinary sign-in form again
    expect(fresh.text).toContain('data-provider="google"');
    // Nothing was linked: Google still leads to the sequence.
    const again = await promptFor(new Browser(stack.appUrl), ada.email);
    expect(again.text).toContain('data-link-state="PROMPT_SELECT_ACCOUNT"');
  });
});
