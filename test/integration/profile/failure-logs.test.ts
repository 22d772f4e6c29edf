// What failed backend calls of the profile and of the sign-in's account link are logged as (spec §8's
// internal reasons, server/log-reasons.ts): the backend answers through the test proxy, which is told to
// fail the next call (or the next call to one path).
import { afterAll, beforeAll, expect, test } from 'vitest';
import { LOG_REASONS } from '../../../server/log-reasons.ts';
import { signIn, STRONG_PASSWORD, useIdentities } from '../../support/fixtures.ts';
import { Browser, formAction, hiddenValue } from '../../support/http.ts';
import { socialRoundTrip } from '../social/social-support.ts';
import { startProfileStack, useProfileUsers, type ProfileStack } from './profile-stack.ts';

let env: ProfileStack;
beforeAll(async () => {
  env = await startProfileStack({ socialProviders: true });
});
afterAll(() => env?.close());
const users = useProfileUsers(() => env);
const identities = useIdentities(() => env.identityAdminUrl);

type LogLine = { msg?: string; reason?: string; code?: string; status?: number };

/** The app's log lines with this message, newest last. */
function logged(message: string): LogLine[] {
  return env.stack
    .appLog()
    .map((line) => JSON.parse(line) as LogLine)
    .filter((line) => line.msg === message);
}

test('removing the picture when the backend fails: 503, logged with reason REMOVE_AVATAR', async () => {
  const u = await users.signedIn({ prefix: 'remove-fails' });
  env.backendProxy.failNext.push({ status: 500, code: 'internal_error' });
  const answer = await u.browser.postJson('/profile-settings/avatar/remove', {}, { 'x-csrf-token': u.csrf });
  expect(answer.status).toBe(503);
  expect(logged('backend call failed').at(-1)).toMatchObject({ reason: LOG_REASONS.removeAvatar, code: 'internal_error', status: 500 });
});

test('a backend answer with no better word (sign out everywhere refused with a code we do not know): logged as UNKNOWN_ERROR', async () => {
  const u = await users.signedIn({ prefix: 'unknown-fails' });
  env.backendProxy.failNext.push({ status: 400, code: 'something_new' });
  const answer = await u.browser.postJson('/profile-settings/sign-out-everywhere', {}, { 'x-csrf-token': u.csrf });
  expect(answer.status).toBe(400);
  expect(logged('backend call failed').at(-1)).toMatchObject({ reason: LOG_REASONS.unknown, code: 'something_new', status: 400 });
});

test('an outage of the backend is not called unknown: no reason but the call', async () => {
  const u = await users.signedIn({ prefix: 'outage' });
  env.backendProxy.failNext.push({ status: 503, code: 'unavailable' });
  const answer = await u.browser.postJson('/profile-settings/sign-out-everywhere', {}, { 'x-csrf-token': u.csrf });
  expect(answer.status).toBe(503);
  const line = logged('backend call failed').at(-1);
  expect(line).toMatchObject({ code: 'unavailable', status: 503 });
  expect(line?.reason).toBeUndefined();
  // The request's own line: no error made up by the logger, whose stack would only show the logger's code.
  const request = env.stack
    .appLog()
    .map((entry) => JSON.parse(entry) as LogLine & { res?: { statusCode?: number }; err?: unknown })
    .filter((entry) => entry.msg === 'request errored' && entry.res?.statusCode === 503)
    .at(-1);
  expect(request).toBeDefined();
  expect(request).not.toHaveProperty('err');
});

test('the backend not told of a provider linked at sign-in: the sign-in goes on to "linked", logged as LINK_ACCOUNT', async () => {
  const ada = await identities.create({ prefix: 'link-fails', name: 'Ada' });
  env.stack.providers!.addAccount('google', { email: ada.email, name: 'Ada at Google' });
  const browser = new Browser(env.appUrl);
  const prompt = await socialRoundTrip(env.stack, browser, '/sign-in', 'google', { email: ada.email });
  expect(prompt.text).toContain('data-link-state="PROMPT_SELECT_ACCOUNT"');
  const confirm = '/api/user/confirm-link-account';
  env.backendProxy.failNext.push({ status: 500, code: 'internal_error', path: confirm });
  const linked = await browser.post(formAction(prompt.text, 'sign-in-form')!, {
    csrf_token: hiddenValue(prompt.text, 'csrf_token')!,
    identifier: ada.email,
    password: STRONG_PASSWORD,
    method: 'password',
  });
  expect(linked.status, linked.text.slice(0, 300)).toBe(303);
  expect(new URL(linked.location!, env.appUrl).pathname).toBe('/sign-in/linked');
  expect(env.backendProxy.failNext).toEqual([]); // the failure was given to the confirmation
  expect(logged('backend confirm-link-account failed').at(-1)).toMatchObject({ reason: LOG_REASONS.linkAccount });
});

test('a password change the identity service takes but whose date is not recorded: changed, logged as UPDATE_IDENTITY', async () => {
  const u = await users.signedIn({ prefix: 'record-fails' });
  env.identityAdminProxy.failNext.push({ status: 500, code: 'internal_error', path: `/admin/identities/${u.id}`, method: 'PATCH' });
  const changed = await u.browser.post(u.settingsAction, { csrf_token: u.flowCsrf, method: 'password', password: 'Amber-Lantern-Orbit-58' });
  expect(changed.status).toBe(303);
  expect(env.identityAdminProxy.failNext).toEqual([]); // the failure was given to the metadata's write
  expect(logged('password change could not be recorded').at(-1)).toMatchObject({ reason: LOG_REASONS.updateIdentity });
  // The new password is the one that signs in.
  const again = new Browser(env.appUrl);
  expect((await signIn(again, u.email, 'Amber-Lantern-Orbit-58')).status).toBe(303);
});
