// Every screen by keyboard alone (issue #16's accessibility bar), in Debian's Chromium with JavaScript on
// and off, on the stand-ins (e2e) and real Kratos + Hydra (e2e-ory): Tab, Shift+Tab, Enter, Space and
// Escape only — no mouse, no element.click(). Each control is reached by Tab in the page's order, shows a
// visible focus ring when reached, and the journey completes: the cookie banner, sign up, the mailed code,
// sign in, profile settings (name, password, its rules' tooltip, the delete dialog's focus trap), sign out,
// forgot password and reset, and the OAuth2 consent screen with its tooltip and loading overlay.
import type { Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDocumentApp, type DocumentApp } from '../../embedded/document-app/index.ts';
import { catalogueText } from '../support/browser.ts';
import { latestCode, STRONG_PASSWORD, uniqueEmail } from '../support/fixtures.ts';
import { h1, useScreenStack } from './screen-stack.ts';

const screens = useScreenStack({
  name: 'keyboard-e2e',
  oauth2: true,
  rateLimits: {
    'sign-in': { perIp: 1000, perEmail: 1000 },
    'sign-up': { perIp: 1000, perEmail: 1000 },
    recovery: { perIp: 1000, perEmail: 1000 },
    verification: { perIp: 1000, perEmail: 1000 },
  },
  // The cookie banner asks every visitor (unknown location); the tag manager is never fetched: the banner is declined.
  env: { GTM_ID: 'GTM-KEYS', GTM_SCRIPT_URL: 'http://127.0.0.1:9/gtm.js', USER_LOCATION_LOOKUP: 'false' },
});

let documentApp: DocumentApp;
beforeAll(async () => {
  const { publicUrl, adminUrl } = screens.stack.oauth2!;
  documentApp = await startDocumentApp({ oauth2PublicUrl: publicUrl, oauth2AdminUrl: adminUrl });
});
afterAll(() => documentApp?.close());

const MAX_TABS = 60;

/** What has the focus, for messages: tag#id[name=value]. */
const focusedNote = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLInputElement | null;
    if (!el || el === document.body) return 'body';
    return `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.name ? `[${el.name}=${el.value}]` : ''}${el.getAttribute('href') ? `[href=${el.getAttribute('href')}]` : ''}`;
  });

/** The focused element shows a focus ring: :focus-visible, rendered, with an outline or a box shadow. */
async function expectVisibleFocus(page: Page): Promise<void> {
  if (new URL(page.url()).origin !== screens.stack.appUrl) return; // the demo client's page is not ours
  const look = await page.evaluate(() => {
    const el = document.activeElement as HTMLElement;
    const style = getComputedStyle(el);
    const outline = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2;
    return { focusVisible: el.matches(':focus-visible'), rendered: el.getClientRects().length > 0, ring: outline || style.boxShadow !== 'none' };
  });
  expect(look, await focusedNote(page)).toEqual({ focusVisible: true, rendered: true, ring: true });
}

/** Presses Tab (Shift+Tab backwards) until `selector` has the focus; fails when it is not reached. */
async function tabTo(page: Page, selector: string, backwards = false): Promise<void> {
  const path: string[] = [];
  for (let presses = 0; presses < MAX_TABS; presses += 1) {
    await page.keyboard.press(backwards ? 'Shift+Tab' : 'Tab');
    if (await page.evaluate((wanted) => document.activeElement?.matches(wanted) ?? false, selector)) return expectVisibleFocus(page);
    path.push(await focusedNote(page));
  }
  throw new Error(`${selector} not reached by ${MAX_TABS} presses of ${backwards ? 'Shift+Tab' : 'Tab'}: ${path.join(' → ')}`);
}

/** Tabs to a field and types into it (replacing what it held). */
async function typeInto(page: Page, selector: string, text: string): Promise<void> {
  await tabTo(page, selector);
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type(text);
}

type Where = string | RegExp | ((url: URL) => boolean);
const isAt = (where: Where, url: string) => (typeof where === 'string' ? url === where : where instanceof RegExp ? where.test(url) : where(new URL(url)));

