import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestClock } from '../../../embedded/clock.ts';
import { getIdentity, signIn } from '../../support/fixtures.ts';
import { Browser, hiddenValue } from '../../support/http.ts';
import { onRealKratos, standInOnly } from '../../support/stack.ts';
import { openProfile, startProfileStack, useProfileUsers, type ProfileStack } from './profile-stack.ts';

// The stand-ins' clock: a sign-in can be dated in the past instead of waiting for it to age. Real Kratos
// reads the real time, so there the stack has no test clock and the old sign-in is not tested.
const clock = createTestClock();
let env: ProfileStack;
beforeAll(async () => {
  env = await startProfileStack(onRealKratos ? {} : { clock });
});
afterAll(() => env?.close());
const users = useProfileUsers(() => env);

describe('delete account and reactivation', () => {
  test('without our CSRF token nothing happens', async () => {
    const u = await users.signedIn({ prefix: 'del-csrf' });
    const answer = await u.browser.post('/profile-settings/delete-account', {});
    expect(answer.status).toBe(403);
    expect((await u.browser.get(u.settingsAction)).status).toBe(200);
  });

  test('deleting signs out everywhere; signing in again offers reactivation, which restores the account', async () => {
    const u = await users.signedIn({ prefix: 'del' });
    const other = new Browser(env.appUrl);
    expect((await signIn(other, u.email)).status).toBe(303);

    const answer = await u.browser.post('/profile-settings/delete-account', { _csrf: u.csrf });
    expect(answer.status).toBe(303);
    expect(answer.location).toBe('/profile-settings/account-deleted');
    const notice = await u.browser.get(answer.location!);
    expect(notice.status).toBe(200);
    expect(notice.text).toContain('Your account is scheduled for deletion on');
    expect(notice.text).toContain('Sign in within 30 days to restore it.');

    // Every session is gone, the other browser's too.
    for (const browser of [u.browser, other]) {
      const page = await browser.get('/profile-settings');
      expect(page.status).toBe(303);
      expect(page.location).toMatch(/^\/sign-in\?/);
    }

    // Signing in again within the grace period from the notice's button: back on the profile, which offers to restore the account.
    const link = /<a class="btn[^"]*" href="(\/sign-in\?[^"]*)">/.exec(notice.text)?.[1]?.replace(/&amp;/g, '&');
    expect(link).toBe('/sign-in?return_to=%2Fprofile-settings');
    const back = new Browser(env.appUrl);
    const signedIn = await signIn(back, u.email, undefined, new URL(link!, env.appUrl).search);
    expect(signedIn.status).toBe(303);
    expect(new URL(signedIn.location!, env.appUrl).pathname).toBe('/profile-settings');
    const page = await back.follow(signedIn.location!);
    expect(page.status).toBe(200);
    expect(page.text).toContain('data-page="reactivate-account"');
    expect(page.text).toContain('Your account is scheduled for deletion');
    const json = await back.get('/profile-settings', { accept: 'application/json' });
    expect(JSON.parse(json.text)).toMatchObject({ state: 'pending_deletion', reactivate: '/profile-settings/reactivate' });
    // Settings changes wait for the decision.
    const csrf = /name="_csrf" value="([0-9a-f]{64})"/.exec(page.text)![1]!;
    const restored = await back.post('/profile-settings/reactivate', { _csrf: csrf });
    expect(restored.status).toBe(303);
    expect(restored.location).toBe('/profile-settings');
    const after = await back.follow('/profile-settings');
    expect(after.text).toContain('data-page="profile-settings"');
    expect(after.text).toContain('Welcome back! Your account has been restored.');
  });

  test('an account waiting for deletion meets the restore offer at any sign-in, and goes on where it was going once restored', async () => {
    const u = await users.signedIn({ prefix: 'del-elsewhere' });
    expect((await u.browser.postJson('/profile-settings/delete-account', {}, { 'x-csrf-token': u.csrf })).status).toBe(200);
    expect((await getIdentity(env.identityAdminUrl, u.id)).metadata_public).toMatchObject({ deletionRequestedAt: expect.any(String) });

    // A sign-in bound elsewhere (here the product's home, as the document app's link would) stops at the offer first.
    const back = new Browser(env.appUrl);
    const signedIn = await signIn(back, u.email);
    expect(signedIn.status).toBe(303);
    const offerUrl = new URL(signedIn.location!, env.appUrl);
    expect(offerUrl.pathname).toBe('/profile-settings');
    expect(offerUrl.searchParams.get('return_to')).toBe('/');
    const json = await signIn(new Browser(env.appUrl), u.email, undefined, '', { accept: 'application/json' });
    expect(JSON.parse(json.text)).toMatchObject({ redirect_to: '/profile-settings?return_to=%2F' });
    const offer = await back.follow(signedIn.location!);
    expect(offer.text).toContain('data-page="reactivate-account"');
    expect(hiddenValue(offer.text, 'return_to')).toBe(`${env.appUrl}/`);
    // Opening the home page itself, signed in, leads there too, and so does a signed-in landing on /sign-in
    // (where social and One Tap sign-ins come back).
    const home = await back.get('/');
    expect(home.status).toBe(303);
    expect(home.location).toBe('/profile-settings?return_to=%2F');
    const landing = await back.get('/sign-in?return_to=%2F');
    expect(landing.status).toBe(303);
    expect(landing.location).toBe(`/profile-settings?return_to=${encodeURIComponent(`${env.appUrl}/`)}`);

    const restored = await back.post('/profile-settings/reactivate', {
      _csrf: hiddenValue(offer.text, '_csrf')!,
      return_to: hiddenValue(offer.text, 'return_to')!,
    });
    expect(restored.status).toBe(303);
    expect(restored.location).toBe(`${env.appUrl}/`);
    expect((await getIdentity(env.identityAdminUrl, u.id)).metadata_public).not.toHaveProperty('deletionRequestedAt');
    // Restored: the next sign-in goes straight on.
    expect((await signIn(new Browser(env.appUrl), u.email)).location).toBe('/');
  });

  test('a deletion marker the backend does not agree with (restored elsewhere) is dropped, and the sign-in goes on', async () => {
    const u = await users.identities.create({ prefix: 'del-stale-marker', metadataPublic: { deletionRequestedAt: '2026-01-01T00:00:00.000Z' } });
    const browser = new Browser(env.appUrl);
    const signedIn = await signIn(browser, u.email);
    expect(signedIn.location).toBe('/profile-settings?return_to=%2F');
    const onward = await browser.get(signedIn.location!);
    expect(onward.status).toBe(303);
    expect(onward.location).toBe(`${env.appUrl}/`);
    expect((await getIdentity(env.identityAdminUrl, u.id)).metadata_public).not.toHaveProperty('deletionRequestedAt');
  });

  test('JSON alone: the profile state carries our CSRF token, which deletes and then restores the account', async () => {
    const u = await users.signedIn({ prefix: 'del-json-only' });
    const state = JSON.parse((await u.browser.get('/profile-settings', { accept: 'application/json' })).text) as { csrf_token: string };
    expect(state.csrf_token).toMatch(/^[0-9a-f]{64}$/);
    expect((await u.browser.postJson('/profile-settings/delete-account', {}, { 'x-csrf-token': state.csrf_token })).status).toBe(200);

    const back = new Browser(env.appUrl);
    expect((await signIn(back, u.email)).status).toBe(303);
    const pending = JSON.parse((await back.get('/profile-settings', { accept: 'application/json' })).text) as { state: string; csrf_token: string };
    expect(pending).toMatchObject({ state: 'pending_deletion', csrf_token: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const restored = await back.postJson('/profile-settings/reactivate', {}, { 'x-csrf-token': pending.csrf_token });
    expect(restored.status).toBe(200);
    expect(JSON.parse(restored.text)).toMatchObject({ redirect_to: '/profile-settings', state: 'active' });
  });

  test('JSON: the deletion answer names the schedule', async () => {
    const u = await users.signedIn({ prefix: 'del-json' });
    const answer = await u.browser.postJson('/profile-settings/delete-account', {}, { 'x-csrf-token': u.csrf });
    expect(answer.status).toBe(200);
    const body = JSON.parse(answer.text);
    expect(body).toMatchObject({ redirect_to: '/profile-settings/account-deleted', state: 'pending_deletion', gracePeriodDays: 30 });
    expect(Date.parse(body.deletionScheduledAt)).toBeGreaterThan(Date.now() + 29 * 86_400_000);
  });
});

describe('delete account with an old sign-in', () => {
  standInOnly('dates the sign-in back on the test clock')(
    'sends the user through sign-in with refresh=true and back to the confirmation; nothing is deleted before',
    async () => {
      // PRIVILEGED_SESSION_MAX_AGE_MS (default: Kratos's one hour), shortened on the running app's config to a
      // minute. The app compares the session's authenticated_at with its own time, so the sign-in is dated a
      // minute and a second back on the stand-ins' clock instead of being waited out.
      const config = env.app.locals.config as Record<string, unknown>;
      const configured = config.PRIVILEGED_SESSION_MAX_AGE_MS;
      config.PRIVILEGED_SESSION_MAX_AGE_MS = 60_000;
      try {
        clock.set(Date.now() - 61_000);
        const u = await users.signedIn({ prefix: 'del-stale' });
        clock.set(Date.now());
        const deletions = env.backendProxy.seen.filter((s) => s.path === '/api/user/delete-account').length;
        const answer = await u.browser.post('/profile-settings/delete-account', { _csrf: u.csrf });
        expect(answer.status).toBe(303);
        const target = new URL(answer.location!, env.appUrl);
        expect(target.pathname).toBe('/sign-in');
        expect(target.searchParams.get('refresh')).toBe('true');
        expect(target.searchParams.get('return_to')).toBe(`${env.appUrl}/profile-settings?confirm=delete-account`);
        const json = await u.browser.postJson('/profile-settings/delete-account', {}, { 'x-csrf-token': u.csrf });
        expect(json.status).toBe(403);
        expect(JSON.parse(json.text)).toMatchObject({ code: 'session_refresh_required' });
        expect(env.backendProxy.seen.filter((s) => s.path === '/api/user/delete-account').length).toBe(deletions);
        expect((await u.browser.get(u.settingsAction)).status).toBe(200);

        // Signed in again just now, under the same limit: the deletion goes through.
        const fresh = new Browser(env.appUrl);
        expect((await signIn(fresh, u.email)).status).toBe(303);
        const { csrf } = await openProfile(fresh);
        const deleted = await fresh.postJson('/profile-settings/delete-account', {}, { 'x-csrf-token': csrf });
        expect(deleted.status).toBe(200);
        expect(env.backendProxy.seen.filter((s) => s.path === '/api/user/delete-account').length).toBe(deletions + 1);
      } finally {
        config.PRIVILEGED_SESSION_MAX_AGE_MS = configured;
      }
    },
  );
});
