import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { createTestClock } from '../../../embedded/clock.ts';
import { STRONG_PASSWORD, uniqueEmail, useIdentities } from '../../support/fixtures.ts';
import { alerts, barAddress, Browser, formAction, hiddenValue, openSignIn, openSignUp, visibleText } from '../../support/http.ts';
import { onRealKratos, startStack, type Stack } from '../../support/stack.ts';
import { catalogueText } from '../../support/browser.ts';
import { startAppOnFake, startFakeKratos, GOOGLE_AUTHORIZE } from '../../support/fake-kratos.ts';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;
// Real Kratos reads the real time: there flows live three seconds and the expiry tests wait for them.
const FLOW_LIFESPAN_MS = onRealKratos ? 3_000 : 60_000;

describe('against the identity service', () => {
  let stack: Stack;
  // The stand-in's time: moved past the flow lifespan instead of waiting for it. Real Kratos reads the
  // real time: there the stack has no test clock and the tests wait until Kratos calls the flow gone.
  const clock = createTestClock();
  beforeAll(async () => {
    stack = await startStack({
      identityConfig: {
        selfservice: { flows: { login: { lifespan: `${FLOW_LIFESPAN_MS}ms` }, registration: { lifespan: `${FLOW_LIFESPAN_MS}ms` } } },
      } as never,
      clock: onRealKratos ? undefined : clock,
    });
  });
  afterAll(() => stack?.close());
  const identities = useIdentities(() => stack.identity.adminUrl);
  /** Past the lifespan of `browser`'s flow `id`: the stand-in's clock moves; real Kratos is asked (as that browser) until it answers 410. */
  const expire = async (browser: Browser, kind: 'login' | 'registration', id: string) => {
    if (!onRealKratos) return void clock.advance(FLOW_LIFESPAN_MS + 1_000);
    await vi.waitFor(
      async () => {
        const answer = await fetch(`${stack.identity.publicUrl}/self-service/${kind}/flows?id=${id}`, {
          headers: { accept: 'application/json', cookie: browser.cookieHeader() },
        });
        expect(answer.status).toBe(410);
      },
      { timeout: FLOW_LIFESPAN_MS + 5_000, interval: 100 },
    );
  };

  test('expired login flow on submit: a new flow with Kratos’s expiry message, the e-mail kept; it then works', async () => {
    const email = uniqueEmail('expired');
    await identities.create({ email });
    const browser = new Browser(stack.appUrl);
    const { action, csrf } = await openSignIn(browser, '?return_to=%2Fprofile-settings');
    await expire(browser, 'login', UUID.exec(action)![0]);
    const answer = await browser.post(action, { csrf_token: csrf, identifier: email, password: STRONG_PASSWORD });
    expect(answer.status).toBe(410);
    expect(answer.text).toContain('data-message-id="4010001"');
    expect(answer.text).toContain(`value="${email}"`);
    const next = formAction(answer.text, 'sign-in-form')!;
    expect(UUID.exec(next)![0]).not.toBe(UUID.exec(action)![0]);
    expect(next).toContain('return_to=%2Fprofile-settings');
    const retry = await browser.post(next, { csrf_token: hiddenValue(answer.text, 'csrf_token')!, identifier: email, password: STRONG_PASSWORD });
    expect(retry.status).toBe(303);
    expect(retry.location).toBe(`${stack.appUrl}/profile-settings`);
  });

  test('expired flow on GET: a fresh flow shown at once, parameters kept', async () => {
    const browser = new Browser(stack.appUrl);
    const { action } = await openSignIn(browser, '?loginHint=a%40example.com');
    const old = UUID.exec(action)![0];
    await expire(browser, 'login', old);
    const answer = await browser.get(`/sign-in?flow=${old}&loginHint=a%40example.com`);
    expect(answer.status).toBe(200);
    const next = new URL(formAction(answer.text, 'sign-in-form')!, stack.appUrl);
    expect(next.searchParams.get('flow')).toMatch(UUID);
    expect(next.searchParams.get('flow')).not.toBe(old);
    expect(next.searchParams.get('loginHint')).toBe('a@example.com');
    expect(new URL(barAddress(answer.text)!, stack.appUrl).searchParams.get('flow')).toBe(next.searchParams.get('flow'));
  });

  test('expired registration flow (the 410 that the spec replaces): traits kept, the new flow carries 4040001', async () => {
    const browser = new Browser(stack.appUrl);
    const { action, csrf } = await openSignUp(browser);
    await expire(browser, 'registration', UUID.exec(action)![0]);
    const email = uniqueEmail('regexpired');
    const answer = await browser.post(action, { csrf_token: csrf, 'traits.email': email, 'traits.name': 'Ada', method: 'profile', terms: 'on' });
    expect(answer.status).toBe(410);
    expect(answer.text).toContain('data-message-id="4040001"');
    expect(answer.text).toContain(`value="${email}"`);
    expect(answer.text).toContain('value="Ada"');
  });

  test('a flow from another browser (CSRF cookie mismatch) on GET is replaced by a flow of this browser', async () => {
    const alice = new Browser(stack.appUrl);
    const { action } = await openSignIn(alice);
    const alicesFlow = UUID.exec(action)![0];
    const mallory = new Browser(stack.appUrl);
    const answer = await mallory.get(`/sign-in?flow=${alicesFlow}`);
    expect(answer.status).toBe(200);
    expect(formAction(answer.text, 'sign-in-form')).toMatch(UUID);
    expect(answer.text).not.toContain(alicesFlow);
  });

  test('a flow from another browser on submit restarts cleanly: 403 form, then signing in works', async () => {
    const email = uniqueEmail('foreign');
    await identities.create({ email });
    const alice = new Browser(stack.appUrl);
    const { action, csrf } = await openSignIn(alice);
    const bob = new Browser(stack.appUrl);
    await openSignIn(bob); // bob has his own CSRF cookie
    const answer = await bob.post(action, { csrf_token: csrf, identifier: email, password: STRONG_PASSWORD });
    expect(answer.status).toBe(403);
    expect(alerts(answer.text)).toContain('Your form session has expired or was opened in another browser. Please try again.');
    expect(answer.text).toContain(`value="${email}"`);
    const retry = await bob.post(formAction(answer.text, 'sign-in-form')!, {
      csrf_token: hiddenValue(answer.text, 'csrf_token')!,
      identifier: email,
      password: STRONG_PASSWORD,
    });
    expect(retry.status).toBe(303);
    expect(retry.location).toBe('/');
  });

  test('403 in JSON: security_csrf_violation with meta.errorCode and the replacement flow id', async () => {
    const alice = new Browser(stack.appUrl);
    const { action, csrf } = await openSignIn(alice);
    const bob = new Browser(stack.appUrl);
    await openSignIn(bob);
    const answer = await bob.postJson(action, { csrf_token: csrf, identifier: 'x@example.com', password: STRONG_PASSWORD });
    expect(answer.status).toBe(403);
    const body = JSON.parse(answer.text);
    expect(body.code).toBe('security_csrf_violation');
    expect(body.meta.errorCode).toBe('security_csrf_violation');
    expect(body.meta.flowId).toMatch(UUID);
    expect(body.flow.ui.action).toContain(body.meta.flowId);
  });

  test("404 in JSON (a flow Kratos does not know): self_service_flow_missing in the reader's language, the new flow to go on with", async () => {
    const browser = new Browser(stack.appUrl);
    const { csrf } = await openSignIn(browser);
    const unknown = '00000000-1111-4222-8333-444444444441';
    const answer = await browser.postJson(
      `/sign-in?flow=${unknown}`,
      { csrf_token: csrf, identifier: 'x@example.com', password: STRONG_PASSWORD },
      { 'accept-language': 'es' },
    );
    expect(answer.status).toBe(404);
    const body = JSON.parse(answer.text);
    expect(body).toMatchObject({ code: 'self_service_flow_missing', message: catalogueText('es', 'flowError.restartedMissing') });
    expect(body.meta.flowId).toMatch(UUID);
    expect(body.meta.flowId).not.toBe(unknown);
    expect(body.flow.ui.action).toContain(body.meta.flowId);
  });

  test('a post without a flow id gets a new form, said the same way (JSON: self_service_flow_missing, not a bare "400")', async () => {
    const browser = new Browser(stack.appUrl);
    const { csrf } = await openSignIn(browser);
    const signInBody = { csrf_token: csrf, identifier: 'x@example.com', password: STRONG_PASSWORD };
    const posts: [string, Record<string, string>][] = [
      ['/sign-in', signInBody],
      ['/sign-in?flow=zzz', signInBody],
      ['/sign-up/verification', { csrf_token: csrf, email: 'x@example.com', method: 'code' }],
    ];
    for (const [path, form] of posts) {
      const answer = await browser.postJson(path, form, { 'accept-language': 'fr' });
      expect(answer.status).toBe(400);
      const body = JSON.parse(answer.text);
      expect(body).toMatchObject({ code: 'self_service_flow_missing', message: catalogueText('fr', 'flowError.restartedMissing') });
      expect(body.meta.flowId).toMatch(UUID);
    }
    const page = await browser.post('/sign-in', { csrf_token: csrf, identifier: 'x@example.com', password: STRONG_PASSWORD });
    expect(page.status).toBe(400);
    expect(visibleText(page.text)).toContain(catalogueText('en', 'flowError.restartedMissing'));
  });

  test('the Kratos error page (/error?id=) renders the stored error translated, with its status', async () => {
    const browser = new Browser(stack.appUrl);
    const stub = await browser.get('/error?id=stub:500');
    expect(stub.status).toBe(500);
    expect(stub.text).toContain('data-page="flow-error"');
    const unknown = await browser.get('/error?id=00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain('This error is unknown or has expired. Please start again.');
    const json = await browser.get('/error?id=stub:500', { accept: 'application/json' });
    expect(JSON.parse(json.text)).toMatchObject({ code: '500', meta: { errorId: null } });
  });
});

describe('rows the embedded service cannot produce, against a scripted Kratos over HTTP', () => {
  let fake: Awaited<ReturnType<typeof startFakeKratos>>;
  let app: Awaited<ReturnType<typeof startAppOnFake>>;
  beforeAll(async () => {
    fake = await startFakeKratos();
    app = await startAppOnFake(fake.url);
  });
  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });

  async function submit(identifier: string, json = false, extra: Record<string, string> = {}) {
    const browser = new Browser(app.appUrl);
    const { action, csrf } = await openSignIn(browser, '?loginHint=ada%40example.com');
    const body = { csrf_token: csrf, identifier, password: STRONG_PASSWORD, ...extra };
    return json ? browser.postJson(action, body) : browser.post(action, body);
  }

  test('4000010 → unactivated_account with a link to resend the verification e-mail', async () => {
    const page = await submit('unverified@example.com');
    expect(page.status).toBe(400);
    expect(page.text).toContain('data-message-id="4000010"');
    expect(page.text).toContain('href="/sign-up/resend-verification-email?email=unverified%40example.com"');
    const json = JSON.parse((await submit('unverified@example.com', true)).text);
    expect(json.code).toBe('unactivated_account');
  });

  test('422 browser_location_change_required → the provider, with login_hint for Google and the continuity cookie relayed', async () => {
    const page = await submit('', false, { provider: 'google', method: 'oidc' });
    expect(page.status).toBe(303);
    const to = new URL(page.location!);
    expect(to.origin + to.pathname).toBe(new URL(GOOGLE_AUTHORIZE).origin + new URL(GOOGLE_AUTHORIZE).pathname);
    expect(to.searchParams.get('login_hint')).toBe('ada@example.com');
    const continuity = page.setCookies.find((line) => line.startsWith('ory_kratos_continuity='));
    expect(continuity).toBeDefined();
    expect(continuity).not.toMatch(/domain=/i);
    const json = await submit('', true, { provider: 'google', method: 'oidc' });
    expect(json.status).toBe(422);
    expect(JSON.parse(json.text)).toMatchObject({
      code: 'browser_location_change_required',
      meta: { redirect_browser_to: expect.stringContaining('login_hint=ada%40example.com') },
    });
  });

  test('429 → too many requests', async () => {
    const page = await submit('limited@example.com');
    expect(page.status).toBe(429);
    expect(page.text).toContain('Too many attempts. Please wait a moment and try again.');
    const json = await submit('limited@example.com', true);
    expect(json.status).toBe(429);
    expect(JSON.parse(json.text)).toEqual({ code: '429', message: 'Too many attempts. Please wait a moment and try again.', meta: {} });
  });

  test('others (500) → the reason, never a crash page', async () => {
    const page = await submit('boom@example.com');
    expect(page.status).toBe(500);
    expect(page.text).toContain('data-page="flow-error"');
    expect(page.text).toContain('database is down');
    const json = await submit('boom@example.com', true);
    expect(JSON.parse(json.text)).toEqual({ code: '500', message: 'database is down', meta: {} });
  });

  test('400 with a flow → first message and its spec code', async () => {
    const json = await submit('wrong@example.com', true);
    expect(json.status).toBe(400);
    expect(JSON.parse(json.text)).toMatchObject({ code: 'incorrect_email_password', message: 'Incorrect email or password.' });
  });
});
