import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestClock } from '../../../embedded/clock.ts';
import { getIdentity, signIn, STRONG_PASSWORD } from '../../support/fixtures.ts';
import { barAddress, Browser, fieldError, formAction, hiddenValue } from '../../support/http.ts';
import { describeStandInOnly, standInOnly } from '../../support/stack.ts';
import { openProfile, startProfileStack, useProfileUsers, type ProfileStack } from './profile-stack.ts';

let env: ProfileStack;
beforeAll(async () => {
  env = await startProfileStack();
});
afterAll(() => env?.close());
const users = useProfileUsers(() => env);

const NEW_PASSWORD = 'Copper-Lantern-Meadow-58';

describe('GET /profile-settings', () => {
  test('needs a signed-in user', async () => {
    const answer = await new Browser(env.appUrl).get('/profile-settings');
    expect(answer.status).toBe(303);
    expect(answer.location).toBe(`/sign-in?return_to=${encodeURIComponent(`${env.appUrl}/profile-settings`)}`);
    const json = await new Browser(env.appUrl).get('/profile-settings', { accept: 'application/json' });
    expect(json.status).toBe(401);
  });

  test('creates a settings flow and shows the sections; the e-mail is read-only; internal traits are not fields', async () => {
    const u = await users.signedIn({ name: 'Grace Hopper' });
    expect(u.settingsAction).toMatch(/^\/profile-settings\?flow=[0-9a-f-]{36}$/);
    for (const id of ['avatar-upload-form', 'profile-name-form', 'profile-password-form']) expect(u.page).toContain(`id="${id}"`);
    expect(u.page).toMatch(/<input disabled=""[^>]*name="traits\.email" value="[^"]+"/);
    expect(u.page).toContain('value="Grace Hopper"');
    expect(u.page).not.toContain('name="traits.avatarRemoteId"');
    expect(u.page).not.toContain('name="traits.loginService"');
    expect(u.page).toContain('Delete my account');
    expect(u.page).toContain('Signing in with Google, Microsoft, Dropbox or Apple is not available yet.');
  });

  test('JSON answers the flow (ui.action is ours), the user and the password kind', async () => {
    const u = await users.signedIn();
    const answer = await u.browser.get(u.settingsAction, { accept: 'application/json' });
    expect(answer.status).toBe(200);
    const body = JSON.parse(answer.text);
    expect(body.flow.ui.action).toBe(u.settingsAction);
    expect(body.user).toMatchObject({ email: u.email, name: 'Ada', avatarUrl: null, state: 'active' });
    expect(body.passwordKind).toBe('default');
  });

  test('?confirm=delete-account renders the confirmation open (no JavaScript needed)', async () => {
    const u = await users.signedIn();
    const page = await u.browser.get('/profile-settings?confirm=delete-account');
    expect(page.status).toBe(200);
    // The first page is the flow's (decision 190); the address it puts in the bar keeps the marker, so a reload shows the same.
    expect(barAddress(page.text)).toMatch(/^\/profile-settings\?flow=[0-9a-f-]{36}&confirm=delete-account$/);
    expect(page.text).toMatch(/<div class="dialog-layer" id="delete-account-dialog" data-island="dialog">/);
    const form = /<form class="dialog__form" id="delete-account-dialog-form"[^>]*>[\s\S]*?<\/form>/.exec(page.text)?.[0] ?? '';
    expect(form).toContain('action="/profile-settings/delete-account"');
    expect(form).toContain('method="post"');
    expect(form.match(/name="_csrf" value="[0-9a-f]{64}"/g)).toHaveLength(1);
  });
});

