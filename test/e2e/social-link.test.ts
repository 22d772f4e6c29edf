// The account-link sequence of spec §4 in Debian's Chromium, JavaScript on and off, on the stand-in (e2e)
// and real Kratos (e2e-ory): an e-mail-and-password account, then Google with the same e-mail → the
// sequence → sign in with the password → linked → next time Google signs straight in; a Microsoft account
// confirming with Microsoft → linked (the notice after Kratos's callback); a wrong account and a cancel
// each end in the translated message.
import type { Page } from 'playwright';
import { describe, expect, it } from 'vitest';
import { catalogueText } from '../support/browser.ts';
import { uniqueEmail } from '../support/fixtures.ts';
import { Browser } from '../support/http.ts';
import { socialRoundTrip } from '../integration/social/social-support.ts';
import { h1, useScreenStack } from './screen-stack.ts';
import { atProvider, signOutFromHome } from './social-steps.ts';

const screens = useScreenStack({
  name: 'social-link-e2e',
  socialProviders: true,
  rateLimits: { 'sign-in': { perIp: 1000, perEmail: 1000 }, 'sign-up': { perIp: 1000, perEmail: 1000 } },
});

const linkState = (page: Page) => page.locator('[data-link-state]').first().getAttribute('data-link-state');
const alertTexts = (page: Page) => page.locator('.alert p').allInnerTexts();

/** On the sign-in page: Google, where `email` is chosen; the browser ends on our sign-in page (the sequence). */
async function googleToSequence(page: Page, email: string, javaScriptEnabled: boolean): Promise<void> {
  const google = screens.stack.providers!.google;
  await Promise.all([page.waitForURL((url) => url.origin === google.origin, { waitUntil: 'commit' }), page.locator('button[data-provider="google"]').click()]);
  await atProvider(page, google.origin, email, (url) => url.pathname === '/sign-in' && url.searchParams.has('flow'), javaScriptEnabled);
}

