// The settings screen's answers the flow-screen runner gives it: a gone or foreign flow is replaced
// (browsers: a toast and the new flow; JSON: the error with the new flow id), another identity's flow is
// refused, a post without a flow goes back to the page, and an account waiting for deletion changes nothing.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { signIn } from '../../support/fixtures.ts';
import { Browser } from '../../support/http.ts';
import { startProfileStack, useProfileUsers, type ProfileStack } from './profile-stack.ts';

let env: ProfileStack;
beforeAll(async () => {
  env = await startProfileStack();
});
afterAll(() => env?.close());
const users = useProfileUsers(() => env);

const RESTARTED = 'The settings page had expired, so it was reloaded. Please make your change again.';
const FLOW = /^\/profile-settings\?flow=[0-9a-f-]{36}$/;

describe('POST /profile-settings on a flow that is not there', () => {
  test('an unknown flow: browsers go to a new flow with the toast; JSON gets 404 with the new flow id', async () => {
    const u = await users.signedIn({ prefix: 'settings-gone' });
    const gone = `/profile-settings?flow=${randomUUID()}`;
    const answer = await u.browser.post(gone, { csrf_token: u.flowCsrf, method: 'profile', 'traits.name': 'Lost' });
    expect(answer.status).toBe(303);
    expect(answer.location).toMatch(FLOW);
    const page = await u.browser.follow(answer.location!);
    expect(page.text).toContain(RESTARTED);

    const json = await u.browser.postJson(gone, { csrf_token: u.flowCsrf, method: 'profile', traits: { name: 'Lost' } });
    expect(json.status).toBe(404);
    const body = JSON.parse(json.text) as { code: string; meta: { flowId: string } };
    expect(body.meta.flowId).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("another identity's flow is refused (403) and the name stays as it was", async () => {
    const owner = await users.signedIn({ prefix: 'settings-owner', name: 'Owner' });
    const other = await users.signedIn({ prefix: 'settings-other' });
    const answer = await other.browser.post(owner.settingsAction, { csrf_token: owner.flowCsrf, method: 'profile', 'traits.name': 'Hijacked' });
    expect(answer.status).toBe(403);
    const state = JSON.parse((await owner.browser.get(owner.settingsAction, { accept: 'application/json' })).text) as { user: { name: string } };
    expect(state.user.name).toBe('Owner');
  });

  test('no flow id: JSON is 400 invalid_flow, a browser goes back to the page', async () => {
    const u = await users.signedIn({ prefix: 'settings-noflow' });
    const json = await u.browser.postJson('/profile-settings', { csrf_token: u.flowCsrf, method: 'profile', traits: { name: 'X' } });
    expect(json.status).toBe(400);
    expect(JSON.parse(json.text)).toMatchObject({ code: 'invalid_flow', meta: {} });
    const page = await u.browser.post('/profile-settings', { csrf_token: u.flowCsrf, method: 'profile', 'traits.name': 'X' });
    expect(page.status).toBe(303);
    expect(page.location).toBe('/profile-settings');
  });
});

describe('an account waiting for deletion', () => {
  test('a settings post changes nothing: JSON 403 account_pending_deletion, a browser goes to the reactivation offer', async () => {
    const u = await users.signedIn({ prefix: 'settings-pending', name: 'Before' });
    expect((await u.browser.postJson('/profile-settings/delete-account', {}, { 'x-csrf-token': u.csrf })).status).toBe(200);
    const back = new Browser(env.appUrl);
    expect((await signIn(back, u.email)).status).toBe(303);
    const offer = await back.follow('/profile-settings');
    expect(offer.text).toContain('data-page="reactivate-account"');
    const action = `/profile-settings?flow=${randomUUID()}`;
    const json = await back.postJson(action, { csrf_token: 'x', method: 'profile', traits: { name: 'After' } });
    expect(json.status).toBe(403);
    expect(JSON.parse(json.text)).toMatchObject({ code: 'account_pending_deletion', meta: {} });
    const page = await back.post(action, { csrf_token: 'x', method: 'profile', 'traits.name': 'After' });
    expect(page.status).toBe(303);
    expect(page.location).toBe('/profile-settings');
  });
});
