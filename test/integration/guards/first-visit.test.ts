// Issue #17 item 1 (decision 190): a first visit to a flow screen is its page at once, with a new flow:
// 200, no redirect, Kratos's cookies relayed, the flow's id in the form's action, and the address the
// browser is asked to show (`<body data-address>`) naming the same flow, so a reload reuses it. JSON
// callers and the cases that must move the browser (signed in on a guest screen, an enhanced GET) are as before.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { latestCode, useIdentities } from '../../support/fixtures.ts';
import { barAddress, Browser, flowFormAction, flowIdOf, formAction, hiddenValue } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());
const identities = useIdentities(() => stack.identity.adminUrl);

const GUEST_SCREENS = [
  { path: '/sign-in', kind: 'login' },
  { path: '/sign-up', kind: 'registration' },
  { path: '/forgot-password', kind: 'recovery' },
  { path: '/sign-up/verification', kind: 'verification' },
  { path: '/verify-account', kind: 'verification' },
  { path: '/sign-up/resend-verification-email', kind: 'verification' },
] as const;

/** Kratos still serves the flow to this browser (its cookies): the page's flow is a real, live one. */
async function liveAtKratos(browser: Browser, kind: string, id: string): Promise<boolean> {
  const answer = await browser.get(`${stack.identity.publicUrl}/self-service/${kind}/flows?id=${id}`, { accept: 'application/json' });
  return answer.status === 200 && (JSON.parse(answer.text) as { id?: string }).id === id;
}

/** The first GET: the page itself, its flow in the form and the address bar; a reload of that address reuses the flow. */
async function firstVisit(browser: Browser, path: string, kind: string) {
  const page = await browser.get(path);
  expect(page.status, path).toBe(200);
  expect(page.location).toBeUndefined();
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  expect(page.headers.get('cache-control')).toBe('no-store');
  const action = flowFormAction(page.text);
  const flow = flowIdOf(action);
  expect(new URL(action, stack.appUrl).pathname.startsWith(new URL(path, stack.appUrl).pathname)).toBe(true);
  expect(barAddress(page.text)).toMatch(new RegExp(`[?&]flow=${flow}(&|$)`));
  expect(await liveAtKratos(browser, kind, flow)).toBe(true);
  const reloaded = await browser.get(barAddress(page.text)!);
  expect(reloaded.status).toBe(200);
  expect(flowIdOf(flowFormAction(reloaded.text))).toBe(flow);
  expect(barAddress(reloaded.text)).toBeUndefined(); // nothing new to show in the bar
  return { page, action, flow };
}

describe('a first visit shows the new flow at once', () => {
  test.each(GUEST_SCREENS)('$path: 200 with the flow in the form, Kratos cookies relayed, a reload reuses it', async ({ path, kind }) => {
    const browser = new Browser(stack.appUrl);
    const { page, action } = await firstVisit(browser, path, kind);
    // Kratos's anti-CSRF cookie comes with the page, as it came with the 303 before.
    expect(page.setCookies.some((line) => line.startsWith('csrf_token_'))).toBe(true);
    expect(barAddress(page.text)).toBe(action);
    expect(hiddenValue(page.text, 'csrf_token')).toBeTruthy();
  });

  test('kept parameters stay in the action and the address bar, an unknown one does not', async () => {
    const browser = new Browser(stack.appUrl);
    const { action, page } = await firstVisit(browser, '/sign-up?return_to=%2Fprofile-settings&lng=vi&unknown=x', 'registration');
    const bar = new URL(barAddress(page.text)!, stack.appUrl);
    for (const url of [new URL(action, stack.appUrl), bar]) {
      expect(url.searchParams.get('return_to')).toBe('/profile-settings');
      expect(url.searchParams.get('lng')).toBe('vi');
      expect(url.searchParams.has('unknown')).toBe(false);
    }
    expect(page.text).toMatch(/<html lang="vi"/);
    // The language switcher leads back to the flow's address (without lng), not to a bare one that would make another flow.
    bar.searchParams.delete('lng');
    expect(hiddenValue(page.text, 'return_to')).toBe(`${bar.pathname}${bar.search}`);
  });

  test('the reset screen, on a recovery session: its settings flow at once', async () => {
    const person = await identities.create({ verified: true });
    const browser = new Browser(stack.appUrl);
    const { action, page } = await firstVisit(browser, '/forgot-password', 'recovery');
    const sent = await browser.post(action, { csrf_token: hiddenValue(page.text, 'csrf_token')!, method: 'code', email: person.email });
    expect(sent.status).toBe(303);
    const codePage = await browser.get(sent.location!);
    const code = await latestCode(stack.identity.adminUrl, person.email, 'recovery');
    const recovered = await browser.post(action, { csrf_token: hiddenValue(codePage.text, 'csrf_token')!, method: 'code', code });
    expect(recovered.location).toMatch(/^\/forgot-password\/reset\?flow=/);
    const { flow } = await firstVisit(browser, '/forgot-password/reset', 'settings');
    expect(flow).not.toBe(flowIdOf(recovered.location));
  });

  test('/profile-settings, signed in: the settings flow at once', async () => {
    const { browser } = await identities.signedIn(stack.appUrl);
    const { page, flow } = await firstVisit(browser, '/profile-settings', 'settings');
    expect(formAction(page.text, 'profile-name-form')).toBe(`/profile-settings?flow=${flow}`);
    expect(barAddress(page.text)).toBe(`/profile-settings?flow=${flow}`);
  });
});

