// The product exactly as `npm start` runs it: scripts/start.ts itself, on its own fixed ports and
// origins (app http://localhost:3000, identity :4433/:4434, backend :4500, the providers …), with no
// variable of ours set but where the data goes. Tests built on startStack share one origin for
// everything; here the addresses differ as they do for a person trying the product, which is where
// a CSP or an origin mistake shows (avatars were once blocked here while every other suite passed).
import type { Browser, Page } from 'playwright';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { catalogueText, launchBrowser, openWatchedPage, submitSignIn, unexpectedProblems, type WatchedPage } from '../support/browser.ts';
import { STRONG_PASSWORD, uniqueEmail, useIdentities } from '../support/fixtures.ts';
import { NPM_START, useNpmStart } from '../support/npm-start.ts';
import { makePng } from '../integration/profile/images.ts';
import { openProfile, signInWith } from './profile-steps.ts';

const APP = NPM_START.app;
const IDENTITY_ADMIN = NPM_START.identityAdmin;
const DOCUMENT_APP = NPM_START.documentApp;

useNpmStart();
let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

const identities = useIdentities(() => IDENTITY_ADMIN);

let watched: WatchedPage | undefined;
afterEach(async () => {
  const problems = watched?.problems ?? [];
  await watched?.context.close();
  watched = undefined;
  expect(unexpectedProblems(problems)).toEqual([]);
});

async function openPage(javaScriptEnabled: boolean): Promise<Page> {
  watched = await openWatchedPage(browser, { javaScriptEnabled });
  return watched.page;
}

/** The header's avatar once the image really loaded (the CSP let it through). */
async function loadedHeaderAvatar(page: Page): Promise<string> {
  await page.waitForFunction(() => {
    const img = document.querySelector<HTMLImageElement>('.profile-header .avatar__img');
    return !!img && img.complete && img.naturalWidth > 0 && !img.src.startsWith('blob:');
  });
  return (await page.getAttribute('.profile-header .avatar__img', 'src')) ?? '';
}

describe('npm start', () => {
  for (const javaScriptEnabled of [true, false]) {
    it(`an uploaded avatar shows in the header (JavaScript ${javaScriptEnabled ? 'on' : 'off'})`, async () => {
      const email = uniqueEmail(javaScriptEnabled ? 'npm-start-avatar-js' : 'npm-start-avatar-nojs');
      await identities.create({ email, name: 'Ada' });
      const page = await openPage(javaScriptEnabled);
      await signInWith(page, APP, email, STRONG_PASSWORD);
      await openProfile(page, APP, '#avatar-upload-form');
      await page.setInputFiles('#avatar-file', { name: 'me.png', mimeType: 'image/png', buffer: makePng({ width: 64, height: 64, rgb: [200, 80, 20] }) });
      if (javaScriptEnabled) {
        await page.waitForFunction(() => document.querySelector<HTMLImageElement>('[data-avatar-picture] .avatar__img')?.src.startsWith('blob:'));
        await page.click('#avatar-upload-form button[type="submit"]');
      } else {
        await Promise.all([page.waitForURL(/\/profile-settings\?flow=/), page.click('#avatar-upload-form button[type="submit"]')]);
      }
      const src = await loadedHeaderAvatar(page);
      // Served by the backend stand-in at the address browsers reach it by, which the CSP names.
      expect(src).toMatch(/^http:\/\/localhost:4500\/avatars\/[a-f0-9]{32}\.png$/);
    });
  }

  for (const javaScriptEnabled of [true, false]) {
    it(`the demo document app signs in through the OAuth2 provider and our consent page (JavaScript ${javaScriptEnabled ? 'on' : 'off'})`, async () => {
      const email = uniqueEmail(javaScriptEnabled ? 'npm-start-oauth2-js' : 'npm-start-oauth2-nojs');
      await identities.create({ email, name: 'Ada' });
      const page = await openPage(javaScriptEnabled);
      await page.goto(DOCUMENT_APP);
      await page.locator('#sign-in').click();
      await page.waitForURL((url) => url.origin === APP && url.pathname === '/sign-in' && url.searchParams.has('login_challenge'));
      await submitSignIn(page, email, STRONG_PASSWORD, (url) => url.origin === APP && url.pathname === '/consent');
      await Promise.all([
        page.waitForURL((url) => url.origin === DOCUMENT_APP && url.pathname === '/callback'),
        page.getByRole('button', { name: catalogueText('en', 'oauth2.consent.allow') }).click(),
      ]);
      await expect.poll(() => page.locator('#signed-in-as').innerText()).toContain(email);
      expect(await page.locator('#userinfo').innerText()).toContain(email);
    });
  }

  it('sign-up shows the captcha stand-in’s widget and goes on once it is ticked (JavaScript on)', async () => {
    const email = uniqueEmail('npm-start-captcha');
    identities.track(email);
    const page = await openPage(true);
    await page.goto(`${APP}/sign-up`);
    await page.fill('#field-traits-email', email);
    await page.fill('#field-traits-name', 'Robo Tester');
    await page.check('#field-terms');
    await page.click('button[name="method"][value="profile"]');
    await page.waitForSelector('#field-password');
    await page.fill('#field-password', STRONG_PASSWORD);
    await page.frameLocator('iframe[title="reCAPTCHA"]').locator('#robot').check();
    await expect.poll(() => page.inputValue('textarea[name="g-recaptcha-response"]')).not.toBe('');
    await Promise.all([page.waitForURL(/\/sign-up\/verification\?flow=/), page.click('button[name="method"][value="password"]')]);
  });
});
