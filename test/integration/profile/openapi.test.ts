import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { postMultipart } from '../../support/http.ts';
import { openApiContract, type Contract } from '../../support/openapi-contract.ts';
import { GIF, makePng } from './images.ts';
import { startProfileStack, useProfileUsers, type ProfileStack } from './profile-stack.ts';

// Every JSON answer of the profile endpoints matches the served OpenAPI document (the invitation's and
// Canny's are checked in their own folders).

let env: ProfileStack;
let contract: Contract;
beforeAll(async () => {
  env = await startProfileStack();
  const document = await (await fetch(`${env.appUrl}/swagger/openapi.json`)).json();
  contract = openApiContract(document as never);
});
afterAll(() => env?.close());
const users = useProfileUsers(() => env);

const json = (text: string) => JSON.parse(text) as unknown;

describe('OpenAPI entries', () => {
  test('every profile endpoint is documented', () => {
    for (const [method, path] of [
      ['get', '/profile-settings'],
      ['post', '/profile-settings'],
      ['post', '/profile-settings/avatar'],
      ['post', '/profile-settings/avatar/remove'],
      ['post', '/profile-settings/delete-account'],
      ['post', '/profile-settings/reactivate'],
      ['get', '/profile-settings/account-deleted'],
    ] as const) {
      expect(contract.has(method, path), `${method} ${path}`).toBe(true);
    }
  });

  test('profile answers match their documented shapes', async () => {
    const u = await users.signedIn({ prefix: 'openapi' });
    const state = await u.browser.get(u.settingsAction, { accept: 'application/json' });
    contract.response('get', '/profile-settings', 200, json(state.text));

    const saved = await u.browser.postJson(u.settingsAction, { csrf_token: u.flowCsrf, method: 'profile', traits: { name: 'Documented' } });
    contract.response('post', '/profile-settings', saved.status, json(saved.text));
    const invalid = await u.browser.postJson(u.settingsAction, { csrf_token: u.flowCsrf, method: 'password', password: '' });
    expect(invalid.status).toBe(400);
    contract.response('post', '/profile-settings', 400, json(invalid.text));

    const flow = new URL(u.settingsAction, env.appUrl).search;
    const uploaded = await postMultipart(
      env.appUrl,
      u.browser.cookieHeader(),
      `/profile-settings/avatar${flow}`,
      [
        { name: '_csrf', value: u.csrf },
        { name: 'file', filename: 'a.png', data: makePng() },
      ],
      { accept: 'application/json' },
    );
    expect(uploaded.status).toBe(200);
    contract.response('post', '/profile-settings/avatar', 200, uploaded.json());
    const refused = await postMultipart(
      env.appUrl,
      u.browser.cookieHeader(),
      `/profile-settings/avatar${flow}`,
      [
        { name: '_csrf', value: u.csrf },
        { name: 'file', filename: 'a.gif', data: GIF },
      ],
      { accept: 'application/json' },
    );
    expect(refused.status).toBe(400);
    contract.response('post', '/profile-settings/avatar', 400, refused.json());
    const removed = await u.browser.postJson('/profile-settings/avatar/remove', {}, { 'x-csrf-token': u.csrf });
    contract.response('post', '/profile-settings/avatar/remove', removed.status, json(removed.text));

    const deleted = await u.browser.postJson('/profile-settings/delete-account', {}, { 'x-csrf-token': u.csrf });
    contract.response('post', '/profile-settings/delete-account', deleted.status, json(deleted.text));
  });
});
