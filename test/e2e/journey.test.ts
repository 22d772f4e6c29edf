// One account's whole life through the pages, in Debian's Chromium with JavaScript on and off, against
// the stand-in (e2e) and real Kratos (e2e-ory): sign up → verify with the mailed code → sign in →
// profile settings (name, password) → sign out → forgot password → recover with the mailed code → the
// new password → sign out from the home → sign in with it. Every step is the next one's precondition,
// so the identity service has to keep what each step did. No console error or CSP violation is allowed.
import type { Locator, Page } from 'playwright';
import { describe, expect, it } from 'vitest';
import { latestCode, STRONG_PASSWORD, uniqueEmail } from '../support/fixtures.ts';
import { h1, useScreenStack } from './screen-stack.ts';

const screens = useScreenStack({
  name: 'journey-e2e',
  // Two journeys from one address in a minute: not what the limiter is being tested for here.
  rateLimits: {
    'sign-in': { perIp: 1000, perEmail: 1000 },
    'sign-up': { perIp: 1000, perEmail: 1000 },
    recovery: { perIp: 1000, perEmail: 1000 },
    verification: { perIp: 1000, perEmail: 1000 },
  },
});

const SETTINGS_PASSWORD = 'Juniper-Comet-Harvest-64';
const RECOVERED_PASSWORD = 'Saffron-Glacier-Orbit-27';

/** Clicks `target` (a selector or a locator) and waits until the browser is at `to`. */
async function clickTo(page: Page, target: string | Locator, to: string | RegExp | ((url: URL) => boolean)): Promise<void> {
  await Promise.all([page.waitForURL(to), (typeof target === 'string' ? page.locator(target) : target).click()]);
}

const button = (page: Page, name: string) => page.getByRole('button', { name, exact: true });

async function signInThroughForm(page: Page, email: string, password: string, to: string | RegExp): Promise<void> {
  await page.locator('#field-identifier').fill(email);
  await page.locator('#field-password').fill(password);
  await clickTo(page, 'button[name="method"][value="password"]', to);
}

/** Signs out with the page's sign-out link: JavaScript posts the CSRF-protected form at once, without it the user confirms. */
async function signOut(page: Page, link: string, javaScriptEnabled: boolean): Promise<void> {
  await page.locator(link).click();
  if (!javaScriptEnabled) {
    await page.locator('#logout-form').waitFor();
    await page.locator('#logout-form button[type="submit"]').click();
  }
  await page.waitForURL((url) => url.pathname === '/sign-in' && url.searchParams.get('logged_out') === '1');
  await page.locator('#field-identifier').waitFor();
}