describe("sign-in's one-hop markers, honoured by the first page itself", () => {
  test('logged_out=1: the page asks to forget the stored token, and the bar keeps the marker (a reload is the same page)', async () => {
    const browser = new Browser(stack.appUrl);
    const page = await browser.get('/sign-in?logged_out=1');
    expect(page.status).toBe(200);
    expect(page.text).toContain('data-clear-storage="token"');
    const bar = new URL(barAddress(page.text)!, stack.appUrl);
    expect(bar.searchParams.get('logged_out')).toBe('1');
    expect(bar.searchParams.get('flow')).toBe(flowIdOf(flowFormAction(page.text)));
    const reloaded = await browser.get(`${bar.pathname}${bar.search}`);
    expect(flowIdOf(flowFormAction(reloaded.text))).toBe(bar.searchParams.get('flow'));
  });

  test('a failed social start (social_error) is shown with its 400 on the first page, the marker kept for a reload', async () => {
    const browser = new Browser(stack.appUrl);
    const page = await browser.get('/sign-in?social_error=cancelled');
    expect(page.status).toBe(400);
    expect(page.text).toContain('role="alert"');
    expect(new URL(barAddress(page.text)!, stack.appUrl).searchParams.get('social_error')).toBe('cancelled');
  });

  test('a cancelled account link keeps its marker in the bar', async () => {
    const browser = new Browser(stack.appUrl);
    const page = await browser.get('/sign-in?account_link=cancelled');
    expect(page.status).toBe(200);
    expect(new URL(barAddress(page.text)!, stack.appUrl).searchParams.get('account_link')).toBe('cancelled');
  });
});

describe('what still moves the browser, and JSON', () => {
  test('JSON callers get the new flow as before (200), no page, no address', async () => {
    const browser = new Browser(stack.appUrl);
    const answer = await browser.get('/sign-in', { accept: 'application/json' });
    expect(answer.status).toBe(200);
    const body = JSON.parse(answer.text) as { flow: { id: string; ui: { action: string } } };
    expect(body.flow.ui.action).toContain(`flow=${body.flow.id}`);
  });

  test('an enhanced (fetch) GET has no address bar: it is sent to the flow (200 + X-Redirect-To)', async () => {
    const browser = new Browser(stack.appUrl);
    const answer = await browser.get('/forgot-password', { 'x-enhance': '1' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-redirect-to')).toMatch(/^\/forgot-password\?flow=[0-9a-f-]{36}$/);
    expect(answer.text).toBe('');
  });

  test('signed in, a guest screen still sends the browser on (303), with no flow made', async () => {
    const { browser } = await identities.signedIn(stack.appUrl);
    const answer = await browser.get('/sign-up');
    expect(answer.status).toBe(303);
    expect(answer.location).toBe('/');
  });
});
