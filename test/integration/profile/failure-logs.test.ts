// What the profile's failed backend calls are logged as (spec §8's internal reasons, server/log-reasons.ts):
// the backend answers through the test proxy, which is told to fail the next call.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { LOG_REASONS } from '../../../server/log-reasons.ts';
import { startProfileStack, useProfileUsers, type ProfileStack } from './profile-stack.ts';

let env: ProfileStack;
beforeAll(async () => {
  env = await startProfileStack();
});
afterAll(() => env?.close());
const users = useProfileUsers(() => env);

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
});
