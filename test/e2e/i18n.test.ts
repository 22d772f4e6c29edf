// Languages in Debian's Chromium. The language switcher (JavaScript on and off) changes the page's
// language and the choice stays. The whole guest journey once in Vietnamese: sign up → verify with the
// emailed code → sign out → sign in → forgot password → code → new password → sign in with it. On every
// screen the visible text is compared with the English catalogue: no English string of ours may be left.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright';
import { describe, expect, it } from 'vitest';
import { catalogueText, newContext } from '../support/browser.ts';
import { latestCode } from '../support/fixtures.ts';
import { h1, useScreenStack } from './screen-stack.ts';

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

const languages = useScreenStack({
  name: 'i18n-e2e',
  // Many sign-ins, sign-ups and recoveries from one address: not what the limiter is being tested for here.
  rateLimits: { recovery: { perIp: 1000, perEmail: 1000 }, 'sign-in': { perIp: 1000, perEmail: 1000 }, 'sign-up': { perIp: 1000, perEmail: 1000 } },
});

for (const javaScriptEnabled of [true, false]) {
  describe(`language switcher with JavaScript ${javaScriptEnabled ? 'on' : 'off'}`, () => {
    it('changes the language of the page, and the choice stays after a reload and on other pages', async () => {
      const page = await languages.openPage(javaScriptEnabled);
      const { appUrl } = languages.stack;
      // Every page ends with the switcher; here, the sign-in screen.
      await page.goto(`${appUrl}/sign-in`);
      const flow = new URL((await page.locator('#sign-in-form').getAttribute('action'))!, appUrl).searchParams.get('flow');
      expect(flow).toBeTruthy();
      // With JavaScript the address bar names the form's flow; without, it stays as typed (decision 190).
      expect(new URL(page.url()).searchParams.get('flow')).toBe(javaScriptEnabled ? flow : null);
      const signInUrl = `${appUrl}/sign-in?flow=${flow}`;
      expect(await page.getAttribute('html', 'lang')).toBe('en');
      const apply = page.locator('.site-footer .lang-switcher__apply');
      expect(await apply.isVisible()).toBe(!javaScriptEnabled);

      await page.selectOption('#site-language-select', 'fr');
      if (!javaScriptEnabled) await apply.click();
      // Back on the same flow, in French.
      await page.waitForURL(signInUrl);
      await expect.poll(() => page.getAttribute('html', 'lang')).toBe('fr');
      expect(await h1(page)).toBe(catalogueText('fr', 'authPage.signInTitle'));
      expect(await page.locator('label[for="site-language-select"]').innerText()).toBe(catalogueText('fr', 'ui.language.label'));
      const cookie = (await languages.context().cookies()).find((entry) => entry.name === 'lng');
      expect(cookie?.value).toBe('fr');
      expect(cookie?.httpOnly).toBe(true);

      await page.reload();
      expect(await page.getAttribute('html', 'lang')).toBe('fr');
      expect(await page.locator('#site-language-select').inputValue()).toBe('fr');
      await page.goto(`${appUrl}/forgot-password`);
      expect(await page.getAttribute('html', 'lang')).toBe('fr');

      // And back to English from another language.
      await page.selectOption('#site-language-select', 'en');
      if (!javaScriptEnabled) await page.locator('.site-footer .lang-switcher__apply').click();
      await expect.poll(() => page.getAttribute('html', 'lang')).toBe('en');
      await page.goto(`${appUrl}/sign-in`);
      expect(await h1(page)).toBe(catalogueText('en', 'authPage.signInTitle'));
    });
  });
}

