// The UI kit in Debian's Chromium, with JavaScript on and off, against the real app in-process.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import pino from 'pino';
import type { Browser, BrowserContext, Page } from 'playwright';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../server/app.ts';
import { loadConfig } from '../../server/config.ts';
import { buildAssets, launchBrowser, newContext } from '../support/browser.ts';

const LANGUAGES = ['en', 'vi', 'fr', 'pt', 'es'] as const;
type Common = { ui: { kit: { title: string; nameRequired: string; saved: string }; errors: { server: string } }; authPage: Record<string, string> };
const common = (lng: string) => JSON.parse(readFileSync(path.resolve('locales', lng, 'common.json'), 'utf8')) as Common;
const en = common('en');

let built: ReturnType<typeof buildAssets> | undefined;
let server: http.Server;
let baseUrl = '';
let browser: Browser;

beforeAll(async () => {
  // Built into a temporary directory: never races another process reading dist/.
  built = buildAssets('kit-e2e');
  const config = loadConfig({
    NODE_ENV: 'test',
    ENABLE_TEST_ROUTES: 'true',
    ASSETS_DIR: built!.assetsDir,
    LOG_LEVEL: 'silent',
  });
  server = http.createServer(await createApp(config, pino({ level: 'silent' })));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  built?.remove();
});

// Reports CSP violations as console errors, which the shared watcher collects.
const REPORT_CSP = `addEventListener('securitypolicyviolation', (e) => console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI));`;

let open: { context: BrowserContext; problems: string[] } | null = null;
/** Console lines a scenario causes on purpose (the browser logs every 4xx/5xx or aborted load). */
let expected: RegExp[] = [];
const RESOURCE_STATUS = (status: number) => new RegExp(`^console: Failed to load resource: the server responded with a status of ${status} `);

async function pageWith(javaScriptEnabled: boolean): Promise<{ page: Page; problems: string[] }> {
  const { context, problems, watch } = await newContext(browser, { javaScriptEnabled });
  await context.addInitScript(REPORT_CSP);
  open = { context, problems };
  const page = await context.newPage();
  watch(page);
  return { page, problems };
}

afterEach(async () => {
  const current = open;
  const allowed = expected;
  open = null;
  expected = [];
  await current?.context.close();
  // No console errors and no CSP violations in any scenario.
  expect((current?.problems ?? []).filter((line) => !allowed.some((pattern) => pattern.test(line)))).toEqual([]);
});

/** Markup rules the CSP relies on, checked on the served HTML (JS off or on alike). */
async function expectCspFriendlyMarkup(page: Page): Promise<void> {
  const report = await page.evaluate(() => ({
    styled: document.querySelectorAll('[style]').length,
    unnonced: Array.from(document.querySelectorAll('script')).filter((s) => !s.nonce && s.type !== 'application/json').length,
  }));
  expect(report).toEqual({ styled: 0, unnonced: 0 });
}