describe('name', () => {
  test('saves the name through Kratos and shows the "saved" toast once', async () => {
    const u = await users.signedIn();
    const answer = await u.browser.post(u.settingsAction, { csrf_token: u.flowCsrf, method: 'profile', 'traits.name': '  Ada Lovelace ' });
    expect(answer.status).toBe(303);
    expect(answer.location).toBe(u.settingsAction);
    const page = await u.browser.get(answer.location!);
    expect(page.text).toContain('Your changes have been saved!');
    expect(page.text).toContain('value="Ada Lovelace"');
    // The field itself stops at the limit (the refusal below is for posts that do not go through it).
    expect(/<input[^>]*name="traits\.name"[^>]*>/.exec(page.text)?.[0]).toContain('maxLength="32"');
    expect((await getIdentity(env.identityAdminUrl, u.id)).traits.name).toBe('Ada Lovelace');
    const again = await u.browser.get(answer.location!);
    expect(again.text).not.toContain('Your changes have been saved!');
  });

  test('enhanced and JSON posts get their own answers', async () => {
    const u = await users.signedIn();
    const enhanced = await u.browser.post(u.settingsAction, { csrf_token: u.flowCsrf, method: 'profile', 'traits.name': 'Enhanced' }, { 'x-enhance': '1' });
    expect(enhanced.status).toBe(200);
    expect(enhanced.headers.get('x-redirect-to')).toBe(u.settingsAction);
    const json = await u.browser.postJson(u.settingsAction, { csrf_token: u.flowCsrf, method: 'profile', traits: { name: 'Jason' } });
    expect(json.status).toBe(200);
    expect(JSON.parse(json.text)).toMatchObject({ redirect_to: u.settingsAction, state: 'success', message: 'Your changes have been saved!' });
    expect((await getIdentity(env.identityAdminUrl, u.id)).traits.name).toBe('Jason');
  });

  test('a name over 32 characters is refused with a translated message and nothing changes', async () => {
    const u = await users.signedIn({ name: 'Short' });
    const answer = await u.browser.post(u.settingsAction, { csrf_token: u.flowCsrf, method: 'profile', 'traits.name': 'x'.repeat(33) }, { 'x-enhance': '1' });
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('id="profile-name-form"');
    expect(answer.text).toMatch(/field__error[^>]*>[^<]*32/);
    // What was typed stays in the field, to be shortened rather than typed again.
    expect(/<input[^>]*name="traits\.name"[^>]*>/.exec(answer.text)?.[0]).toContain(`value="${'x'.repeat(33)}"`);
    expect((await getIdentity(env.identityAdminUrl, u.id)).traits.name).toBe('Short');
  });

  test('mass assignment: extra traits, state, verification, admin metadata and other ids are never sent', async () => {
    const victim = await users.signedIn({ prefix: 'victim', name: 'Victim' });
    const u = await users.signedIn({ name: 'Mallory' });
    const before = await getIdentity(env.identityAdminUrl, u.id);
    const form = await u.browser.post(u.settingsAction, {
      csrf_token: u.flowCsrf,
      method: 'profile',
      'traits.name': 'Mallory Two',
      'traits.email': victim.email,
      'traits.verified': 'true',
      'traits.loginService': 'GOOGLE',
      'traits.avatarRemoteId': '0123456789abcdef0123456789abcdef.png',
      verified: 'true',
      state: 'inactive',
      metadata_admin: '{"role":"admin"}',
      metadata_public: '{"plan":"enterprise"}',
      identity_id: victim.id,
      id: victim.id,
      schema_id: 'admin',
    });
    expect(form.status).toBe(303);
    const json = await u.browser.postJson(u.settingsAction, {
      csrf_token: u.flowCsrf,
      method: 'profile',
      traits: { name: 'Mallory Three', email: victim.email, verified: true, state: 'inactive' },
      verifiable_addresses: [{ value: victim.email, verified: true }],
      metadata_admin: { role: 'admin' },
      state: 'inactive',
      identity: { id: victim.id },
    });
    expect(json.status).toBe(200);
    const after = await getIdentity(env.identityAdminUrl, u.id);
    expect(after.traits).toEqual({ ...before.traits, name: 'Mallory Three' });
    expect(after.state).toBe('active');
    expect(after.metadata_admin ?? null).toEqual(before.metadata_admin ?? null);
    expect(after.metadata_public ?? null).toEqual(before.metadata_public ?? null);
    const victimAfter = await getIdentity(env.identityAdminUrl, victim.id);
    expect(victimAfter.traits).toMatchObject({ name: 'Victim', email: victim.email });
  });

  test('a settings flow of another user is refused', async () => {
    const a = await users.signedIn({ name: 'Alice' });
    const b = await users.signedIn({ name: 'Bob' });
    const answer = await b.browser.post(a.settingsAction, { csrf_token: b.flowCsrf, method: 'profile', 'traits.name': 'Hijacked' });
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    expect((await getIdentity(env.identityAdminUrl, a.id)).traits.name).toBe('Alice');
    expect((await getIdentity(env.identityAdminUrl, b.id)).traits.name).toBe('Bob');
  });

  test('a forged Kratos CSRF token changes nothing', async () => {
    const u = await users.signedIn({ name: 'Honest' });
    const answer = await u.browser.post(u.settingsAction, { csrf_token: 'forged', method: 'profile', 'traits.name': 'Forged' });
    expect(answer.status).toBeGreaterThanOrEqual(300);
    expect((await getIdentity(env.identityAdminUrl, u.id)).traits.name).toBe('Honest');
  });
});

