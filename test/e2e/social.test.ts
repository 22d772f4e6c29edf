// Social sign-in in Debian's Chromium, JavaScript on and off, against the embedded Google, Microsoft,
// Dropbox and Apple and the identity service (the stand-in in e2e, real Kratos in e2e-ory, where the fakes
// are generic providers): for each provider, sign up with it → home; sign out; sign in with it → home.
// Every scenario fails on a console error or a CSP violation the scenario did not provoke (screen-stack.ts).
import type { Page } from 'playwright';
import { describe, expect, it } from 'vitest';
import { catalogueText } from '../support/browser.ts';
import { STRONG_PASSWORD, uniqueEmail } from '../support/fixtures.ts';
import { onRealKratos } from '../support/stack.ts';
import { h1, useScreenStack } from './screen-stack.ts';
import { atProvider, PROVIDER_IDS, signOutFromHome } from './social-steps.ts';

const screens = useScreenStack({
  name: 'social-e2e',
  socialProviders: true,
  rateLimits: { 'sign-in': { perIp: 1000, perEmail: 1000 }, 'sign-up': { perIp: 1000, perEmail: 1000 } },
});

/** A new account at provider `id`; its identity, made by the journey, is deleted after the scenario. */
function providerAccount(id: (typeof PROVIDER_IDS)[number], label: string): { email: string; name: string } {
  const email = uniqueEmail(`${id}-${label}`);
  const name = `Reader ${id}`;
  screens.stack.providers!.addAccount(id, { email, name });
  screens.identities.track(email);
  return { email, name };
}

const providerButton = (page: Page, id: string) => page.locator(`button[data-provider="${id}"]`);

for (const javaScriptEnabled of [true, false]) {
  describe(`JavaScript ${javaScriptEnabled ? 'on' : 'off'}`, () => {
    for (const id of PROVIDER_IDS) {
      it(`${id}: sign up with it → home; sign out; sign in with it → home`, async () => {
        const { appUrl } = screens.stack;
        const fake = screens.stack.providers![id];
        const { email, name } = providerAccount(id, javaScriptEnabled ? 'js' : 'nojs');
        // Apple names the person only in its form post's `user` field; real Kratos's generic type asks
        // for no form post, so there the account has no name and the home greets the address.
        const greeting = `Hello, ${id === 'apple' && onRealKratos ? email : name}`;
        const page = await screens.openPage(javaScriptEnabled);

        await page.goto(`${appUrl}/sign-up`);
        await page.locator('#field-terms').check();
        await Promise.all([page.waitForURL((url) => url.origin === fake.origin, { waitUntil: 'commit' }), providerButton(page, id).click()]);
        await atProvider(page, fake.origin, email, `${appUrl}/`, javaScriptEnabled);
        expect(await h1(page)).toBe(greeting);

        await signOutFromHome(page, javaScriptEnabled);
        await Promise.all([page.waitForURL((url) => url.origin === fake.origin, { waitUntil: 'commit' }), providerButton(page, id).click()]);
        await atProvider(page, fake.origin, email, `${appUrl}/`, javaScriptEnabled);
        expect(await h1(page)).toBe(greeting);
      });
    }

    it('Enter in the password field signs in with the password, and Enter on sign-up goes to its next step: never to the first provider', async () => {
      const { appUrl } = screens.stack;
      const email = uniqueEmail('enter-key');
      await screens.identities.create({ email, password: STRONG_PASSWORD });
      const page = await screens.openPage(javaScriptEnabled);
      await page.goto(`${appUrl}/sign-in`);
      await page.fill('#field-identifier', email);
      await page.fill('#field-password', STRONG_PASSWORD);
      // With JavaScript the post is held a moment in the page's own fetch, not with a network route: with a
      // route on, every request of the page is intercepted, and in one CI run the home's token request was
      // never seen answered. Meanwhile the spinner is on the password button Enter stood for (through its
      // hidden copy, decision 250), and on no other.
      if (javaScriptEnabled) {
        await page.evaluate(() => {
          const held = new Promise((resolve) => Object.assign(window, { releasePost: resolve }));
          const send = window.fetch;
          window.fetch = (input, init) => held.then(() => send(input, init));
        });
      }
      // Home, signed in: the first provider's button (Apple's sign-in page) would never come back here.
      const signedIn = Promise.all([page.waitForURL(`${appUrl}/`), page.press('#field-password', 'Enter')]);
      if (javaScriptEnabled) {
        const passwordButton = page.locator('button[name="method"][value="password"]');
        await expect.poll(() => passwordButton.getAttribute('class')).toContain('btn--loading');
        expect(await page.locator('.btn--loading').count()).toBe(1);
        await page.evaluate(() => (window as unknown as { releasePost(): void }).releasePost());
      }
      await signedIn;
      await signOutFromHome(page, javaScriptEnabled);

      await page.goto(`${appUrl}/sign-up`);
      await page.fill('#field-traits-email', uniqueEmail('enter-key-up'));
      await page.fill('#field-traits-name', 'Enter Key');
      await page.check('#field-terms');
      await page.press('#field-traits-name', 'Enter');
      await page.waitForSelector('#field-password');
    });

    it('a cancel at the provider: back on the sign-in form with our translated message', async () => {
      const { appUrl } = screens.stack;
      const fake = screens.stack.providers!.google;
      const page = await screens.openPage(javaScriptEnabled);
      screens.provoke(400);
      await page.goto(`${appUrl}/sign-in`);
      await Promise.all([page.waitForURL((url) => url.origin === fake.origin, { waitUntil: 'commit' }), providerButton(page, 'google').click()]);
      await Promise.all([page.waitForURL((url) => url.pathname === '/sign-in'), page.getByRole('button', { name: 'Cancel' }).click()]);
      await expect.poll(() => page.locator('[role="alert"]').first().innerText()).toBe(catalogueText('en', 'social.error.cancelled'));
    });
  });
}

describe('on a 390 px phone', () => {
  it('the provider buttons fit: full width, no sideways scrolling, each named by its text', async () => {
    const page = await screens.openPage(true);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${screens.stack.appUrl}/sign-in?lng=vi`);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    for (const id of PROVIDER_IDS) {
      const button = providerButton(page, id);
      const box = (await button.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
      expect(box.height).toBeGreaterThanOrEqual(44); // a comfortable touch target
      await expect
        .poll(() => button.innerText())
        .toBe(catalogueText('vi', 'authPage.continueWith', { provider: catalogueText('vi', `authPage.providers.${id}`) }));
    }
  });
});
