// /profile-settings asks the backend for the user and Kratos for the settings flow at the same time
// (issue #17 item 5), on a GET (the flow to show) and on a post (the submitted flow, read to build the
// body; a refused avatar upload answered with the page): the proxies in front of both hold each of those calls until the other one has arrived too. Made
// one after another, the first call would wait for a second that only starts once it is answered: the
// fail-safe lets it go after HOLD_AT_MOST_MS and the test fails on `together`.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { getIdentity } from '../../support/fixtures.ts';
import { postMultipart } from '../../support/http.ts';
import { makePng } from './images.ts';
import { startProfileStack, useProfileUsers, type ProfileStack } from './profile-stack.ts';

let env: ProfileStack;
beforeAll(async () => {
  env = await startProfileStack();
});
afterAll(() => env?.close());
const users = useProfileUsers(() => env);

/** Only to end a sequential run's wait; a run that overlaps is released as soon as both calls are in. */
const HOLD_AT_MOST_MS = 2_000;

/** Holds the user lookup and the settings flow load until both are in flight (or the fail-safe). */
function holdUntilBothArrive() {
  const arrived = new Set<string>();
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const gate = { together: false, timedOut: false, arrived };
  const failSafe = setTimeout(() => {
    gate.timedOut = true;
    release();
  }, HOLD_AT_MOST_MS);
  const arrive = (call: string) => {
    arrived.add(call);
    if (arrived.size === 2 && !gate.timedOut) {
      gate.together = true;
      clearTimeout(failSafe);
      release();
    }
    return released;
  };
  env.backendProxy.hold = (path) => (path.startsWith('/api/user/get-current-user') ? arrive('user') : undefined);
  env.identityProxy.hold = (path) => (/^\/self-service\/settings\/(flows\?|browser)/.test(path) ? arrive('flow') : undefined);
  return gate;
}

function stopHolding() {
  env.backendProxy.hold = undefined;
  env.identityProxy.hold = undefined;
}

test.each([
  ['a first visit (a new flow)', () => '/profile-settings'],
  ['a visit with ?flow=', (settingsAction: string) => settingsAction],
])('the user and the settings flow are asked for together on %s', async (_name, address) => {
  const u = await users.signedIn({ name: 'Overlap Tester' });
  const gate = holdUntilBothArrive();
  try {
    const page = await u.browser.get(address(u.settingsAction));
    expect(page.status).toBe(200);
    expect(page.text).toContain('value="Overlap Tester"');
    expect([...gate.arrived].sort()).toEqual(['flow', 'user']);
    expect(gate.together).toBe(true);
  } finally {
    stopHolding();
  }
});

test('a post reads the user and the submitted flow together, and still saves', async () => {
  const u = await users.signedIn({ name: 'Before Overlap' });
  const gate = holdUntilBothArrive();
  try {
    const answer = await u.browser.post(u.settingsAction, { csrf_token: u.flowCsrf, method: 'profile', 'traits.name': 'After Overlap' });
    expect(answer.status).toBe(303);
    expect(answer.location).toBe(u.settingsAction);
    expect([...gate.arrived].sort()).toEqual(['flow', 'user']);
    expect(gate.together).toBe(true);
  } finally {
    stopHolding();
  }
  expect((await getIdentity(env.identityAdminUrl, u.id)).traits.name).toBe('After Overlap');
});

test('a post whose user lookup fails still saves (an outage leaves the page usable), as before', async () => {
  const u = await users.signedIn({ name: 'Outage Before' });
  const gate = holdUntilBothArrive();
  const backendUrl = env.backendProxy.target;
  env.backendProxy.target = 'http://127.0.0.1:9'; // nothing listens: the proxy answers 502
  try {
    const answer = await u.browser.post(u.settingsAction, { csrf_token: u.flowCsrf, method: 'profile', 'traits.name': 'Outage After' });
    expect(answer.status).toBe(303);
    expect(gate.together).toBe(true);
  } finally {
    stopHolding();
    env.backendProxy.target = backendUrl;
  }
  expect((await getIdentity(env.identityAdminUrl, u.id)).traits.name).toBe('Outage After');
});

test('a post to a flow Kratos does not know, read alongside the user, continues on a new flow as before', async () => {
  const u = await users.signedIn({ name: 'Gone Flow' });
  const unknownFlow = u.settingsAction.replace(/flow=[^&]+/, `flow=${randomUUID()}`);
  const gate = holdUntilBothArrive();
  try {
    const answer = await u.browser.post(unknownFlow, { csrf_token: u.flowCsrf, method: 'profile', 'traits.name': 'Not Saved' });
    expect(gate.together).toBe(true);
    expect(answer.status).toBe(303);
    expect(answer.location).toMatch(/^\/profile-settings\?flow=[0-9a-f-]{36}$/);
    expect(answer.location).not.toBe(unknownFlow);
  } finally {
    stopHolding();
  }
  expect((await getIdentity(env.identityAdminUrl, u.id)).traits.name).toBe('Gone Flow');
});

test('a refused avatar upload shows the page again with the user and the flow asked for together', async () => {
  const u = await users.signedIn({ name: 'Avatar Overlap' });
  const flow = new URL(u.settingsAction, env.appUrl).search;
  const twoFiles = [
    { name: '_csrf', value: u.csrf },
    { name: 'file', filename: 'one.png', type: 'image/png', data: makePng() },
    { name: 'file', filename: 'two.png', type: 'image/png', data: makePng() },
  ];
  const gate = holdUntilBothArrive();
  try {
    const answer = await postMultipart(env.appUrl, u.browser.cookieHeader(), `/profile-settings/avatar${flow}`, twoFiles);
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('Please upload one file at a time.');
    expect(answer.text).toContain('value="Avatar Overlap"');
    expect(gate.together).toBe(true);
  } finally {
    stopHolding();
  }
});
