// Profile settings in Debian's Chromium, once with JavaScript on (enhanced forms, avatar island,
// dialog) and once with it off (plain form posts, multipart upload, the confirmation as a page):
// sign in → change name → toast → upload a PNG avatar → it shows in the header → remove it →
// change password → sign out → sign in with the new password → delete the account → signing in
// again offers reactivation (the backend's grace period) → restore it.
import type { Browser as PlaywrightBrowser, Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestClock } from '../../embedded/clock.ts';
import { buildAssets, launchBrowser, newContext, REPORT_CSP } from '../support/browser.ts';
import { openProfile, signInWith } from './profile-steps.ts';
import { STRONG_PASSWORD, uniqueEmail, useIdentities } from '../support/fixtures.ts';
import { describeStandInOnly } from '../support/stack.ts';
import { startProfileStack, type ProfileStack } from '../integration/profile/profile-stack.ts';
import { GIF, makePng } from '../integration/profile/images.ts';

const NEW_PASSWORD = 'Juniper-Comet-Harvest-64';
// The browser logs the 401 of a whoami without a session and similar answers we cause on purpose.
const EXPECTED_CONSOLE = [/^console: Failed to load resource: the server responded with a status of (401|403|404) /];

let env: ProfileStack;
let browser: PlaywrightBrowser;
let built: ReturnType<typeof buildAssets> | undefined;

beforeAll(async () => {
  // Built into a temporary directory: never races another process reading dist/.
  built = buildAssets('profile-e2e');
  env = await startProfileStack({ env: { ASSETS_DIR: built!.assetsDir } });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await env?.close();
  built?.remove();
});
const identities = useIdentities(() => env.identityAdminUrl);

/** Waits until the header avatar shows an image that really loaded (CSP allowed it). */
async function headerImage(page: Page): Promise<string> {
  const img = page.locator('.profile-header .avatar__img');
  await img.waitFor({ state: 'visible' });
  await page.waitForFunction(() => {
    const el = document.querySelector<HTMLImageElement>('.profile-header .avatar__img');
    return !!el && el.complete && el.naturalWidth > 0 && !el.src.startsWith('blob:');
  });
  return (await img.getAttribute('src')) ?? '';
}

