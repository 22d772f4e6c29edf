// Every row of Kratos's callback validation (contract §1.3) ends on our page with OUR translated text and
// a 4xx: flow-tied failures on the sign-in form (Kratos writes them into the flow and redirects there),
// the others on our error page (/error?id=, Kratos's error UI). Never a raw JSON page, never a 5xx.
// Against the stand-in and real Kratos.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestClock } from '../../../embedded/clock.ts';
import { catalogueText } from '../../support/browser.ts';
import { alerts, Browser, type Answer } from '../../support/http.ts';
import { signInAtProvider } from '../../support/providers.ts';
import { onRealKratos, startStack, type Stack } from '../../support/stack.ts';
import { followOn, pathOf, pressProvider } from './social-support.ts';

// Real Kratos reads the real time: there login flows live three seconds and the expiry test waits.
const FLOW_LIFESPAN_MS = onRealKratos ? 3_000 : 60_000;
const clock = createTestClock();
let stack: Stack;
beforeAll(async () => {
  stack = await startStack({
    socialProviders: true,
    identityConfig: { selfservice: { flows: { login: { lifespan: `${FLOW_LIFESPAN_MS}ms` } } } } as never,
    clock: onRealKratos ? undefined : clock,
  });
});
afterAll(() => stack?.close());

/** Real Kratos only: its flows expire by the real clock, so this test waits past the (3 s) lifespan. */
const sleepPast = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms + 500));

/** A started Google sign-in: the authorize URL, its state, and Kratos's callback address. */
async function started(browser: Browser, provider = 'google') {
  const pressed = await pressProvider(browser, '/sign-in', provider);
  expect(pressed.status).toBe(303);
  const authorize = new URL(pressed.location!);
  return { authorize: authorize.href, state: authorize.searchParams.get('state')!, callback: authorize.searchParams.get('redirect_uri')! };
}

/** GET `url` (Kratos's callback) and follow on to our page. */
async function land(browser: Browser, url: string) {
  const answer: Answer = await browser.get(url);
  return followOn(stack, browser, answer, url);
}

function expectOurMessage(page: Answer & { url: string }, screen: '/sign-in' | '/error', key: string) {
  expect(pathOf(page.url), page.url).toBe(screen);
  expect(page.status, page.text.slice(0, 300)).toBeGreaterThanOrEqual(400);
  expect(page.status).toBeLessThan(500);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  expect(alerts(page.text), `${page.url} ${alerts(page.text).join()}`).toContain(catalogueText('en', key));
  expect(page.text).not.toContain('OpenID');
}

