// Lean CSS per page (issue 17 item 2, decisions 195 and 235): the guest screens in the auth card layout
// carry their stylesheet inline in a <style> the CSP allows by its hash, right after the viewport <meta>,
// and name no stylesheet, logo or favicon file, so their first paint waits on no request; other pages
// (the profile, the 404) link the full, cacheable stylesheet. A guest page showing nothing anyone entered is
// sent from its kept template with the request's own values (decision 241), and rendered by React only until
// its inputs repeat (decision 243).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guestPageText, gzipGuestPage } from '../../../server/assets.ts';
import { buildApp } from '../../support/app.ts';
import { Browser, createIdentity, signIn } from '../../support/fixtures.ts';
import { formAction, rawPage as rawPageOf } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';

let build: ReturnType<typeof buildApp>;
let stack: Stack;
let guestCss: string;
beforeAll(async () => {
  build = buildApp();
  guestCss = readFileSync(path.join(build.assetsDir, 'guest-inline.css'), 'utf8');
  stack = await startStack({ env: { ASSETS_DIR: build.assetsDir } });
});
afterAll(async () => {
  await stack?.close();
  build?.remove();
});

/** The document's start on an English page: the doctype, <html> and the two <meta>s React puts first. */
const DOCUMENT_START =
  '<!doctype html><html lang="en" data-theme="light"><head><meta charSet="utf-8"/><meta name="viewport" content="width=device-width, initial-scale=1"/>';
const STYLESHEET_LINK = /<link rel="stylesheet" href="\/assets\/app-[A-Z0-9]+\.css"\/>/;

