// The configurable brand (issue #16 item 5): the product's name and logo on every auth screen and in
// the signed-in header, a tasteful default, and an accent colour applied through a nonced style (the
// CSP allows no inline style attribute); a logo hosted elsewhere is allowed by img-src, nothing more.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, cspNonceOf, testApp } from '../../support/app.ts';
import { Browser } from '../../support/http.ts';
import { startStack } from '../../support/stack.ts';

let build: ReturnType<typeof buildApp>;
beforeAll(() => {
  build = buildApp();
});
afterAll(() => build.remove());

// The logo: an operator's as an <img>; the bundled one drawn inline (decision 195), read here as its default address.
const brandOf = (html: string) => {
  const match =
    /<a class="brand brand--auth" href="\/">(?:<img class="brand__logo" src="([^"]+)" alt=""[^>]*\/>|(<svg class="brand__logo"[^>]*>.*?<\/svg>))<span class="brand__name">([^<]+)<\/span><\/a>/.exec(
      html,
    );
  return match ? [match[0], match[1] ?? (match[2] ? '/logo.svg' : ''), match[3]] : null;
};

describe('brand', () => {
  it('by default: the product name and the bundled logo above every auth card, no accent style', async () => {
    const stack = await startStack({ env: { ASSETS_DIR: build.assetsDir } });
    try {
      for (const path of ['/sign-in', '/sign-up', '/forgot-password', '/sign-up/resend-verification-email']) {
        const html = (await new Browser(stack.appUrl).follow(path)).text;
        const brand = brandOf(html);
        expect(brand, path).not.toBeNull();
        expect(brand![1]).toBe('/logo.svg');
        expect(brand![2]).toBe('Accounts');
        expect(html).not.toContain(':root{--primary:');
      }
    } finally {
      await stack.close();
    }
  });

  it('configured: its name, an https logo allowed by img-src, and the accent colour in a nonced style', async () => {
    const stack = await startStack({
      env: {
        ASSETS_DIR: build.assetsDir,
        BRAND_NAME: 'Paperline',
        BRAND_LOGO_URL: 'https://cdn.example.com/brand/paperline.svg',
        BRAND_ACCENT_COLOR: '#7a3cc2',
      },
    });
    try {
      const page = await new Browser(stack.appUrl).follow('/forgot-password');
      const html = page.text;
      const brand = brandOf(html);
      expect(brand?.[1]).toBe('https://cdn.example.com/brand/paperline.svg');
      expect(brand?.[2]).toBe('Paperline');
      const csp = page.headers.get('content-security-policy') ?? '';
      expect(csp).toMatch(/img-src [^;]*https:\/\/cdn\.example\.com/);
      expect(csp).not.toMatch(/script-src [^;]*cdn\.example\.com/);
      const nonce = cspNonceOf(csp);
      const accent = `<style nonce="${nonce}">:root{--primary:#7a3cc2;`;
      expect(html).toContain(accent);
      // Later in the head than the stylesheet, whose own :root colours it must override (same specificity: the later wins).
      expect(html.indexOf(accent)).toBeGreaterThan(html.indexOf('<style>'));
      const linked = await new Browser(stack.appUrl).follow('/no-such-page');
      const linkedAccent = `<style nonce="${cspNonceOf(linked.headers.get('content-security-policy') ?? '')}">:root{--primary:#7a3cc2;`;
      expect(linked.text.indexOf(linkedAccent)).toBeGreaterThan(linked.text.indexOf('<link rel="stylesheet"'));
      expect(linked.text).toContain('<link rel="stylesheet"');
    } finally {
      await stack.close();
    }
  });

  it('refuses a colour or a logo address it cannot use safely', async () => {
    await expect(testApp(build.assetsDir, { BRAND_ACCENT_COLOR: 'red;}body{display:none' })).rejects.toThrow(/BRAND_ACCENT_COLOR/);
    await expect(testApp(build.assetsDir, { BRAND_LOGO_URL: 'javascript:alert(1)' })).rejects.toThrow(/BRAND_LOGO_URL/);
    await expect(testApp(build.assetsDir, { BRAND_LOGO_URL: '//evil.example/logo.svg' })).rejects.toThrow(/BRAND_LOGO_URL/);
  });
});
