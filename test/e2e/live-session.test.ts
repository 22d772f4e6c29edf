// The live session in Debian's Chromium (issue #14): two tabs of one user, sign-out in the first, and
// the second shows the session-changed dialog within 2 s through the socket; its Reload lands on
// sign-in. A gateway path never carries the dialog. Every scenario fails on a console error or a CSP
// violation (the socket's connection included).
import type { Page } from 'playwright';
import { describe, expect, it } from 'vitest';
import { signIn } from '../support/browser.ts';
import { useScreenStack } from './screen-stack.ts';

const screens = useScreenStack({
  name: 'live-session-e2e',
  rateLimits: { 'sign-in': { perIp: 1000, perEmail: 1000 } },
});

/** Sockets that joined their rooms (authenticated), on the stack's one app instance. */
function joinedSockets(): number {
  return [...screens.stack.liveSessions.io.of('/').sockets.values()].filter((socket) => socket.rooms.size > 1).length;
}

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const dialogOf = (page: Page) => page.locator('#session-changed');

describe('live session', () => {
  it('two tabs of one user: signing out in the first opens the session-changed dialog in the second within 2 s; Reload lands on sign-in', async () => {
    const account = await screens.newAccount('live-two-tabs');
    const first = await screens.openPage(true);
    const { appUrl } = screens.stack;
    await signIn(first, appUrl, account.email, account.password);
    const second = await screens.context().newPage();
    await second.goto(`${appUrl}/profile-settings`);
    await second.waitForURL(screens.landsOn('/profile-settings'));
    expect(await dialogOf(second).isHidden()).toBe(true);
    // Both tabs' islands have authenticated and joined their rooms.
    await until(() => joinedSockets() === 2);

    await first.locator('a[data-link="logout"]').click();
    await first.waitForURL((url) => url.pathname === '/sign-in');
    const signedOutAt = Date.now();
    await dialogOf(second).waitFor({ state: 'visible', timeout: 2_000 });
    expect(Date.now() - signedOutAt).toBeLessThan(2_000);
    expect(await second.locator('#session-changed-title').innerText()).toBe('Session changed warning');
    expect(await second.locator('#session-changed-body').innerText()).toContain('Your session has been changed. Reload the page to continue your work.');

    await Promise.all([second.waitForURL((url) => url.pathname === '/sign-in'), second.locator('#session-changed [data-reload]').click()]);
    await second.locator('#field-identifier').waitFor();
  });

  it('"Sign out everywhere" on one device: the other device shows the dialog within 2 s, this one lands on sign-in', async () => {
    const account = await screens.newAccount('live-everywhere');
    const { appUrl } = screens.stack;
    const here = await screens.openPage(true);
    await signIn(here, appUrl, account.email, account.password);
    // A second device: a browser context of its own (its own cookies, its own session).
    const otherDevice = await screens.browser.newContext();
    try {
      const there = await otherDevice.newPage();
      await signIn(there, appUrl, account.email, account.password);
      await here.goto(`${appUrl}/profile-settings`);
      await until(() => joinedSockets() === 2);
      await Promise.all([here.waitForURL((url) => url.pathname === '/sign-in'), here.locator('#sign-out-everywhere-form button').click()]);
      const signedOutAt = Date.now();
      await dialogOf(there).waitFor({ state: 'visible', timeout: 2_000 });
      expect(Date.now() - signedOutAt).toBeLessThan(2_000);
      await Promise.all([there.waitForURL((url) => url.pathname === '/sign-in'), there.locator('#session-changed [data-reload]').click()]);
    } finally {
      await otherDevice.close();
    }
  });

  it('a signed-in page loads the island, which gets its token from the same origin (never in the page)', async () => {
    const account = await screens.newAccount('live-token');
    const page = await screens.openPage(true);
    const tokens: string[] = [];
    page.on('request', (request) => void (request.url().includes('/live-session/token') && tokens.push(request.url())));
    await signIn(page, screens.stack.appUrl, account.email, account.password);
    await until(() => joinedSockets() === 1);
    expect(tokens).toEqual([`${screens.stack.appUrl}/live-session/token`]);
    expect(await page.content()).not.toMatch(/eyJ[\w-]+\.eyJ/);
  });

  it('a gateway path never shows the dialog: no dialog, no island, whatever is sent', async () => {
    const account = await screens.newAccount('live-gateway');
    const page = await screens.openPage(true);
    const { appUrl } = screens.stack;
    await signIn(page, appUrl, account.email, account.password);
    await until(() => joinedSockets() === 1);
    await page.goto(`${appUrl}/authentication/gateway/done`);
    expect(await dialogOf(page).count()).toBe(0);
    expect(await page.locator('[data-island="live-session"]').count()).toBe(0);
    expect(await page.evaluate(() => performance.getEntriesByType('resource').some((entry) => entry.name.includes('/assets/socket-')))).toBe(false);
    await until(() => joinedSockets() === 0);
  });
});