describe('inline guest CSS', () => {
  it.each(['/sign-in', '/sign-up', '/forgot-password', '/sign-up/verification', '/sign-up/resend-verification-email'])(
    '%s: the guest stylesheet in a <style> after the viewport <meta>, no stylesheet link, the logo and favicon in the page',
    async (address) => {
      const page = await new Browser(stack.appUrl).follow(address);
      expect(page.status).toBe(200);
      expect(page.text).toContain('<main class="page page--auth"');
      const head = page.text.slice(0, page.text.indexOf('</head>'));
      // What comes before the CSS is the same on every page of a language: nothing per request (no nonce).
      expect(head.startsWith(`${DOCUMENT_START}<style>${guestCss}</style>`)).toBe(true);
      expect(head).not.toMatch(/rel="stylesheet"/);
      // No request for the logo or an icon: the default logo is drawn inline, the favicon is a data: address.
      expect(page.text).not.toMatch(/src="\/logo\.svg"|href="\/favicon\./);
      expect(page.text).toMatch(/<a class="brand brand--auth" href="\/"><svg class="brand__logo"[^>]*aria-hidden="true"/);
      expect(head).toMatch(/<link rel="icon" href="data:image\/svg\+xml,/);
    },
  );

  it('is sent as gzip whose start and CSS were compressed once, which a browser decoder reads as the whole page', async () => {
    const answer = await fetch(`${stack.appUrl}/forgot-password`, { headers: { 'accept-encoding': 'gzip, deflate, br, zstd' } });
    expect(answer.headers.get('content-encoding')).toBe('gzip');
    const text = await answer.text();
    expect(text.startsWith(`${DOCUMENT_START}<style>${guestCss}</style>`)).toBe(true);
    expect(text.trimEnd()).toMatch(/<\/html>$/);
    // The splice itself, byte for byte: starts kept per language, text outside Latin-1, an empty rest, a changed CSS.
    const pages = [
      { start: '<html lang="vi"><head>', rest: '<title>Đăng nhập ✓</title></head><body>é</body></html>' },
      { start: '<html lang="fr"><head>', rest: '' },
      { start: '<html lang="vi"><head>', rest: '<body>encore</body>' },
    ];
    for (const css of [guestCss, `${guestCss}.x{}`])
      for (const page of pages) expect(gunzipSync(await gzipGuestPage(page, css)).toString()).toBe(guestPageText(page, css));
  });

  it('the CSP allows that <style> by its SHA-256 (no nonce), and data: images (the favicon)', async () => {
    const page = await new Browser(stack.appUrl).follow('/sign-in');
    const csp = page.headers.get('content-security-policy') ?? '';
    const hash = createHash('sha256').update(guestCss).digest('base64');
    expect(csp).toMatch(new RegExp(`style-src [^;]*'sha256-${hash.replace(/[+/=]/g, '\\$&')}'`));
    expect(csp).toMatch(/img-src [^;]*data:/);
  });

  it('pages outside the auth card layout link the full stylesheet: the 404 and the signed-in profile', async () => {
    const browser = new Browser(stack.appUrl);
    const missing = await browser.follow('/no-such-page');
    expect(missing.status).toBe(404);
    expect(missing.text).toMatch(STYLESHEET_LINK);
    expect(missing.text).not.toContain(guestCss);
    const identity = await createIdentity(stack.identity.adminUrl, { prefix: 'inline-css' });
    expect((await signIn(browser, identity.email)).status).toBe(303);
    const profile = await browser.follow('/profile-settings');
    expect(profile.status).toBe(200);
    expect(profile.text).toMatch(STYLESHEET_LINK);
    expect(profile.text).not.toContain('<main class="page page--auth"');
    expect(profile.text).not.toContain(guestCss);
  });

  it('holds the rules the auth card, its forms and the islands on those screens need, and leaves out the profile', () => {
    const full = readFileSync(path.join(build.assetsDir, 'assets', path.basename(manifestCss())), 'utf8');
    expect(guestCss.length).toBeGreaterThan(1000);
    expect(guestCss.length).toBeLessThan(full.length);
    for (const selector of [
      '.page--auth{',
      '.auth-card{',
      '.auth-card__title{',
      '.brand__logo{',
      '.btn--PRIMARY{',
      '.field__input{',
      '.checkbox__input{',
      '.alert--error',
      '[data-theme=dark]',
      '.toast--success',
      '.dialog{',
      '.theme-switcher{',
      '.cookie-banner{',
      '.loading-overlay{',
      '.visually-hidden',
    ]) {
      expect(guestCss, selector).toContain(selector);
    }
    // Rules only the signed-in profile uses are not sent to guests.
    expect(full).toContain('.profile-');
    expect(guestCss).not.toContain('.profile-');
  });
});

function manifestCss(): string {
  const manifest = JSON.parse(readFileSync(path.join(build.assetsDir, 'manifest.json'), 'utf8')) as Record<string, string>;
  return manifest['app.css']!;
}

/** A page as it comes over the wire, still gzip, with the CSP nonce its headers give. */
async function rawPage(address: string, cookie = ''): Promise<{ status: number; body: Buffer; nonce: string }> {
  const answer = await rawPageOf(stack.appUrl, address, cookie);
  expect(answer.encoding).toBe('gzip');
  return answer;
}

describe('guest pages from kept templates (decision 241)', () => {
  it('new sign-in pages: from the second on, sent from the template with their own nonce, flow id and CSRF token', async () => {
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await rawPage('/sign-in'));
    const flows = new Set<string>();
    for (const [i, answer] of answers.entries()) {
      expect(answer.status).toBe(200);
      const text = gunzipSync(answer.body).toString();
      expect(text.match(/nonce="([^"]+)"/g)?.every((attribute) => attribute === `nonce="${answer.nonce}"`)).toBe(true);
      const flow = /action="\/sign-in\?flow=([0-9a-f-]{36})"/.exec(text)?.[1];
      expect(flow).toBeTruthy();
      flows.add(flow!);
      // A template's values go in as stored blocks, byte for byte: the nonce in the raw gzip says which way it went.
      if (i > 0) expect(answer.body.includes(Buffer.from(`nonce="${answer.nonce}"`)), `answer ${i}`).toBe(false);
      if (i > 0) expect(answer.body.includes(Buffer.from(answer.nonce)), `answer ${i}`).toBe(true);
    }
    expect(flows.size).toBe(4);
    expect(new Set(answers.map((answer) => answer.nonce)).size).toBe(4);
  });

  it('a page showing the address someone typed is compressed on its own, however often it is asked for', async () => {
    const identity = await createIdentity(stack.identity.adminUrl, { prefix: 'template' });
    const browser = new Browser(stack.appUrl);
    const failed = await signIn(browser, identity.email, 'Not-The-Password-1');
    expect(failed.status).toBe(400);
    const action = formAction(failed.text, 'sign-in-form')!;
    for (let i = 0; i < 3; i++) {
      const answer = await rawPage(action, browser.cookieHeader());
      expect(gunzipSync(answer.body).toString()).toContain(`value="${identity.email}"`);
      expect(answer.body.includes(Buffer.from(answer.nonce)), `answer ${i}`).toBe(false);
    }
  });
});

describe('guest pages rendered once their inputs repeat (decision 243)', () => {
  it('a new sign-in page from a kept render carries its own flow and CSRF token: signing in with it works', async () => {
    for (let i = 0; i < 3; i++) expect((await rawPage('/sign-in')).status).toBe(200);
    const identity = await createIdentity(stack.identity.adminUrl, { prefix: 'kept-render' });
    for (let i = 0; i < 2; i++) {
      const signedIn = await signIn(new Browser(stack.appUrl), identity.email);
      expect(signedIn.status, `sign-in ${i}`).toBe(303);
    }
  });

  it('each language gets its own render, however many of another came before', async () => {
    const pageIn = async (language: string) => (await fetch(`${stack.appUrl}/sign-in`, { headers: { 'accept-language': language } })).text();
    for (let i = 0; i < 3; i++) expect(await pageIn('en')).toContain('<html lang="en"');
    for (let i = 0; i < 3; i++) {
      const french = await pageIn('fr');
      expect(french).toContain('<html lang="fr"');
      expect(french).toContain('Se connecter');
      expect(french).not.toMatch(/>Sign in</);
    }
    expect(await pageIn('en')).toMatch(/>Sign in</);
  });
});