describe('password', () => {
  test('changes the password: the old one stops working, the new one signs in', async () => {
    const u = await users.signedIn();
    const answer = await u.browser.post(u.settingsAction, { csrf_token: u.flowCsrf, method: 'password', password: NEW_PASSWORD });
    expect(answer.status).toBe(303);
    const page = await u.browser.get(answer.location!);
    expect(page.text).toContain('Your password has been changed.');
    expect(page.text).toContain('profile-password--changedPassword');
    expect((await signIn(new Browser(env.appUrl), u.email, STRONG_PASSWORD)).status).toBe(400);
    expect((await signIn(new Browser(env.appUrl), u.email, NEW_PASSWORD)).status).toBe(303);
  });

  test('a password too similar to the e-mail is refused with Kratos’s translated message', async () => {
    const u = await users.signedIn();
    const similar = await u.browser.post(u.settingsAction, { csrf_token: u.flowCsrf, method: 'password', password: u.email });
    expect(similar.status).toBe(400);
    expect(similar.text).toContain('id="profile-password-form"');
    expect(fieldError(similar.text, 'field-password')).toBe('This password is too similar to your email. Please choose a different one.');
    const json = await u.browser.postJson(u.settingsAction, { csrf_token: u.flowCsrf, method: 'password', password: u.email });
    expect(json.status).toBe(400);
    expect(JSON.parse(json.text).code).toBe('similarity_password');
    expect((await signIn(new Browser(env.appUrl), u.email, STRONG_PASSWORD)).status).toBe(303);
  });

  test("after a refused password, the name form's answers show no password error: neither a name refused by our check nor a name saved", async () => {
    const u = await users.signedIn({ name: 'Before' });
    const similar = await u.browser.post(u.settingsAction, { csrf_token: u.flowCsrf, method: 'password', password: u.email });
    expect(fieldError(similar.text, 'field-password')).toBeTruthy();
    const tooLong = await u.browser.post(u.settingsAction, { csrf_token: u.flowCsrf, method: 'profile', 'traits.name': 'x'.repeat(33) });
    expect(tooLong.status).toBe(400);
    expect(fieldError(tooLong.text, 'field-traits-name')).toBeTruthy();
    expect(fieldError(tooLong.text, 'field-password')).toBeUndefined();
    const saved = await u.browser.post(u.settingsAction, { csrf_token: u.flowCsrf, method: 'profile', 'traits.name': 'After' });
    expect(saved.status).toBe(303);
    const page = await u.browser.get(saved.location!);
    expect(page.text).toContain('Your changes have been saved!');
    expect(fieldError(page.text, 'field-password')).toBeUndefined();
  });

  standInOnly('haveibeenpwned is off for real Kratos: the tests have no network')('a leaked password is refused with Kratos’s translated message', async () => {
    const u = await users.signedIn();
    const leaked = await u.browser.post(u.settingsAction, { csrf_token: u.flowCsrf, method: 'password', password: 'password123' });
    expect(leaked.status).toBe(400);
    expect(leaked.text).toContain('id="profile-password-form"');
    expect(leaked.text).toMatch(/field__error/);
    const json = await u.browser.postJson(u.settingsAction, { csrf_token: u.flowCsrf, method: 'password', password: 'password123' });
    expect(json.status).toBe(400);
    expect(JSON.parse(json.text).code).toBeDefined();
    expect((await signIn(new Browser(env.appUrl), u.email, STRONG_PASSWORD)).status).toBe(303);
  });

  test('an empty password is caught before Kratos', async () => {
    const u = await users.signedIn();
    const answer = await u.browser.postJson(u.settingsAction, { csrf_token: u.flowCsrf, method: 'password', password: '' });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toMatchObject({ code: 'validation_error', meta: { field: 'password' } });
  });
});

