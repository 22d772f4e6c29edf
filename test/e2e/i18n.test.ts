// The whole guest journey once in Vietnamese, in Debian's Chromium: sign up → verify with the emailed
// code → sign out → sign in → forgot password → code → new password → sign in with it. On every screen
// the visible text is compared with the English catalogue: no English string of ours may be left.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureRateLimits } from '../../server/security/rate-limit.ts';
import { launchBrowser, newContext } from '../support/browser.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { latestCode } from '../support/fixtures.ts';

type Catalogue = Record<string, unknown>;
const load = (lng: string, ns: string) => JSON.parse(readFileSync(path.resolve('locales', lng, `${ns}.json`), 'utf8')) as Catalogue;

function flatten(value: unknown, prefix = '', out = new Map<string, string>()): Map<string, string> {
  if (typeof value === 'string') out.set(prefix, value);
  else if (value && typeof value === 'object') for (const [key, inner] of Object.entries(value)) flatten(inner, prefix ? `${prefix}.${key}` : key, out);
  return out;
}

const vi = flatten(load('vi', 'common'));
const t = (key: string) => {
  const value = vi.get(key);
  if (!value) throw new Error(`missing vi key ${key}`);
  return value;
};

/**
 * English fragments that must not appear on a Vietnamese screen: every English string of both
 * namespaces that differs from its Vietnamese translation, split at its placeholders, keeping the
 * pieces long enough to mean something (language names are shown in their own language on purpose).
 */
function englishFragments(): { key: string; fragment: RegExp }[] {
  const out: { key: string; fragment: RegExp }[] = [];
  for (const ns of ['common', 'terms']) {
    const en = flatten(load('en', ns));
    const other = flatten(load('vi', ns));
    for (const [key, text] of en) {
      if (key.startsWith('language.') || other.get(key) === text) continue;
      for (const piece of text.split(/\{\{[^}]+\}\}|\$t\([^)]*\)/)) {
        const trimmed = piece.trim().replace(/[.,:;!?…]+$/, '');
        if (trimmed.length < 6 || !/[a-z]{3}/i.test(trimmed)) continue;
        const escaped = trimmed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        out.push({ key: `${ns}:${key}`, fragment: new RegExp(`(^|[^\\p{L}])${escaped}($|[^\\p{L}])`, 'u') });
      }
    }
  }
  return out;
}

const ENGLISH = englishFragments();

let outdir = '';
let stack: Stack;
let browser: Browser;