/** Presses `key` and waits for a new document at `to` (the address may already match before: a flow's own address). */
async function pressTo(page: Page, key: string, to: Where): Promise<void> {
  const arrived = page.waitForEvent('framenavigated', { predicate: (frame) => frame === page.mainFrame() && isAt(to, frame.url()) });
  await page.keyboard.press(key);
  await arrived;
  await page.waitForLoadState();
}

/** Tabs to a control and presses Enter, waiting for the browser to get to `to`. */
async function enterTo(page: Page, selector: string, to: Where): Promise<void> {
  await tabTo(page, selector);
  await pressTo(page, 'Enter', to);
}

type ConsentScript = { releaseConsent: () => void };

/**
 * Wraps the page's fetch for the consent form's POSTs: the first is answered 503 without leaving the
 * page, the second goes to the server once the test calls `releaseConsent()`; everything else passes.
 */
async function scriptConsentAnswers(page: Page): Promise<void> {
  await page.evaluate(() => {
    const send = window.fetch.bind(window);
    let posts = 0;
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    (window as unknown as ConsentScript).releaseConsent = release;
    window.fetch = async (input, init) => {
      if (init?.method !== 'POST' || new URL(String(input), location.href).pathname !== '/consent') return send(input, init);
      posts += 1;
      if (posts === 1) return new Response(null, { status: 503 });
      await released;
      return send(input, init);
    };
  });
}

const SUBMIT = (form: string, value: string) => `${form} button[name="method"][value="${value}"]`;
const onApp = (path: string) => (url: URL) => url.origin === screens.stack.appUrl && url.pathname === path;

/** Declines the cookie banner: it is the first stop of the keyboard, Accept then Decline. */
async function declineBanner(page: Page, javaScriptEnabled: boolean): Promise<void> {
  await page.locator('section.cookie-banner').waitFor();
  await tabTo(page, 'section.cookie-banner button[value="accept"]');
  await page.keyboard.press('Tab');
  expect(await focusedNote(page)).toContain('[choice=decline]');
  await expectVisibleFocus(page);
  // Without JavaScript the choice is a form post answered with this page again.
  if (javaScriptEnabled) await page.keyboard.press('Enter');
  else await pressTo(page, 'Enter', (url) => url.pathname === '/sign-up');
  await expect.poll(() => page.locator('section.cookie-banner').count()).toBe(0);
}

/** Signs out with the page's sign-out link (`focused`: it has the focus already); without JavaScript the user confirms. */
async function signOut(page: Page, link: string, javaScriptEnabled: boolean, focused = false): Promise<void> {
  const signedOut = (url: URL) => url.pathname === '/sign-in' && url.searchParams.get('logged_out') === '1';
  if (!focused) await tabTo(page, link);
  if (javaScriptEnabled) return pressTo(page, 'Enter', signedOut);
  await pressTo(page, 'Enter', onApp('/logout'));
  await enterTo(page, '#logout-form button[type="submit"]', signedOut);
}