describe('callback failures on the error page (no flow to write them into)', () => {
  test('no state → our "incomplete answer" text, 400', async () => {
    const browser = new Browser(stack.appUrl);
    const { callback } = await started(browser);
    expectOurMessage(await land(browser, `${callback}?code=abc`), '/error', 'social.error.stateMissing');
  });

  test('a state that cannot be decrypted → "could not be checked", 400', async () => {
    const browser = new Browser(stack.appUrl);
    const { callback } = await started(browser);
    expectOurMessage(await land(browser, `${callback}?code=abc&state=${'ab'.repeat(40)}`), '/error', 'social.error.stateInvalid');
  });

  test('the state of one provider on another’s callback → provider mismatch, 400', async () => {
    const browser = new Browser(stack.appUrl);
    const { callback, state } = await started(browser, 'google');
    const other = callback.replace(/\/google$/, '/microsoft');
    expectOurMessage(await land(browser, `${other}?code=abc&state=${encodeURIComponent(state)}`), '/error', 'social.error.providerMismatch');
  });

  test('no continuity cookie (the callback opened in another browser, or the cookie gone) → start again, 400', async () => {
    const first = new Browser(stack.appUrl);
    const { authorize } = await started(first);
    const back = await signInAtProvider(authorize, { email: 'ada@example.com' });
    expect(back.method).toBe('GET');
    const other = new Browser(stack.appUrl);
    expectOurMessage(await land(other, back.url), '/error', 'social.error.continuityMissing');
  });

  test('the state of an older attempt while the cookie holds a newer one → "started in another tab", 400', async () => {
    const browser = new Browser(stack.appUrl);
    const older = await started(browser);
    await started(browser); // the continuity cookie now holds this attempt's state
    const back = await signInAtProvider(older.authorize, { email: 'ada@example.com' });
    expectOurMessage(await land(browser, back.url), '/error', 'social.error.stateMismatch');
  });

  test('a flow that expired while the user was at the provider → "took too long, start again", 410', async () => {
    const browser = new Browser(stack.appUrl);
    const { authorize } = await started(browser);
    const back = await signInAtProvider(authorize, { email: 'ada@example.com' });
    if (!onRealKratos) clock.advance(FLOW_LIFESPAN_MS + 1_000);
    else await sleepPast(FLOW_LIFESPAN_MS); // real Kratos reads the real time
    const page = await land(browser, back.url);
    expectOurMessage(page, '/error', 'flowError.self_service_flow_expired');
    expect(page.status).toBe(410);
  });

  test('JSON callers of the error page get the same text and status', async () => {
    const browser = new Browser(stack.appUrl);
    const { callback } = await started(browser);
    const landed = await land(browser, `${callback}?code=abc`);
    const json = await browser.get(new URL(landed.url).pathname + new URL(landed.url).search, { accept: 'application/json' });
    expect(json.status).toBe(400);
    expect(JSON.parse(json.text)).toMatchObject({ message: catalogueText('en', 'social.error.stateMissing'), meta: { socialFailure: 'stateMissing' } });
  });
});

describe('callback failures on the sign-in form (written into the flow)', () => {
  test('the provider answers an error → our "the provider couldn’t sign you in", 400', async () => {
    const browser = new Browser(stack.appUrl);
    const { callback, state } = await started(browser);
    const page = await land(browser, `${callback}?state=${encodeURIComponent(state)}&error=temporarily_unavailable&error_description=try+later`);
    expectOurMessage(page, '/sign-in', 'social.error.providerError');
  });

  test('the user cancels at the provider (access_denied) → "you cancelled", 400', async () => {
    const browser = new Browser(stack.appUrl);
    const { authorize } = await started(browser);
    const back = await signInAtProvider(authorize, { cancel: true });
    expectOurMessage(await land(browser, back.url), '/sign-in', 'social.error.cancelled');
  });

  test('a cancel at Apple (its form post on the stand-in, a redirect on real Kratos’s generic type) → "you cancelled", 400', async () => {
    const browser = new Browser(stack.appUrl);
    const { authorize } = await started(browser, 'apple');
    const back = await signInAtProvider(authorize, { cancel: true });
    expect(back.method).toBe(onRealKratos ? 'GET' : 'POST');
    const answer = back.method === 'GET' ? await browser.get(back.url) : await browser.post(back.url, back.form);
    expectOurMessage(await followOn(stack, browser, answer, back.url), '/sign-in', 'social.error.cancelled');
  });

  test('no code → "didn’t finish signing you in", 400', async () => {
    const browser = new Browser(stack.appUrl);
    const { callback, state } = await started(browser);
    expectOurMessage(await land(browser, `${callback}?state=${encodeURIComponent(state)}`), '/sign-in', 'social.error.codeMissing');
  });
});

describe('after validation', () => {
  test('a code the provider refuses at its token endpoint → "didn’t confirm your sign-in", a 4xx although Kratos says 500', async () => {
    const browser = new Browser(stack.appUrl);
    const { callback, state } = await started(browser);
    const page = await land(browser, `${callback}?state=${encodeURIComponent(state)}&code=not-a-code-the-provider-issued`);
    // Kratos stores oauth2's error ('oauth2: "invalid_grant" …', a 500) for the error UI; our page answers it with our text and a 4xx.
    expectOurMessage(page, '/error', 'social.error.exchangeFailed');
  });
});