for (const javaScriptEnabled of [true, false]) {
  describe(`JavaScript ${javaScriptEnabled ? 'on' : 'off'}`, () => {
    test('name, avatar, password, sign-out, new password, deletion and reactivation', async () => {
      const { context, problems, watch } = await newContext(browser, { javaScriptEnabled });
      await context.addInitScript(REPORT_CSP);
      const page = await context.newPage();
      watch(page);
      const email = uniqueEmail(javaScriptEnabled ? 'profile-e2e-js' : 'profile-e2e-nojs');
      await identities.create({ email, name: 'Ada' });
      try {
        // Sign in, then the profile.
        await signInWith(page, env.appUrl, email, STRONG_PASSWORD);
        await openProfile(page, env.appUrl, '#profile-name-form');
        expect(await page.textContent('.profile-header__name')).toBe('Ada');

        // Change the name: the 'setting saved' toast (1050001).
        await page.fill('#field-traits-name', 'Ada Byron');
        await Promise.all([page.waitForURL(/\/profile-settings\?flow=/), page.click('#profile-name-form button[name="method"][value="profile"]')]);
        await page.locator('.toast', { hasText: 'Your changes have been saved!' }).waitFor();
        expect(await page.inputValue('#field-traits-name')).toBe('Ada Byron');
        expect(await page.textContent('.profile-header__name')).toBe('Ada Byron');

        // Upload a real PNG: it shows in the header.
        await page.setInputFiles('#avatar-file', { name: 'me.png', mimeType: 'image/png', buffer: makePng({ width: 96, height: 96, rgb: [20, 120, 200] }) });
        if (javaScriptEnabled) {
          // The island previews the chosen file before anything is sent.
          await page.waitForFunction(() => document.querySelector<HTMLImageElement>('[data-avatar-picture] .avatar__img')?.src.startsWith('blob:'));
          await page.click('#avatar-upload-form button[type="submit"]');
        } else {
          await Promise.all([page.waitForURL(/\/profile-settings\?flow=/), page.click('#avatar-upload-form button[type="submit"]')]);
        }
        await page.locator('.toast', { hasText: 'Your profile picture has been updated.' }).waitFor();
        const src = await headerImage(page);
        expect(src).toMatch(/\/avatars\/[a-f0-9]{32}\.png$/);
        expect(await page.getAttribute('[data-avatar-picture] .avatar__img', 'src')).toBe(src);

        // Remove it: back to initials everywhere.
        if (javaScriptEnabled) {
          await page.click('#avatar-remove-form button[type="submit"]');
        } else {
          await Promise.all([page.waitForURL(/\/profile-settings\?flow=/), page.click('#avatar-remove-form button[type="submit"]')]);
        }
        await page.locator('.toast', { hasText: 'Your profile picture has been removed.' }).waitFor();
        expect(await page.locator('.profile-header .avatar__img').count()).toBe(0);
        expect(await page.textContent('.profile-header .avatar')).toBe('AB');
        await page.reload();
        expect(await page.locator('.profile-header .avatar__img').count()).toBe(0);

        // Change the password.
        await page.fill('#field-password', NEW_PASSWORD);
        await Promise.all([page.waitForURL(/\/profile-settings\?flow=/), page.click('#profile-password-form button[name="method"][value="password"]')]);
        await page.locator('[data-password-kind="changedPassword"]').waitFor();

        // Sign out, then in with the new password.
        await page.click('.profile-header__sign-out');
        if (!javaScriptEnabled) {
          await page.waitForSelector('#logout-form');
          await page.click('#logout-form button[type="submit"]');
        }
        await page.waitForURL(/\/sign-in/);
        await signInWith(page, env.appUrl, email, NEW_PASSWORD);
        await openProfile(page, env.appUrl, '#profile-name-form');

        // Delete the account behind the confirmation (a dialog with JS, a page without).
        if (javaScriptEnabled) {
          await page.click('a[data-dialog-open="delete-account-dialog"]');
          await page.locator('#delete-account-dialog').waitFor({ state: 'visible' });
          expect(page.url()).not.toContain('confirm=delete-account');
        } else {
          await Promise.all([page.waitForURL(/confirm=delete-account/), page.click('a[data-dialog-open="delete-account-dialog"]')]);
          expect(await page.isVisible('#delete-account-dialog')).toBe(true);
        }
        await Promise.all([page.waitForURL(/\/profile-settings\/account-deleted/), page.click('#delete-account-dialog-form button[type="submit"]')]);
        expect(await page.textContent('main')).toContain('Sign in within 30 days to restore it.');

        // Signed out everywhere: the profile asks for a sign-in.
        await page.goto(`${env.appUrl}/profile-settings`);
        await page.waitForURL(/\/sign-in/);

        // Signing in again within the grace period (bound for the home page) meets the restore offer first, and
        // goes on to the home page once the account is restored.
        await signInWith(page, env.appUrl, email, NEW_PASSWORD);
        await page.waitForSelector('#reactivate-form');
        expect(new URL(page.url()).pathname).toBe('/profile-settings');
        expect(await page.textContent('h1')).toContain('Your account is scheduled for deletion');
        await Promise.all([page.waitForURL((url) => url.pathname === '/'), page.click('#reactivate-form button[type="submit"]')]);
        // The profile again, restored.
        await page.goto(`${env.appUrl}/profile-settings`);
        await page.waitForSelector('#profile-name-form');

        const unexpected = problems.filter((line) => !EXPECTED_CONSOLE.some((pattern) => pattern.test(line)));
        expect(unexpected).toEqual([]);
      } finally {
        await context.close();
      }
    });
  });
}