for (const javaScriptEnabled of [true, false]) {
  describe(`JavaScript ${javaScriptEnabled ? 'on' : 'off'}`, () => {
    it('password account + Google with the same e-mail → the sequence → the password → linked → next time Google signs straight in', async () => {
      const { appUrl } = screens.stack;
      const ada = await screens.newAccount(javaScriptEnabled ? 'link-js' : 'link-nojs');
      screens.stack.providers!.addAccount('google', { email: ada.email, name: 'Ada at Google' });
      const page = await screens.openPage(javaScriptEnabled);

      await page.goto(`${appUrl}/sign-in`);
      await googleToSequence(page, ada.email, javaScriptEnabled);
      expect(await linkState(page)).toBe('PROMPT_SELECT_ACCOUNT');
      expect(await page.locator('#account-link-title').innerText()).toBe(catalogueText('en', 'accountLink.titleWith', { provider: 'Google' }));
      expect(await alertTexts(page)).toContain(catalogueText('en', 'errorMessage.alreadySignUpBy', { loginService: 'email and password' }));
      expect(await page.locator('[aria-current="step"]').innerText()).toBe(catalogueText('en', 'accountLink.stepChoose'));

      await page.locator('#field-password').fill(ada.password);
      await Promise.all([page.waitForURL((url) => url.pathname === '/sign-in/linked'), page.getByRole('button', { name: 'Sign in and link' }).click()]);
      expect(await alertTexts(page)).toContain(catalogueText('en', 'accountLink.success', { provider: 'Google' }));
      await Promise.all([page.waitForURL(`${appUrl}/`), page.locator('a[data-link="continue"]').click()]);
      expect(await h1(page)).toBe(`Hello, ${ada.name}`);

      await signOutFromHome(page, javaScriptEnabled);
      const google = screens.stack.providers!.google;
      await Promise.all([
        page.waitForURL((url) => url.origin === google.origin, { waitUntil: 'commit' }),
        page.locator('button[data-provider="google"]').click(),
      ]);
      await atProvider(page, google.origin, ada.email, `${appUrl}/`, javaScriptEnabled);
      expect(await h1(page)).toBe(`Hello, ${ada.name}`);
    });

    it('an account that signs in with Microsoft + Google with the same e-mail → Confirm with Microsoft → the same person → linked → next time Google signs straight in', async () => {
      const { appUrl } = screens.stack;
      const { google, microsoft } = screens.stack.providers!;
      const email = uniqueEmail(javaScriptEnabled ? 'link-by-ms-js' : 'link-by-ms-nojs');
      for (const id of ['microsoft', 'google'] as const) screens.stack.providers!.addAccount(id, { email, name: 'Grace' });
      screens.identities.track(email);
      // The Microsoft account exists already (made over HTTP: not what is tested).
      expect((await socialRoundTrip(screens.stack, new Browser(appUrl), '/sign-up', 'microsoft', { email })).status).toBe(200);
      const page = await screens.openPage(javaScriptEnabled);

      await page.goto(`${appUrl}/sign-in`);
      await googleToSequence(page, email, javaScriptEnabled);
      expect(await linkState(page)).toBe('PROMPT_SELECT_ACCOUNT');
      const confirm = page.getByRole('button', { name: catalogueText('en', 'accountLink.confirmWith', { provider: 'Microsoft' }) });
      await Promise.all([page.waitForURL((url) => url.origin === microsoft.origin, { waitUntil: 'commit' }), confirm.click()]);
      // Kratos's callback links and signs in; our first signed-in page turns into the notice.
      await atProvider(page, microsoft.origin, email, (url) => url.pathname === '/sign-in/linked', javaScriptEnabled);
      expect(await linkState(page)).toBe('SUCCESS');
      expect(await alertTexts(page)).toContain(catalogueText('en', 'accountLink.success', { provider: 'Google' }));
      await Promise.all([page.waitForURL(`${appUrl}/`), page.locator('a[data-link="continue"]').click()]);
      expect(await h1(page)).toBe('Hello, Grace');

      await signOutFromHome(page, javaScriptEnabled);
      await Promise.all([
        page.waitForURL((url) => url.origin === google.origin, { waitUntil: 'commit' }),
        page.locator('button[data-provider="google"]').click(),
      ]);
      await atProvider(page, google.origin, email, `${appUrl}/`, javaScriptEnabled);
      expect(await h1(page)).toBe('Hello, Grace');
    });

    it('an account that signs in with Microsoft: a cancel there and another person’s account each end in the translated message; Cancel leaves', async () => {
      const { appUrl } = screens.stack;
      const microsoft = screens.stack.providers!.microsoft;
      const email = uniqueEmail(javaScriptEnabled ? 'link-ms-js' : 'link-ms-nojs');
      const bob = uniqueEmail(javaScriptEnabled ? 'link-bob-js' : 'link-bob-nojs');
      for (const [id, address] of [
        ['microsoft', email],
        ['google', email],
        ['microsoft', bob],
      ] as const)
        screens.stack.providers!.addAccount(id, { email: address, name: 'Reader' });
      for (const address of [email, bob]) {
        screens.identities.track(address);
        // The two Microsoft accounts already have their accounts here (made over HTTP: not what is tested).
        expect((await socialRoundTrip(screens.stack, new Browser(appUrl), '/sign-up', 'microsoft', { email: address })).status).toBe(200);
      }
      const page = await screens.openPage(javaScriptEnabled);
      screens.provoke(400);

      await page.goto(`${appUrl}/sign-in`);
      await googleToSequence(page, email, javaScriptEnabled);
      expect(await alertTexts(page)).toContain(catalogueText('en', 'errorMessage.alreadySignedInAnotherMethod', { provider: 'Microsoft' }));
      const confirm = page.getByRole('button', { name: catalogueText('en', 'accountLink.confirmWith', { provider: 'Microsoft' }) });
      const toMicrosoft = () => Promise.all([page.waitForURL((url) => url.origin === microsoft.origin, { waitUntil: 'commit' }), confirm.click()]);

      await toMicrosoft();
      await Promise.all([page.waitForURL((url) => url.pathname === '/sign-in'), page.getByRole('button', { name: 'Cancel' }).click()]);
      expect(await linkState(page)).toBe('CANCELLED');
      expect(await alertTexts(page)).toContain(catalogueText('en', 'accountLink.cancelled'));

      await toMicrosoft();
      await atProvider(page, microsoft.origin, bob, (url) => url.pathname === '/sign-in', javaScriptEnabled);
      expect(await linkState(page)).toBe('WRONG_ACCOUNT_SELECTED');
      expect(await alertTexts(page)).toContain(catalogueText('en', 'accountLink.wrongAccount', { email }));

      await Promise.all([
        // A new flow shown at once with the marker honoured; with JavaScript the bar names the flow, keeping the marker (decision 190).
        page.waitForURL((url) => url.searchParams.get('account_link') === 'cancelled' && url.searchParams.has('flow') === javaScriptEnabled),
        page.locator('a[data-link="cancel-link"]').click(),
      ]);
      expect(await alertTexts(page)).toContain(catalogueText('en', 'accountLink.cancelled'));
      await page.locator('#field-identifier').waitFor(); // an ordinary sign-in form again
    });
  });
}
