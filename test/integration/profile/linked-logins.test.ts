// Profile settings → login services, over HTTP against the whole stack with the embedded sign-in
// providers (stand-in or real Kratos): link Microsoft through the provider and back, unlink it, the
// last way in refused, the provider's cancel and an account already linked elsewhere each shown
// translated in the section with a 4xx, and the link going through re-authentication first.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { alerts, formAction, hiddenValue, type Browser } from '../../support/http.ts';
import { signInAtProvider, type ProviderChoice } from '../../support/providers.ts';
import { startProfileStack, useProfileUsers, type ProfileStack, type SignedIn } from './profile-stack.ts';
import { loginsOf, socialSignUp, type Login } from './linked-logins-support.ts';

let env: ProfileStack;
beforeAll(async () => {
  env = await startProfileStack({ socialProviders: true });
});
afterAll(() => env?.close());
const users = useProfileUsers(() => env);

/** Posts the login-services form with one of its buttons. */
function press(u: Pick<SignedIn, 'browser' | 'settingsAction' | 'flowCsrf'>, button: { link: string } | { unlink: string }, headers?: Record<string, string>) {
  return u.browser.post(u.settingsAction, { csrf_token: u.flowCsrf, method: 'oidc', ...button }, headers);
}

/** At the provider: choose (or cancel), then back through Kratos's callback; returns where Kratos sends the browser. */
async function atProvider(browser: Browser, authorizeUrl: string, choice: ProviderChoice): Promise<string> {
  const back = await signInAtProvider(authorizeUrl, choice);
  const answer = back.method === 'GET' ? await browser.get(back.url) : await browser.post(back.url, back.form);
  expect(answer.status, answer.text.slice(0, 300)).toBeGreaterThanOrEqual(300);
  expect(answer.status).toBeLessThan(400);
  return new URL(answer.location!, back.url).href;
}

function row(page: string, provider: string): Login | undefined {
  return loginsOf(page).find((login) => login.provider === provider);
}

