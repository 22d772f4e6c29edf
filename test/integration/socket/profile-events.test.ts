import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { liveSocket } from '../../../client/islands/socket.ts';
import { signIn, useIdentities } from '../../support/fixtures.ts';
import { Browser } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';
import { openProfile } from '../profile/profile-stack.ts';
import { socketUrl, tokenOf, waitFor } from './socket-support.ts';

// force-reload from the profile page (spec §4): a password change reaches the user's other devices
// (not the browser that changed it, whose session stays valid); deleting the account and signing out
// everywhere (the backend's auth/force-log-out) reach them all.

const NEW_PASSWORD = 'Another-Harbour-Quartz-58';
let env: Stack;
beforeAll(async () => {
  env = await startStack();
});
afterAll(() => env?.close());
const identities = useIdentities(() => env.identity.adminUrl);

/** A user signed in on the profile page, and the same user signed in on a second browser. */
async function twoDevices(prefix: string) {
  const user = await identities.signedIn(env.appUrl, { prefix });
  const profile = await openProfile(user.browser);
  const other = new Browser(env.appUrl);
  expect((await signIn(other, user.email)).status).toBe(303);
  return { u: { ...user, ...profile }, other };
}

function watch(browser: Browser) {
  const seen: string[] = [];
  const client = liveSocket({ url: socketUrl(env.appUrl), token: () => tokenOf(env.appUrl, browser), onSignedOut: () => seen.push('signed-out') });
  client.on('authenticated', () => seen.push('authenticated'));
  client.on('force-reload', () => seen.push('force-reload'));
  return { client, seen };
}

async function joined(identityId: string, count: number) {
  await waitFor(async () => (await env.liveSessions.io.in(`user:${identityId}`).fetchSockets()).length === count);
}

describe('force-reload from the profile page', () => {
  test("a password change reaches the user's other devices, not the browser that made it", async () => {
    const { u, other } = await twoDevices('live-pw');
    const here = watch(u.browser);
    const there = watch(other);
    try {
      await joined(u.id, 2);
      const saved = await u.browser.post(u.settingsAction, { csrf_token: u.flowCsrf, method: 'password', password: NEW_PASSWORD });
      expect(saved.status).toBe(303);
      await waitFor(() => there.seen.includes('force-reload'));
      // The same emit would have reached this browser by now: it is in the same user room.
      expect(here.seen).not.toContain('force-reload');
    } finally {
      here.client.close();
      there.client.close();
    }
  });

  test('deleting the account reaches every device', async () => {
    const { u, other } = await twoDevices('live-del');
    const here = watch(u.browser);
    const there = watch(other);
    try {
      await joined(u.id, 2);
      const deleted = await u.browser.post('/profile-settings/delete-account', { _csrf: u.csrf });
      expect(deleted.status).toBe(303);
      await waitFor(() => here.seen.includes('force-reload') && there.seen.includes('force-reload'));
    } finally {
      here.client.close();
      there.client.close();
    }
  });

  test("signing out everywhere calls the backend's auth/force-log-out: every device is signed out and told, this one lands on sign-in", async () => {
    const { u, other } = await twoDevices('live-everywhere');
    const here = watch(u.browser);
    const there = watch(other);
    try {
      await joined(u.id, 2);
      expect(u.page).toContain('id="sign-out-everywhere-form"');
      const forged = await u.browser.post('/profile-settings/sign-out-everywhere', {});
      expect(forged.status).toBe(403);
      const out = await u.browser.post('/profile-settings/sign-out-everywhere', { _csrf: u.csrf });
      expect(out.status).toBe(303);
      expect(out.location).toBe('/sign-in?logged_out=1');
      await waitFor(() => here.seen.includes('force-reload') && there.seen.includes('force-reload'));
      expect(await tokenOf(env.appUrl, other)).toBeNull();
      expect(await tokenOf(env.appUrl, u.browser)).toBeNull();
    } finally {
      here.client.close();
      there.client.close();
    }
  });
});