describe('language switcher by keyboard, JavaScript on', () => {
  it('arrows step through the languages without leaving the page; Enter applies the one reached', async () => {
    const page = await languages.openPage(true);
    await page.goto(`${languages.stack.appUrl}/sign-in`);
    const select = page.locator('#site-language-select');
    await select.focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    // Two steps down (en → vi → fr), still on the English page, the focus still on the switcher.
    expect(await select.inputValue()).toBe('fr');
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    expect(await select.evaluate((element) => element === document.activeElement)).toBe(true);
    expect(await page.locator('.site-footer .lang-switcher__apply').isVisible()).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getAttribute('html', 'lang')).toBe('fr');
    // A pick with the pointer still applies at once.
    await page.selectOption('#site-language-select', 'en');
    await expect.poll(() => page.getAttribute('html', 'lang')).toBe('en');
  });
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
    const { context } = await newContext(languages.browser, { javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${languages.stack.appUrl}/forgot-password?lng=en`);
    const text = await page.locator('body').innerText();
    const caught = ENGLISH.filter(({ fragment }) => fragment.test(text)).map(({ key }) => key);
    expect(caught).toEqual(expect.arrayContaining(['common:recovery.subtitle', 'common:recovery.backToSignIn']));
    await context.close();
  });

  it('sign up → verify → sign out → sign in → forgot password → new password, with no English left', async () => {
    const email = 'nguyen.van.an@example.com';
    const firstPassword = 'Mat-Khau-Dau-Tien-2026';
    const newPassword = 'Mat-Khau-Moi-Hon-2027';
    const { context, problems, watch } = await newContext(languages.browser, { javaScriptEnabled: true, locale: 'vi-VN' });
    await context.addCookies([{ name: 'lng', value: 'vi', url: languages.stack.appUrl }]);
    const page = await context.newPage();
    watch(page);

    // Sign up (two steps: profile, then password).
    await page.goto(`${languages.stack.appUrl}/sign-up`);
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
    await page.locator('#field-code').fill(await latestCode(languages.stack.identity.adminUrl, email, 'verification'));
    await click(page, t('verification.submitCode'));
    await page.getByText(t('verification.success')).waitFor();
    await assertVietnamese(page, 'verification, success');
    await Promise.all([page.waitForURL(/\/sign-in/), page.locator('a[data-link="continue"]').click()]);

    // Sign in.
    await assertVietnamese(page, 'sign-in');
    await page.locator('#field-identifier').fill(email);
    await page.locator('#field-password').fill(firstPassword);
    await Promise.all([page.waitForURL(`${languages.stack.appUrl}/`), page.locator('form#sign-in-form button[value="password"]').click()]);
    await assertVietnamese(page, 'home');

    // Sign out (the form island posts the logout form at once).
    await page.goto(`${languages.stack.appUrl}/logout`);
    await page.waitForURL(/\/sign-in/);
    await assertVietnamese(page, 'sign-in after logout');

    // Forgot password → code → new password.
    await Promise.all([page.waitForURL(/\/forgot-password\?flow=/), page.locator('a[data-link="forgot-password"]').click()]);
    await assertVietnamese(page, 'forgot password');
    await page.locator('#field-email').fill(email);
    await click(page, t('recovery.sendCode'), /\/forgot-password\?flow=/);
    await page.locator('#field-code').waitFor();
    await assertVietnamese(page, 'forgot password, code');
    await page.locator('#field-code').fill(await latestCode(languages.stack.identity.adminUrl, email, 'recovery'));
    await click(page, t('recovery.submitCode'), /\/forgot-password\/reset\?flow=/);
    await page.locator('#field-password').waitFor();
    await assertVietnamese(page, 'reset password');
    await page.locator('#field-password').fill(newPassword);
    await click(page, t('recovery.savePassword'));
    await page.getByText(t('recovery.done')).waitFor();
    await assertVietnamese(page, 'password changed');
    await Promise.all([page.waitForURL(`${languages.stack.appUrl}/`), page.locator('a[data-link="continue"]').click()]);

    // And the new password works after signing out again.
    await page.goto(`${languages.stack.appUrl}/logout`);
    await page.waitForURL(/\/sign-in/);
    await page.locator('#field-identifier').fill(email);
    await page.locator('#field-password').fill(newPassword);
    await Promise.all([page.waitForURL(`${languages.stack.appUrl}/`), page.locator('form#sign-in-form button[value="password"]').click()]);
    await assertVietnamese(page, 'home, with the new password');

    expect(screens).toHaveLength(12);
    expect(problems.filter((line) => !/status of 4\d\d/.test(line))).toEqual([]);
    await context.close();
  });
});
