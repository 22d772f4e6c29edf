// Forgot password → emailed code → new password → sign in with it, in Debian's Chromium with JavaScript
// on and off, against the real app and the embedded identity service (the Swagger UI page is in
// api.test.ts). The app is built into a temporary directory so no other process's dist/ is touched.
import type { Browser, Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureRateLimits } from '../../server/security/rate-limit.ts';
import { buildAssets, launchBrowser, newContext } from '../support/browser.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { latestCode, useIdentities } from '../support/fixtures.ts';

let built: ReturnType<typeof buildAssets> | undefined;
let stack: Stack;
let browser: Browser;

const REPORT_CSP = `addEventListener('securitypolicyviolation', (e) => console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI));`;

beforeAll(async () => {
  built = buildAssets('auth-recovery-e2e');
  configureRateLimits({ recovery: { perIp: 1000, perEmail: 1000 }, 'sign-in': { perIp: 1000, perEmail: 1000 } });
  stack = await startStack({ env: { ASSETS_DIR: built!.assetsDir } });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
  built?.remove();
});

const identities = useIdentities(() => stack.identity.adminUrl);
const createIdentity = (email: string, password: string, verified = true) => identities.create({ email, password, name: 'Recovering Reader', verified });

/** Clicks a submit button and waits until the browser has moved to a URL matching `to`. */
async function submitAndWait(page: Page, button: string, to: RegExp): Promise<void> {
  await Promise.all([page.waitForURL(to), page.getByRole('button', { name: button, exact: true }).click()]);
}

// The browser logs every 4xx document it is shown; those are expected where a form is re-rendered.
const ignorable = (line: string) => /Failed to load resource: the server responded with a status of 4\d\d/.test(line);