describe('an e-mail account links Microsoft and unlinks it', () => {
  test('Link → the provider (with login_hint) → back: "linked", the Unlink button; Unlink → not linked', async () => {
    const u = await users.signedIn({ prefix: 'link-ms' });
    expect(row(u.page, 'microsoft')).toEqual({ provider: 'microsoft', linked: false, button: 'link', disabled: false });
    expect(row(u.page, 'password')).toMatchObject({ linked: true });

    const link = await press(u, { link: 'microsoft' });
    expect(link.status).toBe(303);
    const authorize = new URL(link.location!);
    expect(authorize.origin).toBe(env.stack.providers!.microsoft.origin);
    expect(authorize.searchParams.get('login_hint')).toBe(u.email);

    const back = await atProvider(u.browser, authorize.href, { email: u.email });
    expect(back).toBe(new URL(u.settingsAction, env.appUrl).href);
    const page = await u.browser.get(back);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Microsoft is now linked. You can use it to sign in.');
    expect(row(page.text, 'microsoft')).toEqual({ provider: 'microsoft', linked: true, button: 'unlink', disabled: false });
    // Shown once: the page again is the plain page.
    expect((await u.browser.get(back)).text).not.toContain('Microsoft is now linked.');

    const unlink = await press({ ...u, flowCsrf: hiddenValue(page.text, 'csrf_token')! }, { unlink: 'microsoft' });
    expect(unlink.status).toBe(303);
    const after = await u.browser.get(unlink.location!);
    expect(after.text).toContain('Microsoft has been unlinked. You can no longer use it to sign in.');
    expect(row(after.text, 'microsoft')).toMatchObject({ linked: false, button: 'link' });
    // Profile linking is Kratos's alone: the backend's link-account record (the sign-in account-link process) is not touched.
    expect(env.backendProxy.seen.some((seen) => seen.path.startsWith('/api/user/confirm-link-account'))).toBe(false);
  });

  test('enhanced (X-Enhance) and JSON posts: the provider address to navigate to', async () => {
    const u = await users.signedIn({ prefix: 'link-modes' });
    const enhanced = await press(u, { link: 'google' }, { 'x-enhance': '1' });
    expect(enhanced.status).toBe(200);
    expect(new URL(enhanced.headers.get('x-redirect-to')!).origin).toBe(env.stack.providers!.google.origin);
    const json = await u.browser.postJson(u.settingsAction, { csrf_token: u.flowCsrf, method: 'oidc', link: 'dropbox' });
    expect(json.status).toBe(422);
    const body = JSON.parse(json.text) as { code: string; meta: { redirect_browser_to: string } };
    expect(body.code).toBe('browser_location_change_required');
    expect(new URL(body.meta.redirect_browser_to).origin).toBe(env.stack.providers!.dropbox.origin);
  });

  test('cancelled at the provider: the section says so, translated, with a 400; nothing is linked', async () => {
    const u = await users.signedIn({ prefix: 'link-cancel' });
    const link = await press(u, { link: 'microsoft' });
    const back = await atProvider(u.browser, link.location!, { cancel: true });
    const page = await u.browser.get(back);
    expect(page.status).toBe(400);
    expect(alerts(page.text)).toContain('Linking Microsoft was cancelled. Nothing has changed.');
    expect(row(page.text, 'microsoft')).toMatchObject({ linked: false, button: 'link' });
    const french = await u.browser.get(`${back}&lng=fr`);
    expect(french.status).toBe(200); // shown once
  });

  test('a return Kratos cannot tie to the flow (a forged state) ends on the settings page, not the error page: "interrupted", 400', async () => {
    const u = await users.signedIn({ prefix: 'link-forged' });
    const link = await press(u, { link: 'microsoft' });
    const back = await signInAtProvider(link.location!, { email: u.email });
    expect(back.method).toBe('GET');
    const forged = new URL(back.url);
    forged.searchParams.set('state', 'not-a-state-kratos-made');
    // Kratos sends such a failure to its error UI (no flow to write it into)…
    const answer = await u.browser.get(forged.href);
    expect(answer.status).toBe(303);
    const errorPage = new URL(answer.location!, forged);
    expect(errorPage.pathname).toBe('/error');
    // …which sends the browser back to the settings the link started from.
    const toSettings = await u.browser.get(errorPage.pathname + errorPage.search);
    expect(toSettings.status).toBe(303);
    expect(toSettings.location).toBe(u.settingsAction);
    const page = await u.browser.get(u.settingsAction);
    expect(page.status).toBe(400);
    expect(alerts(page.text)).toContain('Linking Microsoft was interrupted, so nothing has changed. Please start again from this page.');
    expect(row(page.text, 'microsoft')).toMatchObject({ linked: false, button: 'link' });
    // Once: the error page of another failure later is the error page again.
    expect((await u.browser.get(u.settingsAction)).status).toBe(200);
    expect((await u.browser.get(errorPage.pathname + errorPage.search)).status).toBe(400);
  });

  test('a Microsoft account that already signs in to another account is refused, translated, with a 400', async () => {
    const other = await socialSignUp(env, users.identities, 'microsoft');
    const u = await users.signedIn({ prefix: 'link-taken' });
    const link = await press(u, { link: 'microsoft' });
    const back = await atProvider(u.browser, link.location!, { email: other.email });
    const page = await u.browser.get(back);
    expect(page.status).toBe(400);
    expect(alerts(page.text)).toContain('This Microsoft account already signs in to another account, so it can’t be linked to this one.');
    expect(row(page.text, 'microsoft')).toMatchObject({ linked: false });
  });
});

describe('what a post may ask for', () => {
  test('a provider the flow does not offer, or an unlink of one not linked, is refused before Kratos', async () => {
    const u = await users.signedIn({ prefix: 'logins-bad' });
    const unknown = await u.browser.postJson(u.settingsAction, { csrf_token: u.flowCsrf, method: 'oidc', link: 'evil-idp' });
    expect(unknown.status).toBe(400);
    expect(JSON.parse(unknown.text)).toMatchObject({ code: 'validation_error' });
    const notLinked = await u.browser.postJson(u.settingsAction, { csrf_token: u.flowCsrf, method: 'oidc', unlink: 'google' });
    expect(notLinked.status).toBe(400);
  });
});

