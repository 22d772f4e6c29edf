// Google One Tap in Debian's Chromium with JavaScript on, under the app's strict CSP, against the fake
// Google (embedded/providers: its GSI-compatible script at /gsi/client shows a One Tap card of its test
// accounts) and the identity stand-in (decision 120). Every scenario fails on a console error or a CSP
// violation (screen-stack.ts). Stand-in only: test/real-ory-projects.ts says why.
import type { Page } from 'playwright';
import { describe, expect, it } from 'vitest';
import { uniqueEmail } from '../support/fixtures.ts';
import { h1, mainText, useScreenStack } from './screen-stack.ts';

const screens = useScreenStack({
  name: 'one-tap-e2e',
  socialProviders: true,
  rateLimits: { 'sign-in': { perIp: 1000, perEmail: 1000 } },
});

/** A Google account at the fake; its identity, made by the journey, is deleted after the scenario. */
function googleAccount(label: string): { email: string; name: string } {
  const email = uniqueEmail(label);
  const name = `Tap ${label}`;
  screens.stack.providers!.addAccount('google', { email, name });
  screens.identities.track(email);
  return { email, name };
}

const oneTapForm = (page: Page) => page.locator('form[data-island="one-tap"]');
const promptCard = (page: Page) => page.locator('[data-gsi-one-tap]');

/** Waits for the fake's One Tap card and chooses `email` in it; the browser ends on `to`. */
async function chooseInPrompt(page: Page, email: string, to: string | RegExp): Promise<void> {
  const account = promptCard(page).locator(`button[data-email="${email}"]`);
  await account.waitFor();
  await Promise.all([page.waitForURL(to), account.click()]);
}

describe('Google One Tap with JavaScript on', () => {
  it('the sign-in page loads the fake Google’s script, prompts with its accounts, and choosing one signs in → home', async () => {
    const { email, name } = googleAccount('tap-journey');
    const page = await screens.openPage(true);
    const { appUrl } = screens.stack;
    const gsiRequests: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/gsi/client')) gsiRequests.push(request.url());
    });
    await page.goto(`${appUrl}/sign-in`);
    await expect.poll(() => oneTapForm(page).getAttribute('data-gsi-loaded')).toBe('true');
    expect(gsiRequests).toEqual([screens.stack.providers!.google.gsiScriptUrl]);
    await promptCard(page).waitFor();
    const offered = await promptCard(page)
      .locator('button[data-email]')
      .evaluateAll((buttons) => buttons.map((button) => (button as HTMLElement).dataset.email));
    expect(offered).toContain(email);
    expect(await oneTapForm(page).isHidden()).toBe(true); // the form is only a carrier

    await chooseInPrompt(page, email, `${appUrl}/`);
    expect(await h1(page)).toBe(`Hello, ${name}`);
    expect(await mainText(page)).toContain(email);
    const cookies = await screens.context().cookies();
    expect(cookies.find((cookie) => cookie.name === 'google_access_token_test')?.httpOnly).toBe(true);
    expect(cookies.some((cookie) => cookie.name === 'one_tap_nonce' || cookie.name === 'g_csrf_token')).toBe(false);

    // Signed out (which clears the Google token cookie), then straight back in with One Tap, prompted at once.
    await page.locator('a[data-link="logout"]').click();
    await page.waitForURL(/\/sign-in\?/);
    expect((await screens.context().cookies()).some((cookie) => cookie.name === 'google_access_token_test')).toBe(false);
    await page.goto(`${appUrl}/sign-in?request_google_sign_in=true&return_to=%2Fprofile-settings`);
    expect(await oneTapForm(page).getAttribute('data-prompt')).toBe('now');
    await chooseInPrompt(page, email, screens.landsOn('/profile-settings'));
    expect(await h1(page)).toBe('Profile settings');
  });

  it('the sign-up page offers One Tap too; a new Google account is registered and signed in', async () => {
    const { email, name } = googleAccount('tap-signup');
    const page = await screens.openPage(true);
    await page.goto(`${screens.stack.appUrl}/sign-up`);
    await chooseInPrompt(page, email, `${screens.stack.appUrl}/`);
    expect(await h1(page)).toBe(`Hello, ${name}`);
  });

  it('a Google script that fails to load is recorded (gsiLoaded false) and the page keeps working', async () => {
    const page = await screens.openPage(true);
    await page.route('**/gsi/client', (route) => route.fulfill({ status: 503, body: 'unavailable' }));
    screens.provoke(503);
    await page.goto(`${screens.stack.appUrl}/sign-in`);
    await expect.poll(() => oneTapForm(page).getAttribute('data-gsi-loaded')).toBe('false');
    expect(await promptCard(page).count()).toBe(0);
    expect(await page.locator('#field-identifier').isVisible()).toBe(true);
  });

  it('with JavaScript off nothing of Google loads and nothing shows', async () => {
    const page = await screens.openPage(false);
    const gsiRequests: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/gsi/')) gsiRequests.push(request.url());
    });
    await page.goto(`${screens.stack.appUrl}/sign-in`);
    expect(await oneTapForm(page).isHidden()).toBe(true);
    expect(await oneTapForm(page).getAttribute('data-gsi-loaded')).toBeNull();
    expect(gsiRequests).toEqual([]);
  });
});