describe.each([
  { js: true, label: 'JavaScript on' },
  { js: false, label: 'JavaScript off' },
])('forgot password with $label', ({ js }) => {
  it('recovers the account with the emailed code and signs in with the new password', async () => {
    const email = `reader.${js ? 'js' : 'nojs'}@example.com`;
    const oldPassword = 'Old-Reader-Phrase-1';
    const newPassword = `New-Reader-Phrase-${js ? 'J' : 'N'}-2026`;
    await createIdentity(email, oldPassword);

    const { context, problems, watch } = await newContext(browser, { javaScriptEnabled: js });
    await context.addInitScript(REPORT_CSP);
    const page = await context.newPage();
    watch(page);

    // From the sign-in page's "Forgot password?" link.
    await page.goto(`${stack.appUrl}/sign-in`);
    // The new flow is shown at once; with JavaScript the bar then names it (decision 190).
    await Promise.all([page.waitForURL(js ? /\/forgot-password\?flow=/ : /\/forgot-password$/), page.locator('a[data-link="forgot-password"]').click()]);
    expect((await page.locator('h1').innerText()).trim()).toBe('Forgot your password?');

    // The field stops at 255 characters (spec §5; the server refuses longer ones too): a longer address cannot be typed whole.
    await page.locator('#field-email').fill(`${'a'.repeat(250)}@example.com`);
    expect((await page.locator('#field-email').inputValue()).length).toBe(255);

    await page.locator('#field-email').fill(email);
    await submitAndWait(page, 'Send recovery code', /\/forgot-password\?flow=/);
    await page.locator('#field-code').waitFor();
    expect((await page.locator('h1').innerText()).trim()).toBe('Check your email');

    await page.locator('#field-code').fill(await latestCode(stack.identity.adminUrl, email, 'recovery'));
    await submitAndWait(page, 'Continue', /\/forgot-password\/reset\?flow=/);
    expect((await page.locator('h1').innerText()).trim()).toBe('Set a new password');
    expect(await page.locator('input[name="traits.email"]').count()).toBe(0);

    await page.locator('#field-password').fill(newPassword);
    await submitAndWait(page, 'Save password', /\/forgot-password\/reset\?flow=/);
    await page.getByText('Your password has been changed.').waitFor();
    await Promise.all([page.waitForURL(`${stack.appUrl}/`), page.locator('a[data-link="continue"]').click()]);
    expect(await page.locator('body').innerText()).toContain(email);

    // Sign out, then sign in with the new password.
    await page.goto(`${stack.appUrl}/logout`);
    if (!js) await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(/\/sign-in/);
    await page.locator('#field-identifier').fill(email);
    await page.locator('#field-password').fill(newPassword);
    await Promise.all([page.waitForURL(`${stack.appUrl}/`), page.locator('form#sign-in-form button[type="submit"][value="password"]').click()]);
    expect(await page.locator('body').innerText()).toContain(email);

    expect(problems.filter((line) => !ignorable(line))).toEqual([]);
    await context.close();
  });

  it('shows the translated rate-limit notice when a code is asked for too often', async () => {
    const email = `impatient.${js ? 'js' : 'nojs'}@example.com`;
    configureRateLimits({ recovery: { perEmail: 1 } });
    try {
      const { context, problems, watch } = await newContext(browser, { javaScriptEnabled: js });
      await context.addInitScript(REPORT_CSP);
      await context.addCookies([{ name: 'lng', value: 'fr', url: stack.appUrl }]);
      const page = await context.newPage();
      watch(page);
      await page.goto(`${stack.appUrl}/forgot-password`);
      await page.locator('#field-email').fill(email);
      await submitAndWait(page, 'Envoyer le code de récupération', /\/forgot-password\?flow=/);
      await page.locator('#field-code').waitFor();
      // "Send a new code" for the same address: over the per-email limit.
      await page.getByRole('button', { name: 'Envoyer un nouveau code', exact: true }).click();
      await page.getByText('Trop de tentatives').first().waitFor();
      const text = await page.locator('body').innerText();
      expect(text).toContain('Réessayez dans environ');
      if (js) expect(page.url()).toMatch(/\/forgot-password\?flow=/); // swapped in place, no navigation
      expect(problems.filter((line) => !ignorable(line))).toEqual([]);
      await context.close();
    } finally {
      configureRateLimits({ recovery: { perEmail: 1000 } });
    }
  });

  it('resends the verification email, verifies with the code and leads on to sign-in', async () => {
    const email = `unverified.${js ? 'js' : 'nojs'}@example.com`;
    await createIdentity(email, 'Unverified-Phrase-9', false);
    const { context, problems, watch } = await newContext(browser, { javaScriptEnabled: js });
    await context.addInitScript(REPORT_CSP);
    const page = await context.newPage();
    watch(page);

    await page.goto(`${stack.appUrl}/sign-up/resend-verification-email?email=${encodeURIComponent(email)}`);
    expect((await page.locator('h1').innerText()).trim()).toBe('Resend the verification email');
    expect(await page.locator('#field-email').inputValue()).toBe(email);
    await submitAndWait(page, 'Send verification email', /\/sign-up\/verification\?flow=/);
    await page.locator('#field-code').waitFor();
    expect(await page.locator('body').innerText()).toContain(`Enter the code we sent to ${email}.`);

    // A wrong code first: the message shows and the form stays.
    await page.locator('#field-code').fill('000001');
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await page.locator('[data-message-id="4070006"]').waitFor();

    await page.locator('#field-code').fill(await latestCode(stack.identity.adminUrl, email, 'verification'));
    await submitAndWait(page, 'Verify', /\/sign-up\/verification\?flow=/);
    await page.getByText('Your email address has been verified.').waitFor();
    await Promise.all([page.waitForURL(js ? /\/sign-in\?flow=/ : /\/sign-in(\?(?!.*flow=).*)?$/), page.locator('a[data-link="continue"]').click()]);

    expect(problems.filter((line) => !ignorable(line))).toEqual([]);
    await context.close();
  });
});
