// The head's first-paint script (decision 210): the theme switcher and the password toggle work before
// the island bundle arrives. Here the bundle's request is answered with an empty module, so whatever works
// below works from the script in the page alone. And the first paint waits for the whole page (decision 246).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright';
import { describe, expect, it } from 'vitest';
import { useScreenStack } from './screen-stack.ts';

const screens = useScreenStack({ name: 'first-paint-e2e' });

async function withoutBundle(): Promise<Page> {
  const page = await screens.openPage(true);
  await page.route('**/assets/main-*.js', (route) => route.fulfill({ status: 200, contentType: 'text/javascript', body: '' }));
  return page;
}

/**
 * Has the page's own document say, from a script at the end of its body (so while it is still parsed,
 * before DOMContentLoaded), how the toggles and the switcher are displayed then. The script carries the
 * page's CSP nonce; the body is re-sent unencoded.
 */
async function displayWhileParsed(page: Page, path: string): Promise<string[]> {
  await page.route(`${screens.stack.appUrl}${path}**`, async (route) => {
    const response = await route.fetch();
    const html = await response.text();
    const nonce = /<script[^>]* nonce="([^"]+)"/.exec(html)?.[1] ?? '';
    const probe = `<script nonce="${nonce}">window.__displayWhileParsed = document.readyState + ':' + [...document.querySelectorAll('[data-password-toggle], #theme-switcher')].map((element) => getComputedStyle(element).display).join(',');</script>`;
    const { 'content-encoding': _encoding, 'content-length': _length, ...headers } = response.headers();
    await route.fulfill({ response, headers, body: html.replace('</body>', `${probe}</body>`) });
  });
  await page.goto(`${screens.stack.appUrl}${path}`);
  const seen = await page.evaluate(() => (window as unknown as { __displayWhileParsed?: string }).__displayWhileParsed ?? '');
  const [readyState, displays = ''] = seen.split(':');
  expect(readyState).toBe('loading');
  return displays.split(',');
}

describe('before the island bundle', () => {
  it('the toggle and the switcher are shown while the page is parsed, not once it has ended (decision 244)', async () => {
    const page = await withoutBundle();
    const displays = await displayWhileParsed(page, '/sign-in');
    expect(displays).toHaveLength(2);
    expect(displays).not.toContain('none');
  });

  it('without JavaScript the toggle and the switcher are not shown', async () => {
    const page = await screens.openPage(false);
    await page.goto(`${screens.stack.appUrl}/sign-in`);
    expect(await page.locator('[data-password-toggle]').count()).toBe(1);
    expect(await page.locator('[data-password-toggle]').isVisible()).toBe(false);
    expect(await page.locator('#theme-switcher').isVisible()).toBe(false);
    expect(await page.locator('#field-password').isVisible()).toBe(true);
  });

  it('the password toggle shows and hides the password, and a shown one is hidden again when its form is sent', async () => {
    const page = await withoutBundle();
    await page.goto(`${screens.stack.appUrl}/sign-in`);
    const toggle = page.locator('[data-password-toggle]');
    await expect.poll(() => toggle.isVisible()).toBe(true);
    const showLabel = await toggle.getAttribute('data-label-show');
    const hideLabel = await toggle.getAttribute('data-label-hide');
    expect(await toggle.getAttribute('aria-label')).toBe(showLabel);

    await page.fill('#field-password', 'not-a-real-password');
    await toggle.click();
    expect(await page.getAttribute('#field-password', 'type')).toBe('text');
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    expect(await toggle.getAttribute('aria-label')).toBe(hideLabel);
    await toggle.click();
    expect(await page.getAttribute('#field-password', 'type')).toBe('password');
    expect(await toggle.getAttribute('aria-label')).toBe(showLabel);

    // What the form's own submit listener sees, after the script's capturing one: the field hidden again.
    await toggle.click();
    await page.evaluate(() => {
      const form = document.getElementById('sign-in-form') as HTMLFormElement;
      form.addEventListener('submit', (event) => {
        event.preventDefault();
        form.dataset.sentAs = (document.getElementById('field-password') as HTMLInputElement).type;
      });
    });
    await page.fill('#field-identifier', 'someone@example.com');
    await page.click('#sign-in-form button[type="submit"]');
    await expect.poll(() => page.getAttribute('#sign-in-form', 'data-sent-as')).toBe('password');
    expect(await toggle.getAttribute('aria-pressed')).toBe('false');
  });

  it('the theme switcher paints and keeps the choice', async () => {
    const page = await withoutBundle();
    await page.goto(`${screens.stack.appUrl}/sign-up`);
    const switcher = page.locator('footer #theme-switcher');
    await expect.poll(() => switcher.isVisible()).toBe(true);
    expect(await page.getAttribute('html', 'data-theme')).toBe('light');
    await page.click('label[for="theme-switcher-dark"]');
    expect(await page.getAttribute('html', 'data-theme')).toBe('dark');
    expect(await page.evaluate(() => localStorage.getItem('theme'))).toBe('dark');
    await page.goto(`${screens.stack.appUrl}/forgot-password`);
    expect(await page.getAttribute('html', 'data-theme')).toBe('dark');
    await expect.poll(() => page.isChecked('#theme-switcher-dark')).toBe(true);
  });
});

describe('the first paint (decision 246)', () => {
  it('waits until the footer has arrived and been parsed, even when the rest of the page came long before', async () => {
    // The app's own sign-in page, sent by a server of this test in two writes: everything before the footer,
    // then, once the browser has parsed the form, a nonced script noting the time and the footer.
    const html = await (await fetch(`${screens.stack.appUrl}/sign-in`, { headers: { accept: 'text/html' } })).text();
    const nonce = /<script[^>]* nonce="([^"]+)"/.exec(html)?.[1] ?? '';
    const footerAt = html.lastIndexOf('<footer');
    expect(footerAt).toBeGreaterThan(html.indexOf('</main>'));
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.write(html.slice(0, footerAt));
      void released.then(() => response.end(`<script nonce="${nonce}">window.__footerAt = performance.now();</script>${html.slice(footerAt)}`));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const page = await screens.openPage(true);
      // Only the page itself matters here: its islands are left out.
      await page.route('**/assets/**', (route) => route.fulfill({ status: 200, contentType: 'text/javascript', body: '' }));
      const { port } = server.address() as AddressInfo;
      const loaded = page.goto(`http://127.0.0.1:${port}/sign-in`);
      // Timer polling: animation frames do not run while rendering is held.
      await page.waitForFunction(() => document.querySelector('main form button[type="submit"]') !== null, undefined, { polling: 50 });
      release();
      await loaded;
      await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0, undefined, { polling: 50 });
      const seen = await page.evaluate(() => ({
        footerAt: (window as unknown as { __footerAt?: number }).__footerAt ?? Number.NaN,
        firstPaint: performance.getEntriesByName('first-contentful-paint')[0]!.startTime,
      }));
      expect(seen.firstPaint).toBeGreaterThanOrEqual(seen.footerAt);
    } finally {
      server.close();
    }
  });
});