beforeAll(async () => {
  outdir = mkdtempSync(path.join(os.tmpdir(), 'auth-vi-e2e-'));
  const build = spawnSync(process.execPath, ['scripts/build.mjs', '--outdir', outdir], { encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`build failed: ${build.stderr}`);
  configureRateLimits({ recovery: { perIp: 1000, perEmail: 1000 }, 'sign-in': { perIp: 1000, perEmail: 1000 }, 'sign-up': { perIp: 1000, perEmail: 1000 } });
  stack = await startStack({ env: { ASSETS_DIR: path.join(outdir, 'public') } });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
  if (outdir) rmSync(outdir, { recursive: true, force: true });
});


const screens: string[] = [];

/** Asserts the screen is Vietnamese: <html lang="vi"> and none of the English fragments visible. */
async function assertVietnamese(page: Page, screen: string): Promise<void> {
  expect(await page.locator('html').getAttribute('lang'), screen).toBe('vi');
  const text = await page.locator('body').innerText();
  const leftovers = ENGLISH.filter(({ fragment }) => fragment.test(text)).map(({ key, fragment }) => `${key} ${fragment.source}`);
  expect(leftovers, `English on ${screen}:\n${text}`).toEqual([]);
  screens.push(screen);
}

async function click(page: Page, name: string, to?: RegExp | string): Promise<void> {
  const button = page.getByRole('button', { name, exact: true });
  if (to) await Promise.all([page.waitForURL(to), button.click()]);
  else await button.click();
}

describe('the guest journey in Vietnamese', () => {
  it('has English fragments to look for, and they do catch an English screen', async () => {
    expect(ENGLISH.length).toBeGreaterThan(100);
    const { context } = await newContext(browser, { javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${stack.appUrl}/forgot-password?lng=en`);
    const text = await page.locator('body').innerText();
    const caught = ENGLISH.filter(({ fragment }) => fragment.test(text)).map(({ key }) => key);
    expect(caught).toEqual(expect.arrayContaining(['common:recovery.subtitle', 'common:recovery.backToSignIn']));
    await context.close();
  });

  it('sign up → verify → sign out → sign in → forgot password → new password, with no English left', async () => {
    const email = 'nguyen.van.an@example.com';
    const firstPassword = 'Mat-Khau-Dau-Tien-2026';
    const newPassword = 'Mat-Khau-Moi-Hon-2027';
    const { context, problems, watch } = await newContext(browser, { javaScriptEnabled: true, locale: 'vi-VN' });
    await context.addCookies([{ name: 'lng', value: 'vi', url: stack.appUrl }]);
    const page = await context.newPage();
    watch(page);

    // Sign up (two steps: profile, then password).
    await page.goto(`${stack.appUrl}/sign-up`);
    await page.locator('#field-traits-email').waitFor();
    await assertVietnamese(page, 'sign-up');
    await page.locator('#field-traits-email').fill(email);
    await page.locator('#field-traits-name').fill('Nguyễn Văn An');
    await page.locator('#field-terms').check();
    await click(page, t('authPage.continue'));
    await page.locator('#field-password').waitFor();
    await assertVietnamese(page, 'sign-up, password step');
    await page.locator('#field-password').fill(firstPassword);
    await click(page, t('authPage.signUp'), /\/sign-up\/verification\?flow=/);

    // Verify with the emailed code.
    await page.locator('#field-code').waitFor();
    await assertVietnamese(page, 'verification, code');
    await page.locator('#field-code').fill(await latestCode(stack.identity.adminUrl, email, 'verification'));
    await click(page, t('verification.submitCode'));
    await page.getByText(t('verification.success')).waitFor();
    await assertVietnamese(page, 'verification, success');
    await Promise.all([page.waitForURL(/\/sign-in/), page.locator('a[data-link="continue"]').click()]);

    // Sign in.
    await assertVietnamese(page, 'sign-in');
    await page.locator('#field-identifier').fill(email);
    await page.locator('#field-password').fill(firstPassword);
    await Promise.all([page.waitForURL(`${stack.appUrl}/`), page.locator('form#sign-in-form button[value="password"]').click()]);
    await assertVietnamese(page, 'home');

    // Sign out (the form island posts the logout form at once).
    await page.goto(`${stack.appUrl}/logout`);
    await page.waitForURL(/\/sign-in/);
    await assertVietnamese(page, 'sign-in after logout');

    // Forgot password → code → new password.
    await Promise.all([page.waitForURL(/\/forgot-password\?flow=/), page.locator('a[data-link="forgot-password"]').click()]);
    await assertVietnamese(page, 'forgot password');
    await page.locator('#field-email').fill(email);
    await click(page, t('recovery.sendCode'), /\/forgot-password\?flow=/);
    await page.locator('#field-code').waitFor();
    await assertVietnamese(page, 'forgot password, code');
    await page.locator('#field-code').fill(await latestCode(stack.identity.adminUrl, email, 'recovery'));
    await click(page, t('recovery.submitCode'), /\/forgot-password\/reset\?flow=/);
    await page.locator('#field-password').waitFor();
    await assertVietnamese(page, 'reset password');
    await page.locator('#field-password').fill(newPassword);
    await click(page, t('recovery.savePassword'));
    await page.getByText(t('recovery.done')).waitFor();
    await assertVietnamese(page, 'password changed');
    await Promise.all([page.waitForURL(`${stack.appUrl}/`), page.locator('a[data-link="continue"]').click()]);

    // And the new password works after signing out again.
    await page.goto(`${stack.appUrl}/logout`);
    await page.waitForURL(/\/sign-in/);
    await page.locator('#field-identifier').fill(email);
    await page.locator('#field-password').fill(newPassword);
    await Promise.all([page.waitForURL(`${stack.appUrl}/`), page.locator('form#sign-in-form button[value="password"]').click()]);
    await assertVietnamese(page, 'home, with the new password');

    expect(screens).toHaveLength(12);
    expect(problems.filter((line) => !/status of 4\d\d/.test(line))).toEqual([]);
    await context.close();
  });
});
