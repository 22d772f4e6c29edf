// The fake Google's Identity Services stand-in (/gsi/client) in Debian's Chromium, on a page with a strict
// CSP (no inline script or style): One Tap lists the accounts, and choosing one hands the page a
// credential through `callback`, or posts it to `login_uri` with the g_csrf_token double-submit pair.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { startFakeProviders, type FakeProviders } from '../../../embedded/providers/index.ts';
import { launchBrowser, openWatchedPage } from '../../support/browser.ts';

let fakes: FakeProviders;
let browser: Browser;
let server: http.Server;
let pageUrl: string;
const posts: { body: string; cookie: string }[] = [];

// The page's own script: what an app does with GIS. `mode` picks callback or login_uri.
const APP_JS = `
const mode = new URL(location.href).searchParams.get('mode');
const out = document.getElementById('out');
const moments = [];
const gsi = document.createElement('script');
gsi.src = document.body.dataset.gsi;
gsi.onload = () => {
  google.accounts.id.initialize({
    client_id: document.body.dataset.clientId,
    nonce: 'n-789',
    ...(mode === 'login_uri' ? { login_uri: '/login' } : { callback: (answer) => { out.textContent = JSON.stringify(answer); } }),
  });
  google.accounts.id.prompt((m) => { moments.push(m.getMomentType() + ':' + (m.getNotDisplayedReason() || m.getSkippedReason() || m.getDismissedReason() || '')); document.getElementById('moments').textContent = moments.join(' '); });
};
document.head.append(gsi);
`;

function page(): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>app</title><script src="/app.js" defer></script></head>
<body data-gsi="${fakes.google.gsiScriptUrl}" data-client-id="${fakes.google.clientId}"><output id="out"></output><p id="moments"></p></body></html>`;
}

beforeAll(async () => {
  fakes = await startFakeProviders();
  server = http.createServer((req, res) => {
    const csp = `default-src 'none'; script-src 'self' ${fakes.google.origin}; connect-src ${fakes.google.origin}; style-src 'self'; img-src 'self'; form-action 'self'`;
    if (req.url === '/app.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(APP_JS);
    if (req.url === '/login' && req.method === 'POST') {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        posts.push({ body, cookie: req.headers.cookie ?? '' });
        res.writeHead(200, { 'content-type': 'text/html', 'content-security-policy': csp }).end('<!doctype html><title>signed in</title><h1>signed in</h1>');
      });
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html', 'content-security-policy': csp }).end(page());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  pageUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  server?.close();
  await fakes?.close();
});

const verify = (credential: string) =>
  jwtVerify(credential, createRemoteJWKSet(new URL(fakes.google.jwksUri)), { issuer: fakes.google.issuer, audience: fakes.google.clientId });

describe('the GIS stand-in under a strict CSP', () => {
  it('prompts with the accounts and gives the chosen one’s credential to the callback', async () => {
    const { context, page, problems } = await openWatchedPage(browser, { javaScriptEnabled: true });
    try {
      await page.goto(`${pageUrl}?mode=callback`);
      const card = page.getByRole('dialog', { name: 'Sign in with Google' });
      await card.waitFor();
      await expect(page.locator('#moments').textContent()).resolves.toBe('display:');
      await card.locator('button[data-email="grace@example.com"]').click();
      await page.locator('#out').filter({ hasText: 'credential' }).waitFor();
      const answer = JSON.parse((await page.locator('#out').textContent())!) as { credential: string; select_by: string };
      expect(answer.select_by).toBe('user');
      const { payload } = await verify(answer.credential);
      expect(payload).toMatchObject({ email: 'grace@example.com', nonce: 'n-789' });
      await expect(card.count()).resolves.toBe(0);
      await expect(page.locator('#moments').textContent()).resolves.toBe('display: dismissed:credential_returned');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('closing the card is a skipped moment and gives no credential', async () => {
    const { context, page, problems } = await openWatchedPage(browser, { javaScriptEnabled: true });
    try {
      await page.goto(`${pageUrl}?mode=callback`);
      await page.getByRole('button', { name: 'Close' }).click();
      await page.locator('#moments').filter({ hasText: 'skipped' }).waitFor();
      await expect(page.locator('#moments').textContent()).resolves.toBe('display: skipped:user_cancel');
      await expect(page.locator('#out').textContent()).resolves.toBe('');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('with login_uri, posts credential and g_csrf_token, the same token as the cookie it set', async () => {
    const { context, page, problems } = await openWatchedPage(browser, { javaScriptEnabled: true });
    try {
      await page.goto(`${pageUrl}?mode=login_uri`);
      await page.getByRole('dialog', { name: 'Sign in with Google' }).locator('button[data-email="ada@example.com"]').click();
      await page.getByRole('heading', { name: 'signed in' }).waitFor();
      const post = posts.at(-1)!;
      const form = new URLSearchParams(post.body);
      const token = form.get('g_csrf_token');
      expect(token).toMatch(/^[0-9a-f]{32}$/);
      expect(post.cookie).toContain(`g_csrf_token=${token}`);
      expect(form.get('select_by')).toBe('user');
      expect((await verify(form.get('credential')!)).payload.email).toBe('ada@example.com');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
