import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { createTestClock } from '../../../embedded/clock.ts';
import { onRealKratos } from '../../support/stack.ts';
import { startProfileStack, useProfileUsers, type ProfileStack } from '../profile/profile-stack.ts';

// The backend client inside the real app: tokens from the identity tokenizer, kept per session,
// regenerated when forced or expired, `token_expired` retried at most twice, never sent to the browser.

let env: ProfileStack;
beforeAll(async () => {
  env = await startProfileStack();
});
afterAll(() => env?.close());
const users = useProfileUsers(() => env);

const currentUserCalls = () => env.backendProxy.seen.filter((s) => s.path === '/api/user/get-current-user');

describe('authorization token cache', () => {
  test('one tokenizer call serves the session’s later backend calls; another session gets its own token', async () => {
    const a = await users.signedIn({ prefix: 'token-a' });
    const callsAfterFirstPage = env.tokenizerCalls();
    const seenBefore = currentUserCalls().length;
    for (let i = 0; i < 3; i += 1) expect((await a.browser.get(a.settingsAction)).status).toBe(200);
    expect(env.tokenizerCalls()).toBe(callsAfterFirstPage);
    const used = currentUserCalls()
      .slice(seenBefore)
      .map((s) => s.authorization);
    expect(used).toHaveLength(3);
    expect(new Set(used).size).toBe(1);
    const claims = decodeJwt(used[0]!.replace('Bearer ', ''));
    expect(claims.sub).toBe(a.id);
    expect(claims.aud).toBe('accounts-backend');

    const b = await users.signedIn({ prefix: 'token-b' });
    expect(env.tokenizerCalls()).toBe(callsAfterFirstPage + 1);
    const last = currentUserCalls().at(-1)!.authorization!;
    expect(decodeJwt(last.replace('Bearer ', '')).sub).toBe(b.id);
  });

  test('avatar calls force a new token, which later calls then reuse', async () => {
    const u = await users.signedIn({ prefix: 'token-force' });
    const before = env.tokenizerCalls();
    const removed = await u.browser.postJson('/profile-settings/avatar/remove', {}, { 'x-csrf-token': u.csrf });
    expect(removed.status).toBe(200);
    expect(env.tokenizerCalls()).toBe(before + 1);
    const forced = env.backendProxy.seen.filter((s) => s.path === '/api/user/remove-avatar').at(-1)!.authorization;
    expect((await u.browser.get(u.settingsAction)).status).toBe(200);
    expect(env.tokenizerCalls()).toBe(before + 1);
    expect(currentUserCalls().at(-1)!.authorization).toBe(forced);
  });

  test('the token never reaches the browser', async () => {
    const u = await users.signedIn({ prefix: 'token-leak' });
    const page = await u.browser.get(u.settingsAction);
    const json = await u.browser.get(u.settingsAction, { accept: 'application/json' });
    const tokens = env.bearerTokens();
    expect(tokens.length).toBeGreaterThan(0);
    for (const token of tokens) {
      const signature = token.split('.')[2]!;
      for (const answer of [page, json]) {
        expect(answer.text).not.toContain(signature);
        expect([...answer.headers.values()].join('\n')).not.toContain(signature);
      }
    }
  });
});

describe('token_expired', () => {
  test('is retried with a fresh token and the page works', async () => {
    const u = await users.signedIn({ prefix: 'expired-once' });
    const before = env.tokenizerCalls();
    const seen = currentUserCalls().length;
    env.backendProxy.expireNext = 1;
    const page = await u.browser.get(u.settingsAction);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('can’t be changed right now');
    const calls = currentUserCalls().slice(seen);
    expect(calls).toHaveLength(2);
    expect(calls[0]!.authorization).not.toBe(calls[1]!.authorization);
    expect(env.tokenizerCalls()).toBe(before + 1);
  });

  test('is retried at most twice, then fails cleanly (503, translated) without a fourth attempt', async () => {
    const u = await users.signedIn({ prefix: 'expired-always' });
    const seen = env.backendProxy.seen.filter((s) => s.path === '/api/user/remove-avatar').length;
    env.backendProxy.expireNext = 10;
    const answer = await u.browser.postJson('/profile-settings/avatar/remove', {}, { 'x-csrf-token': u.csrf });
    const left = env.backendProxy.expireNext;
    env.backendProxy.expireNext = 0;
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.text)).toMatchObject({
      code: 'backend_unavailable',
      message: 'A service is temporarily unavailable. Please try again in a moment.',
    });
    const attempts = env.backendProxy.seen.filter((s) => s.path === '/api/user/remove-avatar').slice(seen);
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts.map((a) => a.authorization)).size).toBe(3);
    expect(left).toBe(7);
  });

  test('a token the backend refuses (401 unauthorized) is not retried and does not send a signed-in user to sign in', async () => {
    const u = await users.signedIn({ prefix: 'refused' });
    const seen = currentUserCalls().length;
    env.backendProxy.refuseNext = 1;
    const page = await u.browser.get(u.settingsAction);
    env.backendProxy.refuseNext = 0;
    expect(page.status).toBe(200);
    expect(page.text).toContain('Your picture can’t be changed right now.');
    expect(currentUserCalls().length).toBe(seen + 1);
  });

  test('other backend errors are not retried', async () => {
    const u = await users.signedIn({ prefix: 'no-retry' });
    const seen = env.backendProxy.seen.filter((s) => s.path === '/api/user/reactivate-account').length;
    // Reactivating an active account is a 409 from the backend: one call, then back to the page.
    const answer = await u.browser.post('/profile-settings/reactivate', { _csrf: u.csrf });
    expect(answer.status).toBe(303);
    expect(env.backendProxy.seen.filter((s) => s.path === '/api/user/reactivate-account').length).toBe(seen + 1);
  });
});

