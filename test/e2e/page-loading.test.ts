// The page-level loading overlay's island (client/page-loading.ts) as built: the overlay shows while the form
// it follows is busy (aria-busy, set by the forms island), also when the island starts after the form went
// busy. That happens when its script, a request of its own, arrives after the forms island has started: a
// keyboard test once pressed Allow on the consent page in that window, and the overlay never showed.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAssets } from '../support/browser.ts';
import { launchBrowser } from '../support/chromium.ts';

let assets: ReturnType<typeof buildAssets>;
let browser: Browser;
let island: string;
beforeAll(async () => {
  assets = buildAssets('page-loading-e2e');
  const manifest = JSON.parse(readFileSync(path.join(assets.assetsDir, 'manifest.json'), 'utf8')) as Record<string, string>;
  island = readFileSync(path.join(assets.assetsDir, manifest['page-loading.js']!), 'utf8');
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  assets?.remove();
});

/** The consent page's shape: a form and an overlay that follows it, hidden as the server renders it. */
async function pageWithForm(busy: boolean): Promise<Page> {
  const page = await browser.newPage();
  await page.setContent(
    `<form id="consent-form" aria-busy="${busy}"><button>Allow</button></form>` +
      '<div id="consent-loading" data-island="loading-overlay" data-follows="consent-form" role="status" hidden>Loading…</div>',
  );
  return page;
}

const overlayShown = (page: Page) => page.locator('#consent-loading').isVisible();

describe('the page loading overlay', () => {
  it('shows at once when the form is already in flight as the island starts', async () => {
    const page = await pageWithForm(true);
    expect(await overlayShown(page)).toBe(false);
    await page.addScriptTag({ content: island, type: 'module' });
    await expect.poll(() => overlayShown(page)).toBe(true);
    await page.close();
  });

  it('follows the form from then on: shown while it is busy, hidden when the answer keeps the user here', async () => {
    const page = await pageWithForm(false);
    await page.addScriptTag({ content: island, type: 'module' });
    await page.evaluate(() => document.getElementById('consent-form')!.setAttribute('aria-busy', 'true'));
    await expect.poll(() => overlayShown(page)).toBe(true);
    await page.evaluate(() => document.getElementById('consent-form')!.setAttribute('aria-busy', 'false'));
    await expect.poll(() => overlayShown(page)).toBe(false);
    await page.close();
  });
});