describe('the last way in', () => {
  test('a Google-only account: Google is linked, its Unlink disabled with the reason; a forced unlink is refused', async () => {
    const social = await socialSignUp(env, users.identities, 'google');
    const page = await social.browser.follow('/profile-settings');
    expect(page.status).toBe(200);
    expect(row(page.text, 'google')).toEqual({ provider: 'google', linked: true, button: 'unlink', disabled: true });
    expect(page.text).toContain('Google is the only way you can sign in, so it can’t be unlinked. Set a password or link another service first.');
    expect(page.text).toMatch(/aria-describedby="logins-google-reason"/);
    // Kratos offers no unlink, so our allow-list refuses it before Kratos: a 400 with the page again.
    const action = formAction(page.text, 'profile-logins-form')!;
    const forced = await social.browser.post(action, { csrf_token: hiddenValue(page.text, 'csrf_token')!, method: 'oidc', unlink: 'google' });
    expect(forced.status).toBe(400);
    expect(row(forced.text, 'google')).toMatchObject({ linked: true, disabled: true });
    const json = JSON.parse((await social.browser.get(page.url, { accept: 'application/json' })).text) as Record<string, unknown>;
    expect(json).toMatchObject({ passwordKind: 'changeLoginService', hasPassword: false });
    expect((json.linkedLogins as unknown[])[0]).toEqual({ provider: 'google', linked: true, action: 'lastWayIn' });
  });
});

describe('linking needs a recent sign-in', () => {
  // A sign-in is "recent" for PRIVILEGED seconds: long enough to sign in again and finish at the provider,
  // short enough to wait for (by asking Kratos, never by sleeping a fixed time).
  const PRIVILEGED = '4s';
  let stale: ProfileStack;
  beforeAll(async () => {
    stale = await startProfileStack({
      socialProviders: true,
      identityConfig: { selfservice: { flows: { settings: { privileged_session_max_age: PRIVILEGED } } } } as never,
    });
  });
  afterAll(() => stale?.close());
  const staleUsers = useProfileUsers(() => stale);

  /** Waits until Kratos finds the sign-in too old to link (JSON asks: it parks nothing). */
  async function untilTooOld(u: SignedIn): Promise<void> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const answer = await u.browser.postJson(u.settingsAction, { csrf_token: u.flowCsrf, method: 'oidc', link: 'apple' });
      if (answer.status === 403) return;
      if (Date.now() > deadline) throw new Error(`the sign-in never became too old: ${answer.status}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  test('Link → /sign-in?refresh=true → signed in again → the link continues to the provider by itself → linked', async () => {
    const u = await staleUsers.signedIn({ prefix: 'link-refresh' });
    await untilTooOld(u);
    const json = await u.browser.postJson(u.settingsAction, { csrf_token: u.flowCsrf, method: 'oidc', link: 'microsoft' });
    expect(json.status).toBe(403);
    expect(JSON.parse(json.text)).toMatchObject({
      code: 'session_refresh_required',
      meta: { redirect_browser_to: expect.stringContaining('/sign-in?refresh=true') },
    });

    const link = await press(u, { link: 'microsoft' });
    expect(link.status).toBe(303);
    const signIn = new URL(link.location!, stale.appUrl);
    expect(signIn.pathname).toBe('/sign-in');
    expect(signIn.searchParams.get('refresh')).toBe('true');
    expect(signIn.searchParams.get('return_to')).toBe(new URL(u.settingsAction, stale.appUrl).href);
    const form = await u.browser.follow(signIn.pathname + signIn.search);
    const again = await u.browser.post(formAction(form.text, 'sign-in-form')!, {
      csrf_token: hiddenValue(form.text, 'csrf_token')!,
      identifier: u.email,
      password: u.password!,
      method: 'password',
    });
    expect(again.status).toBe(303);
    const settings = new URL(again.location!, stale.appUrl);
    expect(settings.pathname + settings.search).toBe(u.settingsAction);
    // Back on the flow with a newer sign-in: no second click, straight on to the provider.
    const onward = await u.browser.get(u.settingsAction);
    expect(onward.status).toBe(303);
    const authorize = new URL(onward.location!);
    expect(authorize.origin).toBe(stale.stack.providers!.microsoft.origin);
    const page = await u.browser.get(await atProvider(u.browser, authorize.href, { email: u.email }));
    expect(page.text).toContain('Microsoft is now linked.');
    expect(row(page.text, 'microsoft')).toMatchObject({ linked: true });
    // Nothing was left to do again: no "make your change once more".
    expect(page.text).not.toContain('Make your change once more');
  });
});
