// Issue #17 item 1 (decision 190) in Debian's Chromium: a first visit to a flow screen is one document
// request (no 303 to `?flow=` first). With JavaScript the address bar then names the form's flow, so a
// reload shows the same flow; without it the address stays as typed and the form still posts to the flow,
// so the journey completes. Every scenario fails on a console error or a CSP violation.
import type { Page } from 'playwright';
import { describe, expect, it } from 'vitest';
import { catalogueText, submitSignIn } from '../support/browser.ts';
import { h1, must, useScreenStack } from './screen-stack.ts';

const screens = useScreenStack({
  name: 'first-visit-e2e',
  rateLimits: { 'sign-in': { perIp: 1000, perEmail: 1000 } },
});

const GUEST_SCREENS = ['/sign-in', '/sign-up', '/forgot-password', '/sign-up/verification', '/sign-up/resend-verification-email'];

/** The flow the page's form posts to (its first form with `?flow=`). */
async function formFlow(page: Page): Promise<string | null> {
  const action = await page.locator('main form[action*="flow="]').first().getAttribute('action');
  return new URL(action ?? '', 'http://x').searchParams.get('flow');
}

/** Opens `path` and checks it came in one document request: no redirect before the page. */
async function openOnce(page: Page, path: string): Promise<void> {
  const response = must(await page.goto(`${screens.stack.appUrl}${path}`));
  expect(response.status(), path).toBe(200);
  expect(response.request().redirectedFrom(), path).toBeNull();
}

describe('first visit with JavaScript on', () => {
  it('every guest screen: one request, then the address bar names the form’s flow, and a reload keeps that flow', async () => {
    const page = await screens.openPage(true);
    for (const path of GUEST_SCREENS) {
      await openOnce(page, path);
      await page.waitForURL((url) => url.pathname === path && url.searchParams.has('flow'));
      const flow = new URL(page.url()).searchParams.get('flow');
      expect(await formFlow(page)).toBe(flow);
      await page.reload();
      expect(new URL(page.url()).searchParams.get('flow')).toBe(flow);
      expect(await formFlow(page)).toBe(flow);
    }
  });

  it('after a sign-out (logged_out=1): the first page forgets the stored token, the bar keeps the marker with the flow', async () => {
    const page = await screens.openPage(true);
    await page.goto(`${screens.stack.appUrl}/sign-in`);
    await page.evaluate(() => localStorage.setItem('token', 'stale-token'));
    await openOnce(page, '/sign-in?logged_out=1');
    await page.waitForURL((url) => url.searchParams.has('flow'));
    const bar = new URL(page.url());
    expect(bar.searchParams.get('logged_out')).toBe('1');
    expect(bar.searchParams.get('flow')).toBe(await formFlow(page));
    expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();
  });

  it('signs in from the first page', async () => {
    const account = await screens.newAccount('first-visit-js');
    const page = await screens.openPage(true);
    await openOnce(page, '/sign-in');
    await page.waitForURL((url) => url.searchParams.has('flow'));
    await submitSignIn(page, account.email, account.password, `${screens.stack.appUrl}/`);
    expect(await h1(page)).toBe(`Hello, ${account.name}`);
  });
});

describe('first visit with JavaScript off', () => {
  it('the address stays as typed, the form posts to the flow, and signing in completes', async () => {
    const account = await screens.newAccount('first-visit-nojs');
    const page = await screens.openPage(false);
    await openOnce(page, '/sign-in');
    expect(page.url()).toBe(`${screens.stack.appUrl}/sign-in`);
    expect(await h1(page)).toBe(catalogueText('en', 'authPage.signInTitle'));
    const flow = await formFlow(page);
    expect(flow).toMatch(/^[0-9a-f-]{36}$/);
    const posted = page.waitForRequest((request) => request.method() === 'POST');
    await submitSignIn(page, account.email, account.password, `${screens.stack.appUrl}/`);
    expect(new URL((await posted).url()).searchParams.get('flow')).toBe(flow);
    expect(await h1(page)).toBe(`Hello, ${account.name}`);
  });

  it('recovery from the bare address: the code is sent on the first page’s flow', async () => {
    const account = await screens.newAccount('first-visit-recovery');
    const page = await screens.openPage(false);
    await openOnce(page, '/forgot-password');
    const flow = await formFlow(page);
    await page.locator('#field-email').fill(account.email);
    await Promise.all([
      page.waitForURL((url) => url.pathname === '/forgot-password' && url.searchParams.get('flow') === flow),
      page.getByRole('button', { name: 'Send recovery code', exact: true }).click(),
    ]);
    expect(await page.locator('input[name="code"]').count()).toBe(1);
  });
});