for (const javaScriptEnabled of [true, false]) {
  describe(`JavaScript ${javaScriptEnabled ? 'on' : 'off'}`, () => {
    it('sign up, verify, sign in, change name and password, sign out, recover, sign in with the recovered password', async () => {
      const { appUrl, identity } = screens.stack;
      const email = uniqueEmail(javaScriptEnabled ? 'journey-js' : 'journey-nojs');
      screens.identities.track(email);
      const page = await screens.openPage(javaScriptEnabled);
      const hasSession = async () => (await screens.context().cookies()).some((cookie) => cookie.name === 'ory_kratos_session');
      // A screen's new flow is shown at once; with JavaScript the address bar then names it (decision 190).
      const newFlowOf = (path: string) => (url: URL) => url.pathname === path && url.searchParams.has('flow') === javaScriptEnabled;

      // Sign up: the profile step, then the password.
      await page.goto(`${appUrl}/sign-up`);
      await page.locator('#field-traits-email').fill(email);
      await page.locator('#field-traits-name').fill('Ada Lovelace');
      await page.locator('#field-terms').check();
      await clickTo(page, 'button[name="method"][value="profile"]', /\/sign-up\?flow=/);
      await page.locator('#field-password').fill(STRONG_PASSWORD);
      await clickTo(page, 'button[name="method"][value="password"]', /\/sign-up\/verification\?flow=/);
      expect(await hasSession()).toBe(false);

      // Verify with the mailed code, then on to sign-in.
      await page.locator('#field-code').fill(await latestCode(identity.adminUrl, email, 'verification'));
      await page.locator('button[name="method"][value="code"]').click();
      await page.getByText('Your email address has been verified.').waitFor();
      await clickTo(page, 'a[data-link="continue"]', newFlowOf('/sign-in'));

      // Sign in: the home greets the new account.
      await signInThroughForm(page, email, STRONG_PASSWORD, `${appUrl}/`);
      expect(await h1(page)).toBe('Hello, Ada Lovelace');

      // Profile settings: a new name, then a new password.
      await clickTo(page, 'a[data-link="profile-settings"]', screens.landsOn('/profile-settings'));
      await page.locator('#field-traits-name').fill('Ada King');
      await clickTo(page, '#profile-name-form button[name="method"][value="profile"]', /\/profile-settings\?flow=/);
      await page.locator('.toast', { hasText: 'Your changes have been saved!' }).waitFor();
      expect(await page.locator('.profile-header__name').innerText()).toBe('Ada King');
      await page.locator('#field-password').fill(SETTINGS_PASSWORD);
      await clickTo(page, '#profile-password-form button[name="method"][value="password"]', /\/profile-settings\?flow=/);
      await page.locator('[data-password-kind="changedPassword"]').waitFor();

      // Sign out from the profile.
      await signOut(page, '.profile-header__sign-out', javaScriptEnabled);
      expect(await hasSession()).toBe(false);

      // Forgot password: the mailed code, then a new password; recovery signs the browser in.
      await clickTo(page, 'a[data-link="forgot-password"]', newFlowOf('/forgot-password'));
      await page.locator('#field-email').fill(email);
      await clickTo(page, button(page, 'Send recovery code'), /\/forgot-password\?flow=/);
      await page.locator('#field-code').fill(await latestCode(identity.adminUrl, email, 'recovery'));
      await clickTo(page, button(page, 'Continue'), /\/forgot-password\/reset\?flow=/);
      expect(await h1(page)).toBe('Set a new password');
      await page.locator('#field-password').fill(RECOVERED_PASSWORD);
      await clickTo(page, button(page, 'Save password'), /\/forgot-password\/reset\?flow=/);
      await page.getByText('Your password has been changed.').waitFor();
      await clickTo(page, 'a[data-link="continue"]', `${appUrl}/`);
      expect(await h1(page)).toBe('Hello, Ada King');

      // Sign out from the home: the identity service forgets the session.
      const session = (await screens.context().cookies()).find((cookie) => cookie.name === 'ory_kratos_session');
      expect(session).toBeDefined();
      await signOut(page, 'a[data-link="logout"]', javaScriptEnabled);
      expect(await hasSession()).toBe(false);
      const whoami = await fetch(`${identity.publicUrl}/sessions/whoami`, { headers: { cookie: `ory_kratos_session=${session!.value}` } });
      expect(whoami.status).toBe(401);

      // Only the recovered password signs in now: the earlier ones are refused with a 400 form.
      screens.provoke(400);
      for (const old of [STRONG_PASSWORD, SETTINGS_PASSWORD]) {
        await page.locator('#field-identifier').fill(email);
        await page.locator('#field-password').fill(old);
        const [refused] = await Promise.all([
          page.waitForResponse((response) => response.request().method() === 'POST' && new URL(response.url()).pathname === '/sign-in'),
          page.locator('button[name="method"][value="password"]').click(),
        ]);
        expect(refused.status()).toBe(400);
        await page.locator('[data-message-id="4000006"]').waitFor();
      }
      await signInThroughForm(page, email, RECOVERED_PASSWORD, `${appUrl}/`);
      expect(await h1(page)).toBe('Hello, Ada King');
      expect(await hasSession()).toBe(true);
    });
  });
}