describe('token regeneration on expiry', () => {
  // The tokenizer stamps `exp` by the stand-ins' clock and the app judges its stored tokens by the same
  // clock (startProfileStack hands it to the app's backend client): time is moved, not waited for. Real
  // Kratos stamps it by the real time, so there the test waits until the stored token is stale.
  const clock = createTestClock();
  let short: ProfileStack;
  beforeAll(async () => {
    // Tokens living 12 s (15 s on real Kratos, where time passes between the steps) are treated as
    // expired 10 s early: on the stand-in, after 2 s the stored one is stale.
    short = await startProfileStack({
      identityConfig: { session: { whoami: { tokenizer: { templates: { authorization: { ttl: onRealKratos ? '15s' : '12s' } } } } } } as never,
      ...(onRealKratos ? {} : { clock }),
    });
  });
  afterAll(() => short?.close());
  const shortUsers = useProfileUsers(() => short);

  test('a stored token past its expiry is replaced by a new one', async () => {
    const u = await shortUsers.signedIn({ prefix: 'regen' });
    const before = short.tokenizerCalls();
    expect((await u.browser.get(u.settingsAction)).status).toBe(200);
    expect(short.tokenizerCalls()).toBe(before);
    // Half a second later it is still good; two and a half seconds later (within 10 s of its end) it is not.
    if (!onRealKratos) clock.advance(500);
    expect((await u.browser.get(u.settingsAction)).status).toBe(200);
    expect(short.tokenizerCalls()).toBe(before);
    if (onRealKratos) {
      const { exp } = decodeJwt(short.bearerTokens().at(-1)!);
      await vi.waitFor(() => expect(Date.now()).toBeGreaterThanOrEqual(exp! * 1000 - 10_000), { timeout: 15_000, interval: 50 });
    } else {
      clock.advance(2_000);
    }
    expect((await u.browser.get(u.settingsAction)).status).toBe(200);
    expect(short.tokenizerCalls()).toBe(before + 1);
  });
});

describe('backend outage', () => {
  test('the page still works (without the avatar), and avatar calls fail with a translated 503, never a 500', async () => {
    const u = await users.signedIn({ prefix: 'outage' });
    const target = env.backendProxy.target;
    env.backendProxy.target = 'http://127.0.0.1:9';
    try {
      const page = await u.browser.get(u.settingsAction);
      expect(page.status).toBe(200);
      expect(page.text).toContain('Your picture can’t be changed right now.');
      expect(page.text).toContain('id="profile-name-form"');
      const removed = await u.browser.postJson('/profile-settings/avatar/remove', {}, { 'x-csrf-token': u.csrf });
      expect(removed.status).toBe(503);
      expect(JSON.parse(removed.text)).toMatchObject({ code: 'backend_unavailable' });
      const viaForm = await u.browser.post(`/profile-settings/avatar/remove?flow=${new URL(u.settingsAction, env.appUrl).searchParams.get('flow')}`, {
        _csrf: u.csrf,
      });
      expect(viaForm.status).toBe(503);
      expect(viaForm.text).toContain('A service is temporarily unavailable.');
      // Name changes go to Kratos only: they keep working.
      const name = await u.browser.post(u.settingsAction, { csrf_token: u.flowCsrf, method: 'profile', 'traits.name': 'Offline Ada' });
      expect(name.status).toBe(303);
    } finally {
      env.backendProxy.target = target;
    }
  });
});
