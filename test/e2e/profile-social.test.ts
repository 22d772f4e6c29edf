// Profile settings → login services and the password kinds in Debian's Chromium, JavaScript on (the
// form island posts, then follows the answer with a full navigation) and off (plain posts and 303s),
// with the embedded sign-in providers, on the stand-in and real Kratos:
//   an e-mail account links Microsoft at the provider and unlinks it;
//   a Google-only account cannot unlink Google (the disabled button says why), sets its first password
//   ("Set a password"), can then unlink Google, and signs in with its e-mail and that password.
import type { Browser as PlaywrightBrowser, Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildAssets, launchBrowser, newContext, REPORT_CSP } from '../support/browser.ts';
import { openProfile, signInWith } from './profile-steps.ts';
import { STRONG_PASSWORD, uniqueEmail, useIdentities } from '../support/fixtures.ts';
import { startProfileStack, type ProfileStack } from '../integration/profile/profile-stack.ts';

const FIRST_PASSWORD = 'Lantern-Orchard-Pebble-58';

let env: ProfileStack;
let browser: PlaywrightBrowser;
let built: ReturnType<typeof buildAssets> | undefined;

beforeAll(async () => {
  built = buildAssets('profile-social-e2e');
  env = await startProfileStack({ socialProviders: true, env: { ASSETS_DIR: built!.assetsDir } });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await env?.close();
  built?.remove();
});
const identities = useIdentities(() => env.identityAdminUrl);

/** At the fake provider's choose-account page: pick the account with `email`, then back at our settings or home. */
async function chooseAtProvider(page: Page, origin: string, email: string): Promise<void> {
  await page.waitForURL((url) => url.origin === origin);
  await Promise.all([page.waitForURL((url) => url.origin === env.appUrl), page.click(`button[data-email="${email}"]`)]);
}

function row(page: Page, provider: string) {
  return page.locator(`.profile-logins__item[data-provider="${provider}"]`);
}

for (const javaScriptEnabled of [true, false]) {
  describe(`JavaScript ${javaScriptEnabled ? 'on' : 'off'}`, () => {
    test('link Microsoft at the provider, then unlink it', async () => {
      const { context, problems, watch } = await newContext(browser, { javaScriptEnabled });
      await context.addInitScript(REPORT_CSP);
      const page = await context.newPage();
      watch(page);
      const email = uniqueEmail(javaScriptEnabled ? 'link-e2e-js' : 'link-e2e-nojs');
      await identities.create({ email, name: 'Ada' });
      env.stack.providers!.addAccount('microsoft', { email, name: 'Ada at Microsoft' });
      try {
        await signInWith(page, env.appUrl, email, STRONG_PASSWORD);
        await openProfile(page, env.appUrl, '#profile-logins-form');
        expect(await row(page, 'microsoft').getAttribute('data-linked')).toBe('false');
        // On a phone every row keeps its button beside the name and state, whatever the provider's name.
        await page.setViewportSize({ width: 390, height: 844 });
        const beside = await page.locator('.profile-logins__item:has(button)').evaluateAll((rows) =>
          rows.map((item) => {
            const label = item.querySelector('.profile-logins__label')!.getBoundingClientRect();
            const button = item.querySelector('button')!.getBoundingClientRect();
            return button.top < label.bottom && button.left >= label.right;
          }),
        );
        expect(beside.length).toBeGreaterThanOrEqual(4);
        expect(beside.every(Boolean)).toBe(true);

        await page.click('#profile-logins-form button[name="link"][value="microsoft"]');
        await chooseAtProvider(page, env.stack.providers!.microsoft.origin, email);
        await page.waitForURL(/\/profile-settings\?flow=/);
        await page.getByText('Microsoft is now linked. You can use it to sign in.').first().waitFor();
        expect(await row(page, 'microsoft').getAttribute('data-linked')).toBe('true');

        await Promise.all([
          page.waitForResponse(
            (response) => response.url().includes('/profile-settings') && response.request().method() === 'GET' && response.status() === 200,
          ),
          page.click('#profile-logins-form button[name="unlink"][value="microsoft"]'),
        ]);
        await page.getByText('Microsoft has been unlinked. You can no longer use it to sign in.').first().waitFor();
        expect(await row(page, 'microsoft').getAttribute('data-linked')).toBe('false');

        // No console error at all: the providers serve their favicon, and none of these steps provokes a 4xx.
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('a Google-only account: Google cannot be unlinked; it sets its first password, then signs in with it', async () => {
      const { context, problems, watch } = await newContext(browser, { javaScriptEnabled });
      await context.addInitScript(REPORT_CSP);
      const page = await context.newPage();
      watch(page);
      const email = uniqueEmail(javaScriptEnabled ? 'social-e2e-js' : 'social-e2e-nojs');
      env.stack.providers!.addAccount('google', { email, name: 'Grace Social' });
      identities.track(email);
      try {
        // Sign up with Google on our sign-up page.
        await page.goto(`${env.appUrl}/sign-up`);
        await page.check('#field-terms');
        await page.click('button[name="provider"][value="google"]');
        await chooseAtProvider(page, env.stack.providers!.google.origin, email);
        await openProfile(page, env.appUrl, '#profile-logins-form');

        // The only way in: Unlink is there, disabled, with the reason.
        const unlink = page.locator('#profile-logins-form button[name="unlink"][value="google"]');
        expect(await unlink.isDisabled()).toBe(true);
        expect(await page.locator('#logins-google-reason').textContent()).toBe(
          'Google is the only way you can sign in, so it can’t be unlinked. Set a password or link another service first.',
        );

        // changeLoginService: set the first password.
        expect(await page.locator('#password-title').textContent()).toBe('Set a password');
        await page.fill('#field-password', FIRST_PASSWORD);
        await Promise.all([page.waitForURL(/\/profile-settings\?flow=/), page.click('#profile-password-form button[name="method"][value="password"]')]);
        await page.locator('[data-password-set="true"]').waitFor();
        expect(await page.locator('#password-title').textContent()).toBe('Password');
        expect(await unlink.isDisabled()).toBe(false);

        // Sign out, then in with the e-mail and the new password.
        await page.click('.profile-header__sign-out');
        if (!javaScriptEnabled) {
          await page.waitForSelector('#logout-form');
          await page.click('#logout-form button[type="submit"]');
        }
        await page.waitForURL(/\/sign-in/);
        await signInWith(page, env.appUrl, email, FIRST_PASSWORD);
        await openProfile(page, env.appUrl, '#profile-logins-form');
        expect(await page.locator('.profile-header__name').textContent()).toBeTruthy();

        // No console error at all: the providers serve their favicon, and none of these steps provokes a 4xx.
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    });
  });
}
