// Sign up → code from the embedded courier → verify → sign in → home → sign out → sign in again,
// in Debian's Chromium, once with JavaScript on (forms enhanced by the island) and once with it off
// (plain form posts and 303s). No console errors or CSP violations are allowed on the way.
import type { Browser as PlaywrightBrowser, Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { launchBrowser, newContext } from '../support/browser.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { latestCode, STRONG_PASSWORD, uniqueEmail, useIdentities } from '../support/fixtures.ts';

let stack: Stack;
let browser: PlaywrightBrowser;

beforeAll(async () => {
  stack = await startStack();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
});
// The accounts these journeys sign up through the browser are deleted after each test.
const identities = useIdentities(() => stack.identity.adminUrl);

async function pathOf(page: Page): Promise<string> {
  const url = new URL(page.url());
  return url.pathname;
}

/** Sign-up's first step (e-mail, name, terms) on the page already open, until the password field is there. */
async function profileStep(page: Page, email: string): Promise<void> {
  await page.fill('#field-traits-email', email);
  await page.fill('#field-traits-name', 'Ada Lovelace');
  await page.check('#field-terms');
  await Promise.all([page.waitForURL(/\/sign-up\?flow=/), page.click('button[name="method"][value="profile"]')]);
  await page.waitForSelector('#field-password');
}

for (const javaScriptEnabled of [true, false]) {
  describe(`JavaScript ${javaScriptEnabled ? 'on' : 'off'}`, () => {
    test('sign up, verify with the e-mailed code, sign in, sign out, sign in again', async () => {
      const { context, problems, watch } = await newContext(browser, { javaScriptEnabled });
      const page = await context.newPage();
      watch(page);
      const email = uniqueEmail(javaScriptEnabled ? 'e2e-js' : 'e2e-nojs');
      identities.track(email);
      try {
        // Sign up, step 1: profile and terms.
        await page.goto(`${stack.appUrl}/sign-up`);
        // The new flow is shown at once; with JavaScript the address bar then names it (decision 190).
        expect(page.url()).toMatch(javaScriptEnabled ? /\/sign-up\?flow=/ : /\/sign-up$/);
        await profileStep(page, email);

        // Step 2: the password.
        await page.fill('#field-password', STRONG_PASSWORD);
        await Promise.all([page.waitForURL(/\/sign-up\/verification\?flow=/), page.click('button[name="method"][value="password"]')]);

        // Verify with the code the embedded courier recorded.
        const code = await latestCode(stack.identity.adminUrl, email, 'verification');
        await page.waitForSelector('input[name="code"]');
        await page.fill('input[name="code"]', code);
        await page.click('button[name="method"][value="code"]');
        await page.waitForSelector('[data-link="continue"]');
        expect(await page.textContent('main')).toContain('verified');

        // On to sign-in, then in.
        await Promise.all([page.waitForURL(/\/sign-in/), page.click('[data-link="continue"]')]);
        await page.waitForSelector('#field-identifier');
        await page.fill('#field-identifier', email);
        await page.fill('#field-password', STRONG_PASSWORD);
        await Promise.all([page.waitForURL(`${stack.appUrl}/`), page.click('button[name="method"][value="password"]')]);
        expect(await pathOf(page)).toBe('/');
        expect(await page.textContent('h1')).toContain('Ada Lovelace');

        // Sign out: JS submits the CSRF-protected form at once; without JS the user presses the button.
        await page.click('[data-link="logout"]');
        if (!javaScriptEnabled) {
          await page.waitForSelector('#logout-form');
          await page.click('#logout-form button[type="submit"]');
        }
        await page.waitForURL(/\/sign-in\?.*logged_out=1/);
        const cookies = await context.cookies();
        expect(cookies.some((cookie) => cookie.name === 'ory_kratos_session')).toBe(false);
        if (javaScriptEnabled) {
          // The clear-storage hook removed the stored token.
          await page.evaluate(() => localStorage.setItem('token', 'stale'));
          await page.reload();
          await page.waitForSelector('#field-identifier');
          expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();
        }

        // A guest again: / sends us to sign-in with return_to; signing in brings us back.
        await page.goto(`${stack.appUrl}/`);
        await page.waitForURL(javaScriptEnabled ? /\/sign-in\?flow=.*return_to=/ : /\/sign-in\?return_to=/);
        await page.fill('#field-identifier', email);
        await page.fill('#field-password', STRONG_PASSWORD);
        await Promise.all([page.waitForURL(`${stack.appUrl}/`), page.click('button[name="method"][value="password"]')]);
        expect(await page.textContent('h1')).toContain('Ada Lovelace');

        expect(problems).toEqual([]);
      } catch (error) {
        const html = await page.content().catch(() => '');
        throw new Error(`${(error as Error).message}\nat ${page.url()}\n${html.slice(html.indexOf('<main'), html.indexOf('<main') + 3000)}`);
      } finally {
        await context.close();
      }
    });

    test('an e-mail that has an account: the message offers sign-in, which opens with the e-mail filled in', async () => {
      const email = uniqueEmail(javaScriptEnabled ? 'e2e-exists-js' : 'e2e-exists-nojs');
      await identities.create({ email });
      const { context, problems, watch } = await newContext(browser, { javaScriptEnabled });
      const page = await context.newPage();
      watch(page);
      try {
        await page.goto(`${stack.appUrl}/sign-up`);
        await profileStep(page, email);
        await page.fill('#field-password', STRONG_PASSWORD);
        await page.click('button[name="method"][value="password"]');
        const link = page.locator('[data-message-id="4000007"] [data-link="sign-in-existing"]');
        await link.waitFor();
        await Promise.all([page.waitForURL(/\/sign-in\?/), link.click()]);
        expect(await page.inputValue('#field-identifier')).toBe(email);
        await page.waitForFunction(() => document.activeElement?.id === 'field-password');
        expect(problems.filter((problem) => !problem.includes('400'))).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('a wrong password shows the translated error in place, and the form still works', async () => {
      const { context, problems, watch } = await newContext(browser, { javaScriptEnabled });
      const page = await context.newPage();
      watch(page);
      try {
        await page.goto(`${stack.appUrl}/sign-in?loginHint=nobody%40example.com`);
        expect(await page.inputValue('#field-identifier')).toBe('nobody@example.com');
        await page.fill('#field-password', 'Wrong-Password-42');
        await page.click('button[name="method"][value="password"]');
        await page.waitForSelector('[data-message-id="4000006"]');
        expect(await page.textContent('[data-message-id="4000006"]')).toContain('Incorrect email or password.');
        expect(await page.inputValue('#field-identifier')).toBe('nobody@example.com');
        expect(problems.filter((problem) => !problem.includes('400'))).toEqual([]);
      } finally {
        await context.close();
      }
    });
  });
}

describe('Vietnamese', () => {
  /** Visible text lines of <main>, minus what is the same in every language (addresses, brand names: the providers' and our own, BRAND_NAME). */
  async function lines(page: Page): Promise<string[]> {
    const text = await page.locator('main').innerText();
    const brand = page.locator('.brand__name');
    const product = (await brand.count()) > 0 ? (await brand.first().innerText()).trim() : undefined;
    return text
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line.length > 3 && !line.includes('@') && line !== product && !/^(Google|Microsoft|Dropbox|Apple)$/.test(line));
  }

  async function screens(locale: string, email: string): Promise<string[]> {
    const { context } = await newContext(browser, { javaScriptEnabled: false, locale });
    const page = await context.newPage();
    const seen: string[] = [];
    try {
      await page.goto(`${stack.appUrl}/sign-in`);
      seen.push(...(await lines(page)));
      await page.fill('#field-identifier', email);
      await page.fill('#field-password', 'Wrong-Password-42');
      await page.click('button[name="method"][value="password"]');
      await page.waitForSelector('[data-message-id="4000006"]');
      seen.push(...(await lines(page)));
      await page.goto(`${stack.appUrl}/sign-up`);
      seen.push(...(await lines(page)));
      await page.fill('#field-traits-email', uniqueEmail(`signup-${locale}`));
      await page.fill('#field-traits-name', 'Ada');
      await page.check('#field-terms');
      await page.click('button[name="method"][value="profile"]');
      await page.waitForSelector('#field-password');
      seen.push(...(await lines(page)));
      await page.fill('#field-password', 'short'); // our validation message, before Kratos
      await page.click('button[name="method"][value="password"]');
      await page.waitForSelector('.field__error');
      seen.push(...(await lines(page)));
      await page.goto(`${stack.appUrl}/error?id=00000000-0000-4000-8000-000000000000`);
      seen.push(...(await lines(page)));
      return seen;
    } finally {
      await context.close();
    }
  }

  test('sign-in, sign-up and error screens show no English', async () => {
    const email = uniqueEmail('vi');
    const english = new Set(await screens('en-US', email));
    const vietnamese = await screens('vi-VN', email);
    expect(english.size).toBeGreaterThan(10);
    expect(vietnamese.length).toBeGreaterThan(10);
    expect(vietnamese.filter((line) => english.has(line))).toEqual([]);
  });
});