for (const javaScriptEnabled of [true, false]) {
  describe(`keyboard only, JavaScript ${javaScriptEnabled ? 'on' : 'off'}`, () => {
    it('cookie banner, sign up, verify, sign in, profile (name, password, tooltip, dialog), sign out, forgot password, reset', async () => {
      const { appUrl, identity } = screens.stack;
      const email = uniqueEmail(javaScriptEnabled ? 'keys-js' : 'keys-nojs');
      screens.identities.track(email);
      const page = await screens.openPage(javaScriptEnabled);

      await page.goto(`${appUrl}/sign-up`);
      await declineBanner(page, javaScriptEnabled);
      // Sign up: e-mail, name, the terms by Space, then the password step.
      await typeInto(page, '#field-traits-email', email);
      await typeInto(page, '#field-traits-name', 'Ada Lovelace');
      await tabTo(page, '#field-terms');
      await page.keyboard.press('Space');
      expect(await page.locator('#field-terms').isChecked()).toBe(true);
      // Shift+Tab goes back the same way.
      await tabTo(page, '#field-traits-name', true);
      await enterTo(page, SUBMIT('#sign-up-form', 'profile'), /\/sign-up\?flow=/);
      await typeInto(page, '#field-password', STRONG_PASSWORD);
      await enterTo(page, SUBMIT('#sign-up-form', 'password'), /\/sign-up\/verification\?flow=/);

      // The mailed code, then on to sign-in.
      await typeInto(page, '#field-code', await latestCode(identity.adminUrl, email, 'verification'));
      await tabTo(page, 'button[name="method"][value="code"]');
      await page.keyboard.press('Enter');
      await page.getByText('Your email address has been verified.').waitFor();
      await enterTo(page, 'a[data-link="continue"]', onApp('/sign-in'));

      // Sign in.
      await typeInto(page, '#field-identifier', email);
      await typeInto(page, '#field-password', STRONG_PASSWORD);
      await enterTo(page, 'button[name="method"][value="password"]', `${appUrl}/`);
      expect(await h1(page)).toBe('Hello, Ada Lovelace');

      // Profile settings: the name, then the password with its rules' tooltip on the way.
      await enterTo(page, 'a[data-link="profile-settings"]', /\/profile-settings/);
      await page.locator('#profile-name-form').waitFor();
      await typeInto(page, '#profile-name-form #field-traits-name', 'Ada King');
      await enterTo(page, SUBMIT('#profile-name-form', 'profile'), /\/profile-settings\?flow=/);
      await page.locator('.profile-header__name', { hasText: 'Ada King' }).waitFor();
      await typeInto(page, '#profile-password-form #field-password', 'Juniper-Comet-Harvest-64');
      await tabTo(page, '#password-rules .tooltip__trigger');
      const rules = page.locator('#password-rules-tip');
      expect(await page.locator('#password-rules .tooltip__trigger').getAttribute('aria-describedby')).toBe('password-rules-tip');
      await expect.poll(() => rules.isVisible()).toBe(true);
      expect(await rules.innerText()).toBe(catalogueText('en', 'profile.password.rules'));
      if (javaScriptEnabled) {
        await page.keyboard.press('Escape');
        await expect.poll(() => rules.isVisible()).toBe(false);
      }
      await enterTo(page, SUBMIT('#profile-password-form', 'password'), /\/profile-settings\?flow=/);
      await page.locator('[data-password-kind="changedPassword"]').waitFor();

      // The delete dialog: focus goes in, Tab and Shift+Tab stay in, Escape closes it and gives the focus back.
      if (javaScriptEnabled) {
        await tabTo(page, '[data-dialog-open="delete-account-dialog"]');
        await page.keyboard.press('Enter');
        const inDialog = () => page.evaluate(() => document.activeElement?.closest('#delete-account-dialog') !== null);
        await expect.poll(inDialog).toBe(true);
        for (const key of ['Tab', 'Tab', 'Tab', 'Tab', 'Shift+Tab', 'Shift+Tab', 'Shift+Tab']) {
          await page.keyboard.press(key);
          expect(await inDialog(), `${key} left the dialog for ${await focusedNote(page)}`).toBe(true);
          await expectVisibleFocus(page);
        }
        await page.keyboard.press('Escape');
        await expect.poll(() => page.locator('#delete-account-dialog').isVisible()).toBe(false);
        expect(await focusedNote(page)).toContain('[href=');
      }
      // Back up to the header's sign-out.
      await tabTo(page, '.profile-header__sign-out', true);
      await signOut(page, '.profile-header__sign-out', javaScriptEnabled, true);

      // Forgot password: the mailed code, a new password, then home.
      await enterTo(page, 'a[data-link="forgot-password"]', onApp('/forgot-password'));
      await typeInto(page, '#field-email', email);
      await enterTo(page, 'button[name="method"][value="code"]', /\/forgot-password\?flow=/);
      await page.locator('#field-code').waitFor();
      await typeInto(page, '#field-code', await latestCode(identity.adminUrl, email, 'recovery'));
      await enterTo(page, 'button[name="method"][value="code"]', /\/forgot-password\/reset\?flow=/);
      await typeInto(page, '#field-password', 'Saffron-Glacier-Orbit-27');
      await tabTo(page, 'button[name="method"][value="password"]');
      await page.keyboard.press('Enter');
      await page.getByText('Your password has been changed.').waitFor();
      await enterTo(page, 'a[data-link="continue"]', `${appUrl}/`);
      expect(await h1(page)).toBe('Hello, Ada King');
      await signOut(page, 'a[data-link="logout"]', javaScriptEnabled);
    });

    it('the OAuth2 consent screen: remember by Space, its tooltip, Allow by Enter (the loading overlay while it hands off)', async () => {
      const account = await screens.newAccount(`keys-oauth2-${javaScriptEnabled ? 'js' : 'nojs'}`);
      const page = await screens.openPage(javaScriptEnabled, [{ name: 'cookie_banner_accept', value: 'false' }]);
      await page.goto(documentApp.url);
      await enterTo(page, '#sign-in', onApp('/sign-in'));
      await typeInto(page, '#field-identifier', account.email);
      await typeInto(page, '#field-password', account.password);
      await enterTo(page, 'button[name="method"][value="password"]', onApp('/consent'));

      await tabTo(page, '#consent-remember');
      await page.keyboard.press('Space');
      expect(await page.locator('#consent-remember').isChecked()).toBe(true);
      await tabTo(page, '#consent-remember-help .tooltip__trigger');
      const help = page.locator('#consent-remember-help-tip');
      await expect.poll(() => help.isVisible()).toBe(true);
      if (javaScriptEnabled) {
        await page.keyboard.press('Escape');
        await expect.poll(() => help.isVisible()).toBe(false);
      }
      const overlay = page.locator('#consent-loading');
      expect(await overlay.isVisible()).toBe(false); // hidden until the form is sent, and for good without JavaScript
      await tabTo(page, 'button[name="decision"][value="allow"]');
      const atClient = (url: URL) => url.origin === documentApp.url && url.pathname === '/callback';
      if (javaScriptEnabled) {
        // The page's own fetch answers the form island: the first consent POST with a 503, the next only once
        // released. Two CI runs had sent the POST on to the server past a Playwright route (times: 1, then a
        // handler failing the first POST), for a reason not found; a stand-in inside the page cannot be passed
        // by, and every consent POST that does reach the network is listed in the failure.
        const sent: string[] = [];
        page.on('request', (request) => {
          if (request.method() === 'POST' && new URL(request.url()).pathname === '/consent')
            sent.push(request.isNavigationRequest() ? 'a navigation' : 'a fetch');
        });
        const sentNote = () => `consent POSTs on the network: ${sent.join(', ') || 'none'}`;
        await scriptConsentAnswers(page);
        // An answer that keeps the user here (a server error, told by a toast) takes the overlay away again.
        await page.keyboard.press('Enter');
        await page
          .locator('.toast')
          .first()
          .waitFor()
          .catch((error: Error) => {
            throw new Error(`${error.message}\n${sentNote()}`);
          });
        expect(sent, sentNote()).toEqual([]);
        await expect.poll(() => overlay.isVisible()).toBe(false);
        expect(await page.locator('#consent-form').getAttribute('aria-busy')).toBe('false');
        // The focus is back on Allow (disabling it while in flight had taken it away): Enter again is the retry.
        expect(await focusedNote(page)).toContain('[decision=allow]');
        // The answer is held until the overlay has shown: it covers the hand-off, labelled, as a status.
        await page.keyboard.press('Enter');
        await overlay.waitFor({ state: 'visible' });
        expect(await overlay.getAttribute('role')).toBe('status');
        expect(await overlay.innerText()).toContain(catalogueText('en', 'ui.loading'));
        expect(await page.locator('#consent-form').getAttribute('aria-busy')).toBe('true');
        await Promise.all([page.waitForURL(atClient), page.evaluate(() => (window as unknown as ConsentScript).releaseConsent())]);
        expect(sent, sentNote()).toEqual(['a fetch']);
      } else {
        await pressTo(page, 'Enter', atClient);
      }
      await expect.poll(() => page.locator('#signed-in-as').innerText()).toContain(account.email);
    });
  });
}