describe('JavaScript on: avatar checks before sending, and roll-back of a failed removal', () => {
  test('a GIF and an oversized file are refused in the browser; a removal the server refuses puts the picture back', async () => {
    const { context, problems, watch } = await newContext(browser, { javaScriptEnabled: true });
    await context.addInitScript(REPORT_CSP);
    const page = await context.newPage();
    watch(page);
    const email = uniqueEmail('profile-e2e-island');
    await identities.create({ email, name: 'Grace Hopper' });
    const uploads = () => env.backendProxy.seen.filter((s) => s.path === '/api/user/upload-avatar').length;
    try {
      await signInWith(page, env.appUrl, email, STRONG_PASSWORD);
      await openProfile(page, env.appUrl, '#profile-name-form');
      const before = uploads();

      await page.setInputFiles('#avatar-file', { name: 'cat.png', mimeType: 'image/png', buffer: GIF });
      await page.locator('[data-avatar-error]', { hasText: 'Please choose a PNG or JPEG image.' }).waitFor();
      await page.setInputFiles('#avatar-file', { name: 'huge.png', mimeType: 'image/png', buffer: Buffer.concat([makePng(), Buffer.alloc(5_242_880)]) });
      await page.locator('[data-avatar-error]', { hasText: 'The maximum size is 5 MB.' }).waitFor();
      await page.click('#avatar-upload-form button[type="submit"]');
      expect(await page.locator('.profile-header .avatar__img').count()).toBe(0);

      await page.setInputFiles('#avatar-file', { name: 'ok.png', mimeType: 'image/png', buffer: makePng({ width: 32, height: 32 }) });
      await page.click('#avatar-upload-form button[type="submit"]');
      const src = await headerImage(page);
      // Only this upload reached the user service: the refused files never left the browser.
      expect(uploads()).toBe(before + 1);

      // The user service goes away: the removal blanks the picture at once, then puts it back.
      const target = env.backendProxy.target;
      env.backendProxy.target = 'http://127.0.0.1:9';
      try {
        await page.click('#avatar-remove-form button[type="submit"]');
        await page.locator('[data-avatar-error]', { hasText: 'A service is temporarily unavailable.' }).waitFor();
      } finally {
        env.backendProxy.target = target;
      }
      expect(await page.getAttribute('.profile-header .avatar__img', 'src')).toBe(src);
      expect(await page.isVisible('#avatar-remove-form')).toBe(true);

      const unexpected = problems.filter((line) => !EXPECTED_CONSOLE.some((pattern) => pattern.test(line)) && !/status of 503/.test(line));
      expect(unexpected).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('a password change that always needs a fresh sign-in (privileged_session_max_age 1 ms), on either identity service', () => {
  // No clock to move: every sign-in is already too old for a password change, on the stand-in and on
  // real Kratos. That the change then goes through is shown below, on the stand-in's clock.
  let strict: ProfileStack;
  beforeAll(async () => {
    strict = await startProfileStack({
      env: { ASSETS_DIR: built!.assetsDir },
      identityConfig: { selfservice: { flows: { settings: { privileged_session_max_age: '1ms' } } } } as never,
    });
  });
  afterAll(() => strict?.close());
  const strictIdentities = useIdentities(() => strict.identityAdminUrl);

  for (const javaScriptEnabled of [true, false]) {
    test(`JavaScript ${javaScriptEnabled ? 'on' : 'off'}: asks to sign in again, then comes back to the same form, told to send it again`, async () => {
      const { context, problems, watch } = await newContext(browser, { javaScriptEnabled });
      await context.addInitScript(REPORT_CSP);
      const page = await context.newPage();
      watch(page);
      const email = uniqueEmail(javaScriptEnabled ? 'strict-e2e-js' : 'strict-e2e-nojs');
      await strictIdentities.create({ email, name: 'Ada' });
      try {
        await page.goto(`${strict.appUrl}/sign-in`);
        await page.fill('#field-identifier', email);
        await page.fill('#field-password', STRONG_PASSWORD);
        await Promise.all([page.waitForURL((url) => !url.pathname.startsWith('/sign-in')), page.click('button[name="method"][value="password"]')]);
        await page.goto(`${strict.appUrl}/profile-settings`);
        // The settings flow the page shows at once (with JavaScript the address bar names it too, decision 190).
        const settingsUrl = new URL((await page.locator('#profile-password-form').getAttribute('action'))!, strict.appUrl).href;

        await page.fill('#field-password', NEW_PASSWORD);
        await Promise.all([page.waitForURL(/\/sign-in\?.*refresh=true/), page.click('#profile-password-form button[name="method"][value="password"]')]);
        await page.waitForSelector('#field-password');
        await page.fill('#field-password', STRONG_PASSWORD);
        await Promise.all([page.waitForURL(settingsUrl), page.click('button[name="method"][value="password"]')]);
        await page.getByText('we asked you to sign in again').waitFor();
        await page.locator('#profile-password-form').waitFor();

        const unexpected = problems.filter((line) => !EXPECTED_CONSOLE.some((pattern) => pattern.test(line)));
        expect(unexpected).toEqual([]);
      } finally {
        await context.close();
      }
    });
  }
});

describeStandInOnly('moves the test clock past privileged_session_max_age')('an old sign-in (privileged session over)', () => {
  // The identity service judges the privileged session by the stand-ins' clock: moved past it, not waited for.
  const clock = createTestClock();
  let stale: ProfileStack;
  beforeAll(async () => {
    stale = await startProfileStack({
      env: { ASSETS_DIR: built!.assetsDir },
      identityConfig: { selfservice: { flows: { settings: { privileged_session_max_age: '4s' } } } } as never,
      clock,
    });
  });
  afterAll(() => stale?.close());
  const staleIdentities = useIdentities(() => stale.identityAdminUrl);

  for (const javaScriptEnabled of [true, false]) {
    test(`JavaScript ${javaScriptEnabled ? 'on' : 'off'}: a password change asks to sign in again, then comes back to the same form`, async () => {
      const { context, problems, watch } = await newContext(browser, { javaScriptEnabled });
      await context.addInitScript(REPORT_CSP);
      const page = await context.newPage();
      watch(page);
      const email = uniqueEmail(javaScriptEnabled ? 'stale-e2e-js' : 'stale-e2e-nojs');
      await staleIdentities.create({ email, name: 'Ada' });
      try {
        await page.goto(`${stale.appUrl}/sign-in`);
        await page.fill('#field-identifier', email);
        await page.fill('#field-password', STRONG_PASSWORD);
        await Promise.all([page.waitForURL((url) => !url.pathname.startsWith('/sign-in')), page.click('button[name="method"][value="password"]')]);
        await page.goto(`${stale.appUrl}/profile-settings`);
        // The settings flow the page shows at once (with JavaScript the address bar names it too, decision 190).
        const settingsUrl = new URL((await page.locator('#profile-password-form').getAttribute('action'))!, stale.appUrl).href;
        clock.advance(5_000);

        await page.fill('#field-password', NEW_PASSWORD);
        await Promise.all([page.waitForURL(/\/sign-in\?.*refresh=true/), page.click('#profile-password-form button[name="method"][value="password"]')]);
        await page.waitForSelector('#field-password');
        await page.fill('#field-password', STRONG_PASSWORD);
        await Promise.all([page.waitForURL(settingsUrl), page.click('button[name="method"][value="password"]')]);
        await page.getByText('we asked you to sign in again').waitFor();

        await page.fill('#field-password', NEW_PASSWORD);
        await Promise.all([page.waitForURL(settingsUrl), page.click('#profile-password-form button[name="method"][value="password"]')]);
        await page.locator('[data-password-kind="changedPassword"]').waitFor();

        const unexpected = problems.filter((line) => !EXPECTED_CONSOLE.some((pattern) => pattern.test(line)));
        expect(unexpected).toEqual([]);
      } finally {
        await context.close();
      }
    });
  }
});
