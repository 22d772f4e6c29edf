// Steps the profile browser files share (profile.test.ts, profile-social.test.ts): sign in with a
// password on our page, and open the settings page once its flow is loaded.
import type { Page } from 'playwright';

export async function signInWith(page: Page, appUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${appUrl}/sign-in`);
  await page.waitForSelector('#field-identifier');
  await page.fill('#field-identifier', email);
  await page.fill('#field-password', password);
  await Promise.all([page.waitForURL((url) => !url.pathname.startsWith('/sign-in')), page.click('button[name="method"][value="password"]')]);
}

/**
 * The settings page with its Kratos flow loaded, once `readySelector` (the section the test needs) is there.
 * The flow is shown on the first request (decision 190): its forms post to it; with JavaScript the address
 * bar names it too.
 */
export async function openProfile(page: Page, appUrl: string, readySelector: string): Promise<void> {
  await page.goto(`${appUrl}/profile-settings`);
  await page.waitForSelector('form[action^="/profile-settings?flow="]', { state: 'attached' });
  await page.waitForSelector(readySelector);
}
