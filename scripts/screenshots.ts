// `npm run screenshots`: the product's main screens as people see them, at 390 px (a phone) and
// 1280 px, light and dark, into docs/screens/, so anyone can see it without running it. It runs the
// product exactly as `npm start` does (scripts/start.ts, its ports and stand-ins; data in a temporary
// folder) with a log service configured, so the cookie banner exists, and drives Debian's Chromium.
// The banner is shot as a visitor who has not chosen yet sees it; the other screens as one who has.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CONSENT_COOKIE, CONSENT_COOKIE_VALUES } from '../core/consent.ts';
import { launchBrowser } from '../test/support/chromium.ts';
import { LOCAL_PRODUCT } from './local-product.ts';

const OUT = path.resolve('docs/screens');
const APP = LOCAL_PRODUCT.appUrl;
const PASSWORD = 'Screenshot-Harbour-Quartz-93';
const SIZES = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1280, height: 900 },
] as const;
const THEMES = ['light', 'dark'] as const;
const SCREENS = {
  'sign-in': '/sign-in',
  'sign-up': '/sign-up',
  verification: '/sign-up/verification',
  'forgot-password': '/forgot-password',
  'profile-settings': '/profile-settings',
  'cookie-banner': '/sign-in',
} as const;

const data = mkdtempSync(path.join(tmpdir(), 'accounts-screenshots-'));
const product = spawn(process.execPath, ['scripts/start.ts'], {
  env: {
    ...process.env,
    IDENTITY_DATA_DIR: data,
    BACKEND_DATA_DIR: data,
    OAUTH2_DATABASE: path.join(data, 'oauth2.sqlite'),
    // Analytics "configured" (a log service nobody listens to) makes the banner exist; no location: the default asks.
    LOG_SERVICE_URL: 'http://127.0.0.1:9/log',
    USER_LOCATION_LOOKUP: 'false',
    // Without One Tap: its prompt would cover the top of every guest screen.
    GOOGLE_CLIENT_ID: '',
    LOG_LEVEL: 'warn',
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});

async function ready(): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    if (product.exitCode !== null) throw new Error(`npm start exited (${product.exitCode})`);
    const ok = await fetch(`${APP}/readyz`).then(
      (answer) => answer.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('npm start did not become ready in 60 s');
}

/** A verified account with a password, made through the identity service's admin API. */
async function createAccount(): Promise<{ id: string; email: string }> {
  const email = 'ada.lovelace@example.com';
  const answer = await fetch(`${LOCAL_PRODUCT.identityAdmin}/admin/identities`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      schema_id: 'default',
      traits: { email, name: 'Ada Lovelace' },
      credentials: { password: { config: { password: PASSWORD } } },
      verifiable_addresses: [{ value: email, verified: true, via: 'email', status: 'completed' }],
    }),
  });
  if (!answer.ok) throw new Error(`creating the account: ${answer.status} ${await answer.text()}`);
  return { id: ((await answer.json()) as { id: string }).id, email };
}

try {
  await ready();
  mkdirSync(OUT, { recursive: true });
  const person = await createAccount();
  const browser = await launchBrowser();
  for (const theme of THEMES) {
    for (const size of SIZES) {
      const context = await browser.newContext({ viewport: { width: size.width, height: size.height }, colorScheme: theme, locale: 'en-US' });
      await context.addInitScript((chosen) => localStorage.setItem('theme', chosen), theme);
      const page = await context.newPage();
      for (const [screen, address] of Object.entries(SCREENS)) {
        await context.clearCookies();
        if (screen !== 'cookie-banner') await context.addCookies([{ name: CONSENT_COOKIE, value: CONSENT_COOKIE_VALUES.accepted, url: APP }]);
        if (screen === 'profile-settings') {
          await page.goto(`${APP}/sign-in`);
          await page.fill('#field-identifier', person.email);
          await page.fill('#field-password', PASSWORD);
          await Promise.all([page.waitForURL((url) => !url.pathname.startsWith('/sign-in')), page.click('button[name="method"][value="password"]')]);
        }
        await page.goto(`${APP}${address}`);
        await page.waitForLoadState('networkidle');
        const file = path.join(OUT, `${screen}-${size.name}-${theme}.png`);
        await page.screenshot({ path: file, fullPage: true });
        process.stdout.write(`${path.relative(process.cwd(), file)}\n`);
      }
      await context.close();
    }
  }
  await browser.close();
} finally {
  const stopped = new Promise((resolve) => product.once('exit', resolve));
  product.kill('SIGTERM');
  await stopped;
  rmSync(data, { recursive: true, force: true });
}
