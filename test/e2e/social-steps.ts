// Steps of the social browser journeys (social.test.ts, social-link.test.ts): the embedded provider's
// choose-account page as a person uses it, and signing out from the home page.
import type { Page } from 'playwright';
import { ROUTES } from '../../core/routes.ts';

export const PROVIDER_IDS = ['google', 'microsoft', 'dropbox', 'apple'] as const;

/**
 * On the provider's choose-account page: chooses `email` (adding it when the page does not list it) and
 * waits until the browser is back at `to`. Apple answers with a form post: with JavaScript off its page
 * asks for a click on Continue.
 */
export async function atProvider(page: Page, origin: string, email: string, to: string | RegExp | ((url: URL) => boolean), javaScriptEnabled: boolean) {
  await page.waitForURL((url) => url.origin === origin, { waitUntil: 'commit' });
  const listed = page.locator(`button[name="sub"][data-email="${email}"]`);
  const leaving = page.waitForURL((url) => url.origin !== origin, { waitUntil: 'commit' });
  if ((await listed.count()) > 0) await listed.click();
  else {
    await page.locator('input[name="email"]').fill(email);
    await page.getByRole('button', { name: 'Add and continue' }).click();
  }
  if (!javaScriptEnabled) {
    // Apple's form_post page (oidc-provider's "Submitting Callback"), when the provider answers that way
    // (the stand-in's apple type): without JavaScript its noscript Continue button. Only ever on the
    // provider's own page: the wait must not outlive it and press a button of ours.
    const formPost = page.locator('noscript button[type="submit"]');
    let left = false;
    const continued = formPost
      .waitFor({ timeout: 10_000 })
      .then(() => (!left && new URL(page.url()).origin === origin ? formPost.click() : undefined))
      .catch(() => undefined); // no such page: the provider answered with a redirect
    await Promise.race([leaving.then(() => (left = true)), continued]);
    left = true;
  }
  await page.waitForURL(to);
}

/**
 * Signs out with the home page's link: JavaScript posts the form at once, without it the user confirms.
 * With JavaScript, only once the home's live session has its token: asked for after a sign-out, the
 * token is a 401, a console error the journey did not mean. A resource timing entry is there once the
 * answer is in, however long ago, so this wait cannot miss it.
 */
export async function signOutFromHome(page: Page, javaScriptEnabled: boolean): Promise<void> {
  if (javaScriptEnabled) {
    await page.waitForFunction(
      (tokenPath) => performance.getEntriesByType('resource').some((entry) => new URL(entry.name).pathname === tokenPath),
      ROUTES.liveSessionToken,
    );
  }
  await page.locator('a[href="/logout"]').first().click();
  if (!javaScriptEnabled) {
    await page.locator('#logout-form').waitFor();
    await page.locator('#logout-form button[type="submit"]').click();
  }
  await page.waitForURL((url) => url.pathname === '/sign-in');
  await page.locator('#field-identifier').waitFor();
}
