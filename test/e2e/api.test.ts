// The API reference in Debian's Chromium with JavaScript on and off, against the real stack: the raw
// OpenAPI document at /swagger/openapi.json and the Swagger UI page at /swagger/ui, served from local
// assets under the CSP. Every scenario fails on a console error or a CSP violation.
import { describe, expect, it } from 'vitest';
import { must, useScreenStack } from './screen-stack.ts';

const screens = useScreenStack({ name: 'api-e2e' });

for (const javaScriptEnabled of [true, false]) {
  describe(`API reference with JavaScript ${javaScriptEnabled ? 'on' : 'off'}`, () => {
    it('/swagger/openapi.json is a valid OpenAPI document listing the sign-in endpoint', async () => {
      const page = await screens.openPage(javaScriptEnabled);
      const response = must(await page.goto(`${screens.stack.appUrl}/swagger/openapi.json`));
      expect(response.status()).toBe(200);
      expect(response.headers()['content-type']).toMatch(/^application\/json/);
      const document = JSON.parse(await response.text()) as {
        openapi: string;
        info: { title: string };
        paths: Record<string, Record<string, { summary?: string; responses?: Record<string, unknown> }>>;
      };
      expect(document.openapi).toMatch(/^3\./);
      expect(document.info.title).toContain('Accounts API');
      expect(Object.keys(document.paths['/sign-in'] ?? {})).toEqual(expect.arrayContaining(['get', 'post']));
      expect(Object.keys(document.paths['/sign-in']?.post?.responses ?? {})).toEqual(expect.arrayContaining(['400', '429']));
    });

    if (javaScriptEnabled) {
      it('/swagger/ui renders the reference, with the sign-in operation', async () => {
        const page = await screens.openPage(true);
        await page.goto(`${screens.stack.appUrl}/swagger/ui`);
        await page.locator('.swagger-ui .info .title', { hasText: 'Accounts API' }).waitFor();
        const signInPost = page.locator('.opblock-post', { has: page.locator('.opblock-summary-path[data-path="/sign-in"]') });
        await signInPost.first().waitFor();
        await signInPost.first().locator('.opblock-summary-control').click();
        await signInPost.first().locator('.opblock-body').waitFor();
        expect(await signInPost.first().locator('.responses-table').innerText()).toContain('303');
      });

      it('/swagger/ui renders from local assets only, every operation listed', async () => {
        const page = await screens.openPage(true);
        const { appUrl } = screens.stack;
        const external: string[] = [];
        page.on('request', (req) => {
          if (!req.url().startsWith(appUrl) && !req.url().startsWith('data:')) external.push(req.url());
        });
        await page.goto(`${appUrl}/swagger/ui`);
        await page.locator('.swagger-ui .info .title').waitFor();
        expect(await page.locator('.swagger-ui .info .title').innerText()).toContain('Accounts API');
        await page.locator('.opblock-summary-path', { hasText: '/forgot-password' }).first().waitFor();
        expect(await page.locator('.opblock').count()).toBeGreaterThan(8);
        await page.locator('.opblock-summary-path', { hasText: '/forgot-password/reset' }).first().click();
        await page.locator('.opblock-body').first().waitFor();
        expect(external).toEqual([]);
      });
    } else {
      it('/swagger/ui without JavaScript links to the raw document', async () => {
        const page = await screens.openPage(false);
        const response = must(await page.goto(`${screens.stack.appUrl}/swagger/ui`));
        expect(response.status()).toBe(200);
        const link = page.locator('a[href="/swagger/openapi.json"]');
        expect(await link.isVisible()).toBe(true);
        await Promise.all([page.waitForURL(`${screens.stack.appUrl}/swagger/openapi.json`), link.click()]);
        expect(JSON.parse(await page.locator('body').innerText()).paths['/sign-in']).toBeDefined();
      });

      it('/swagger/ui without JavaScript puts that link in the noscript fallback', async () => {
        const page = await screens.openPage(false);
        await page.goto(`${screens.stack.appUrl}/swagger/ui`);
        expect(await page.locator('noscript a[href="/swagger/openapi.json"]').count()).toBe(1);
      });
    }
  });
}
