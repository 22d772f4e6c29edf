// The theme switcher on the product's own pages (issue #16 item 6), not only the UI kit: light, dark
// or auto from the footer of every page, kept in localStorage and painted before the first frame on
// the next page. Without JavaScript there is no storage to keep it in, so the switcher stays hidden.
import { describe, expect, it } from 'vitest';
import { useScreenStack } from './screen-stack.ts';

const screens = useScreenStack({ name: 'theme-e2e' });

describe('theme switcher', () => {
  it('is on every auth page; dark chosen on sign-in stays on the next page', async () => {
    const page = await screens.openPage(true);
    const app = screens.stack.appUrl;
    await page.goto(`${app}/sign-in`);
    const switcher = page.locator('footer #theme-switcher');
    await expect.poll(() => switcher.isVisible()).toBe(true);
    expect(await page.getAttribute('html', 'data-theme')).toBe('light');
    await page.click('label[for="theme-switcher-dark"]');
    expect(await page.getAttribute('html', 'data-theme')).toBe('dark');
    for (const path of ['/sign-up', '/forgot-password', '/sign-up/resend-verification-email']) {
      await page.goto(`${app}${path}`);
      expect(await page.getAttribute('html', 'data-theme'), path).toBe('dark');
      await expect.poll(() => page.isChecked('#theme-switcher-dark'), { message: path }).toBe(true);
    }
    await page.click('label[for="theme-switcher-auto"]');
    await page.emulateMedia({ colorScheme: 'light' });
    await expect.poll(() => page.getAttribute('html', 'data-theme')).toBe('light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(() => page.getAttribute('html', 'data-theme')).toBe('dark');
  });

  it('stays hidden without JavaScript', async () => {
    const page = await screens.openPage(false);
    await page.goto(`${screens.stack.appUrl}/sign-in`);
    expect(await page.locator('#theme-switcher').count()).toBe(1);
    expect(await page.locator('#theme-switcher').isVisible()).toBe(false);
  });
});