describe('a password change that needs a fresh sign-in, on either identity service', () => {
  // privileged_session_max_age of 1 ms: every sign-in is too old for a password change at once, so no
  // clock has to move and real Kratos is tested too (that the change then goes through is tested below,
  // on the stand-in's clock).
  let strict: ProfileStack;
  beforeAll(async () => {
    strict = await startProfileStack({ identityConfig: { selfservice: { flows: { settings: { privileged_session_max_age: '1ms' } } } } as never });
  });
  afterAll(() => strict?.close());
  const strictUsers = useProfileUsers(() => strict);

  test('goes through sign-in with refresh=true and back to the same flow, told to submit again; nothing changes', async () => {
    const u = await strictUsers.signedIn({ prefix: 'strict' });
    const answer = await u.browser.post(u.settingsAction, { csrf_token: u.flowCsrf, method: 'password', password: NEW_PASSWORD });
    expect(answer.status).toBe(303);
    const target = new URL(answer.location!, strict.appUrl);
    expect(target.pathname).toBe('/sign-in');
    expect(target.searchParams.get('refresh')).toBe('true');
    expect(target.searchParams.get('return_to')).toBe(`${strict.appUrl}${u.settingsAction}`);
    const json = await u.browser.postJson(u.settingsAction, { csrf_token: u.flowCsrf, method: 'password', password: NEW_PASSWORD });
    expect(json.status).toBe(403);
    expect(JSON.parse(json.text)).toMatchObject({ code: 'session_refresh_required', meta: { redirect_browser_to: answer.location } });
    // A name change too: Kratos v1.3.1 asks for a recent sign-in on any profile save of an identity with a
    // verifiable address (it compares the addresses before and after, and a reloaded one never matches).
    const name = await u.browser.post(u.settingsAction, { csrf_token: u.flowCsrf, method: 'profile', 'traits.name': 'Not Yet' });
    expect(name.status).toBe(303);
    expect(name.location).toBe(answer.location);

    const signInPage = await u.browser.follow(answer.location!);
    expect(signInPage.status).toBe(200);
    const refreshed = await u.browser.post(formAction(signInPage.text, 'sign-in-form')!, {
      csrf_token: hiddenValue(signInPage.text, 'csrf_token')!,
      identifier: u.email,
      password: STRONG_PASSWORD,
      method: 'password',
    });
    expect(refreshed.status).toBe(303);
    expect(refreshed.location).toBe(`${strict.appUrl}${u.settingsAction}`);
    const back = await u.browser.get(u.settingsAction);
    expect(back.status).toBe(200);
    expect(back.text).toContain('we asked you to sign in again');
    expect((await signIn(new Browser(strict.appUrl), u.email, NEW_PASSWORD)).status).toBe(400);
    expect((await signIn(new Browser(strict.appUrl), u.email, STRONG_PASSWORD)).status).toBe(303);
  });
});

describeStandInOnly('moves the test clock past privileged_session_max_age')('stale session (privileged session expired)', () => {
  // The identity service judges the privileged session by its clock: moved past the limit, not waited for.
  const clock = createTestClock();
  let stale: ProfileStack;
  beforeAll(async () => {
    stale = await startProfileStack({ identityConfig: { selfservice: { flows: { settings: { privileged_session_max_age: '2s' } } } } as never, clock });
  });
  afterAll(() => stale?.close());
  const staleUsers = useProfileUsers(() => stale);

  test('a password change goes through sign-in with refresh=true and back to the same flow; nothing changes before', async () => {
    const u = await staleUsers.signedIn({ prefix: 'stale' });
    clock.advance(3_000);
    const answer = await u.browser.post(u.settingsAction, { csrf_token: u.flowCsrf, method: 'password', password: NEW_PASSWORD });
    expect(answer.status).toBe(303);
    const target = new URL(answer.location!, stale.appUrl);
    expect(target.pathname).toBe('/sign-in');
    expect(target.searchParams.get('refresh')).toBe('true');
    expect(target.searchParams.get('return_to')).toBe(`${stale.appUrl}${u.settingsAction}`);
    // Nothing changed: the old password still works, the new one does not.
    expect((await signIn(new Browser(stale.appUrl), u.email, NEW_PASSWORD)).status).toBe(400);
    expect((await signIn(new Browser(stale.appUrl), u.email, STRONG_PASSWORD)).status).toBe(303);

    const json = await u.browser.postJson(u.settingsAction, { csrf_token: u.flowCsrf, method: 'password', password: NEW_PASSWORD });
    expect(json.status).toBe(403);
    expect(JSON.parse(json.text)).toMatchObject({
      code: 'session_refresh_required',
      meta: { redirect_browser_to: answer.location },
    });
  });

  test('after signing in again the user comes back to the same flow, told to submit again, and the change works', async () => {
    const u = await staleUsers.signedIn({ prefix: 'stale-back' });
    clock.advance(3_000);
    const answer = await u.browser.post(u.settingsAction, { csrf_token: u.flowCsrf, method: 'password', password: NEW_PASSWORD });
    const signInPage = await u.browser.follow(answer.location!);
    expect(signInPage.status).toBe(200);
    const action = formAction(signInPage.text, 'sign-in-form');
    const csrf = hiddenValue(signInPage.text, 'csrf_token');
    expect(action).toBeDefined();
    const refreshed = await u.browser.post(action!, { csrf_token: csrf!, identifier: u.email, password: STRONG_PASSWORD, method: 'password' });
    expect(refreshed.status).toBe(303);
    expect(refreshed.location).toBe(`${stale.appUrl}${u.settingsAction}`);
    const back = await u.browser.get(u.settingsAction);
    expect(back.status).toBe(200);
    expect(back.text).toContain('we asked you to sign in again');
    const { flowCsrf } = await openProfile(u.browser);
    const retry = await u.browser.post(u.settingsAction, { csrf_token: flowCsrf, method: 'password', password: NEW_PASSWORD });
    expect(retry.status).toBe(303);
    expect(retry.location).toBe(u.settingsAction);
    expect((await signIn(new Browser(stale.appUrl), u.email, NEW_PASSWORD)).status).toBe(303);
  });
});