for (const javaScriptEnabled of [true, false]) {
  describe(`kit with JavaScript ${javaScriptEnabled ? 'on' : 'off'}`, () => {
    it('renders in all five languages', async () => {
      const { page } = await pageWith(javaScriptEnabled);
      for (const lng of LANGUAGES) {
        const response = await page.goto(`${baseUrl}/__test/kit?lng=${lng}`);
        expect(response?.status()).toBe(200);
        expect(await page.getAttribute('html', 'lang')).toBe(lng);
        await expect.poll(() => page.textContent('h1')).toBe(common(lng).ui.kit.title);
        expect(await page.getAttribute('[data-password-toggle]', 'aria-label')).toBe(common(lng).authPage.showPassword);
      }
      if (!javaScriptEnabled) await expectCspFriendlyMarkup(page);
    });

    it('offers a usable password field', async () => {
      const { page } = await pageWith(javaScriptEnabled);
      await page.goto(`${baseUrl}/__test/kit`);
      const input = page.locator('#kit-password');
      const toggle = page.locator('#kit-fields [data-password-toggle]');
      await input.fill('correct horse');
      expect(await input.getAttribute('type')).toBe('password');
      if (!javaScriptEnabled) {
        await expect.poll(() => toggle.isVisible()).toBe(false);
        expect(await input.inputValue()).toBe('correct horse');
        return;
      }
      await expect.poll(() => toggle.isVisible()).toBe(true);
      await toggle.click();
      expect(await input.getAttribute('type')).toBe('text');
      expect(await toggle.getAttribute('aria-pressed')).toBe('true');
      expect(await toggle.getAttribute('aria-label')).toBe(en.authPage.hidePassword);
      await toggle.click();
      expect(await input.getAttribute('type')).toBe('password');
      expect(await toggle.getAttribute('aria-label')).toBe(en.authPage.showPassword);
      expect(await input.inputValue()).toBe('correct horse');
    });

    it('shows the server-rendered toast (and hides it after 5 s with JavaScript)', async () => {
      const { page } = await pageWith(javaScriptEnabled);
      await page.goto(`${baseUrl}/__test/kit`);
      const toast = page.locator('#toast-kit-welcome');
      await expect.poll(() => toast.isVisible()).toBe(true);
      if (!javaScriptEnabled) {
        // A plain banner: no island took it over (no live region, still in the phase the server rendered), so nothing can hide it.
        expect(await page.locator('.toasts').getAttribute('class')).not.toContain('toasts--live');
        expect(await toast.getAttribute('data-phase')).toBe('queued');
        return;
      }
      expect(await page.locator('.toasts').getAttribute('class')).toContain('toasts--live');
      await expect.poll(() => toast.getAttribute('data-phase')).toBe('entered');
      const shownAt = Date.now();
      await expect.poll(() => toast.getAttribute('data-phase'), { timeout: 8000 }).toBe('closing');
      await toast.waitFor({ state: 'detached', timeout: 8000 });
      expect(Date.now() - shownAt).toBeGreaterThan(4000);
    });

    // Only with JavaScript: without it there is no toast API to call.
    if (javaScriptEnabled)
      it('keeps at most three toasts, and the helper refuses to show nothing', async () => {
        const { page } = await pageWith(true);
        // The page's timers on Playwright's clock: it flows as usual until the test moves it on by hand.
        await page.clock.install();
        await page.goto(`${baseUrl}/__test/kit`);
        const src = await page.getAttribute('script[type="module"][src]', 'src');
        // A string, not a function: the test runner would rewrite a function's import() for Node.
        const outcome = await page.evaluate(`(async () => {
        const islands = await import(${JSON.stringify(src)});
        let error = '';
        try { islands.toast(); } catch (caught) { error = caught.name; }
        const made = ['one', 'two', 'three', 'four'].map((message) => islands.toast(message, { variant: 'info' }));
        return { error, ids: made.length };
      })()`);
        expect(outcome).toEqual({ error: 'TypeError', ids: 4 });
        // The welcome toast and 'one' are dismissed; 'two', 'three', 'four' stay.
        await expect.poll(() => page.locator('.toast:not([data-phase="closing"])').allTextContents()).toEqual(['two', 'three', 'four']);
        const box = await page.locator('.toasts').boundingBox();
        const viewport = page.viewportSize()!;
        expect(Math.round(box!.width)).toBe(320);
        expect(box!.x + box!.width).toBeGreaterThan(viewport.width - 40);
        expect(box!.y).toBeLessThan(40);

        // While pointed at, toasts stay; once the pointer leaves, they go. Point only once the dismissed
        // toasts have left the DOM: their removal moves the stack up, from under a pointer placed earlier.
        await expect.poll(() => page.locator('.toast').count()).toBe(3);
        const last = page.locator('.toast', { hasText: 'four' });
        await last.hover();
        // Well past the 5 s auto-hide delay of every toast on the page, every timer due on the way fired:
        // the pointed-at stack stays.
        const before = await page.evaluate(() => Date.now());
        await page.clock.runFor(5500);
        expect(await page.evaluate(() => Date.now())).toBeGreaterThanOrEqual(before + 5500);
        expect(await last.getAttribute('data-phase')).toBe('entered');
        expect(await page.locator('.toast').allTextContents()).toEqual(['two', 'three', 'four']);
        // Once the pointer leaves, the next check (at most a second later) dismisses them.
        await page.mouse.move(0, viewport.height - 1);
        await page.clock.runFor(1500);
        await last.waitFor({ state: 'detached', timeout: 4000 });
        expect(await page.locator('.toast').count()).toBe(0);
      });

    it('submits the demo form (enhanced with JavaScript, plain without)', async () => {
      const { page } = await pageWith(javaScriptEnabled);
      expected = [RESOURCE_STATUS(400), RESOURCE_STATUS(503)];
      await page.goto(`${baseUrl}/__test/kit`);
      await page.evaluate(() => ((window as unknown as { marker: string }).marker = 'same page'));
      await page.click('#kit-form button[value="save"]');
      await page.locator('#kit-name-error').waitFor();
      expect(await page.textContent('#kit-name-error')).toBe(en.ui.kit.nameRequired);
      expect(await page.getAttribute('#kit-name', 'aria-invalid')).toBe('true');
      expect(await page.getAttribute('#kit-name', 'aria-describedby')).toContain('kit-name-error');
      if (javaScriptEnabled) {
        // Swapped in place: no reload, focus on the field in error, the error announced.
        expect(await page.evaluate(() => (window as unknown as { marker?: string }).marker)).toBe('same page');
        expect(await page.evaluate(() => document.activeElement?.id)).toBe('kit-name');
        await expect.poll(() => page.textContent('#live-region')).toContain(en.ui.kit.nameRequired);
        // A failing server: an error toast, and what the user typed is still there.
        await page.fill('#kit-name', 'Typed value');
        await page.click('#kit-fail');
        await page.locator('.toast--error', { hasText: en.ui.errors.server }).waitFor();
        expect(await page.inputValue('#kit-name')).toBe('Typed value');
        expect(await page.isDisabled('#kit-form button[value="save"]')).toBe(false);
      }
      await page.fill('#kit-name', 'Ada');
      await page.click('#kit-form button[value="save"]');
      await page.waitForURL(/saved=Ada/);
      await page.locator('#toast-kit-saved', { hasText: en.ui.kit.saved.replace('{{name}}', 'Ada') }).waitFor();
    });

    it('keeps the theme across reloads without a flash', async () => {
      const { page } = await pageWith(javaScriptEnabled);
      await page.goto(`${baseUrl}/__test/kit`);
      expect(await page.getAttribute('html', 'data-theme')).toBe('light');
      const switcher = page.locator('#theme-switcher');
      if (!javaScriptEnabled) {
        expect(await switcher.isVisible()).toBe(false);
        return;
      }
      await expect.poll(() => switcher.isVisible()).toBe(true);
      await page.click('label[for="theme-switcher-dark"]');
      expect(await page.getAttribute('html', 'data-theme')).toBe('dark');
      expect(await page.evaluate(() => localStorage.getItem('theme'))).toBe('dark');
      await page.reload();
      expect(await page.getAttribute('html', 'data-theme')).toBe('dark');
      expect(await page.isChecked('#theme-switcher-dark')).toBe(true);

      // The first paint: with the islands' bundle blocked, the shell alone already paints dark.
      expected = [/^console: Failed to load resource: net::ERR_FAILED$/];
      await page.route('**/assets/main-*.js', (route) => route.abort());
      await page.reload();
      expect(await page.getAttribute('html', 'data-theme')).toBe('dark');
      const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      expect(background).toBe('rgb(17, 20, 24)');
      await page.unroute('**/assets/main-*.js');

      // Auto follows the system.
      await page.evaluate(() => localStorage.setItem('theme', 'auto'));
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.reload();
      expect(await page.getAttribute('html', 'data-theme')).toBe('dark');
      await page.emulateMedia({ colorScheme: 'light' });
      await expect.poll(() => page.getAttribute('html', 'data-theme')).toBe('light');
    });

    it('switches language through /language', async () => {
      const { page } = await pageWith(javaScriptEnabled);
      await page.goto(`${baseUrl}/__test/kit`);
      await page.selectOption('#language-switcher-select', 'vi');
      if (!javaScriptEnabled) await page.click('.lang-switcher__apply');
      await page.waitForURL(`${baseUrl}/__test/kit`);
      await expect.poll(() => page.getAttribute('html', 'lang')).toBe('vi');
      await page.goto(`${baseUrl}/__test/kit`);
      expect(await page.getAttribute('html', 'lang')).toBe('vi');
    });

    it('opens and closes dialogs and tooltips', async () => {
      const { page } = await pageWith(javaScriptEnabled);
      await page.goto(`${baseUrl}/__test/kit`);
      const dialog = page.locator('#kit-confirm');
      expect(await dialog.isVisible()).toBe(false);
      if (!javaScriptEnabled) return;
      await page.click('#kit-open-confirm');
      await expect.poll(() => dialog.isVisible()).toBe(true);
      // Focus moves into the modal and Tab cycles inside it.
      for (let i = 0; i < 6; i += 1) {
        expect(await page.evaluate(() => document.getElementById('kit-confirm')!.contains(document.activeElement))).toBe(true);
        await page.keyboard.press(i % 2 ? 'Shift+Tab' : 'Tab');
        await page.keyboard.press('Tab');
      }
      await page.keyboard.press('Escape');
      await expect.poll(() => dialog.isVisible()).toBe(false);

      // While the confirmation is in flight both buttons are disabled, confirm spins, closing is ignored (spec §4).
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      await page.route('**/__test/kit/confirm', async (route) => {
        await held;
        await route.continue();
      });
      await page.click('#kit-open-confirm');
      await expect.poll(() => dialog.isVisible()).toBe(true);
      const confirm = page.locator('#kit-confirm-form button[type="submit"]');
      expect(await confirm.getAttribute('class')).toContain('btn--DANGER');
      await confirm.click();
      const cancel = page.locator('#kit-confirm-form a[data-dialog-close]');
      await expect.poll(() => cancel.getAttribute('aria-disabled')).toBe('true');
      expect(await confirm.isDisabled()).toBe(true);
      expect(await confirm.getAttribute('class')).toContain('btn--loading');
      await page.keyboard.press('Escape');
      await cancel.click({ force: true });
      expect(await dialog.isVisible()).toBe(true);
      release();
      await page.waitForURL(`${baseUrl}/__test/kit`);
      await page.unroute('**/__test/kit/confirm');

      const bubble = page.locator('#kit-tooltip-tip');
      await page.hover('#kit-tooltip .tooltip__trigger');
      await expect.poll(() => bubble.isVisible()).toBe(true);
      await page.keyboard.press('Escape');
      await expect.poll(() => bubble.isVisible()).toBe(false);
      await page.focus('#kit-tooltip .tooltip__trigger');
      await expect.poll(() => bubble.isVisible()).toBe(true);
      await page.locator('#kit-tooltip .tooltip__trigger').blur();
      await expect.poll(() => bubble.isVisible()).toBe(false);
    });

    it('clears a field and runs the loading overlay to 100 %', async () => {
      const { page } = await pageWith(javaScriptEnabled);
      await page.goto(`${baseUrl}/__test/kit`);
      const clear = page.locator('#kit-fields [data-clear]').first();
      const overlay = page.locator('#kit-overlay');
      if (!javaScriptEnabled) {
        await page.fill('#kit-name', 'Ada');
        expect(await page.locator('#kit-fields [data-clear]').count()).toBe(0);
        expect(await overlay.isVisible()).toBe(false);
        return;
      }
      expect(await clear.isVisible()).toBe(false);
      await page.fill('#kit-name', 'Ada');
      await expect.poll(() => clear.isVisible()).toBe(true);
      await clear.click();
      expect(await page.inputValue('#kit-name')).toBe('');
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('kit-name');
      await expect.poll(() => clear.isVisible()).toBe(false);
      // The read-only field never gets one.
      expect(await page.locator('#kit-email ~ [data-clear]').count()).toBe(0);

      await page.click('[data-overlay-open="kit-overlay"]');
      await expect.poll(() => overlay.isVisible()).toBe(true);
      const progress = overlay.locator('[role="progressbar"]');
      await expect.poll(async () => Number(await progress.getAttribute('aria-valuenow'))).toBeGreaterThanOrEqual(60);
      await expect.poll(async () => Number(await progress.getAttribute('aria-valuenow')), { timeout: 5000 }).toBe(100);
      await expect.poll(() => overlay.isVisible(), { timeout: 5000 }).toBe(false);
    });
  });
}
