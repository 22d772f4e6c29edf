import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Browser, uniqueEmail } from '../auth/helpers.ts';
import { openApiContract, type Contract } from '../auth/openapi-contract.ts';
import { GIF, makePng } from './images.ts';
import { postMultipart, startProfileStack, type ProfileStack } from './fixtures.ts';
import { signedInUser } from './session.ts';

// Every JSON answer of the profile, invitation and Canny endpoints matches the served OpenAPI document.

let env: ProfileStack;
let contract: Contract;
beforeAll(async () => {
  env = await startProfileStack();
  const document = await (await fetch(`${env.appUrl}/swagger/openapi.json`)).json();
  contract = openApiContract(document as never);
});
afterAll(() => env?.close());

const json = (text: string) => JSON.parse(text) as unknown;

describe('OpenAPI entries', () => {
  test('every new endpoint is documented', () => {
    for (const [method, path] of [
      ['get', '/profile-settings'],
      ['post', '/profile-settings'],
      ['post', '/profile-settings/avatar'],
      ['post', '/profile-settings/avatar/remove'],
      ['post', '/profile-settings/delete-account'],
      ['post', '/profile-settings/reactivate'],
      ['get', '/profile-settings/account-deleted'],
      ['get', '/sign-up/invitation'],
      ['post', '/sign-up/invitation'],
      ['get', '/authentication/canny'],
    ] as const) {
      expect(contract.has(method, path), `${method} ${path}`).toBe(true);
    }
  });

  test('profile answers match their documented shapes', async () => {
    const u = await signedInUser(env.appUrl, env.identityAdminUrl, { prefix: 'openapi' });
    const state = await u.browser.get(u.settingsAction, { accept: 'application/json' });
    contract.response('get', '/profile-settings', 200, json(state.text));

    const saved = await u.browser.postJson(u.settingsAction, { csrf_token: u.flowCsrf, method: 'profile', traits: { name: 'Documented' } });
    contract.response('post', '/profile-settings', saved.status, json(saved.text));
    const invalid = await u.browser.postJson(u.settingsAction, { csrf_token: u.flowCsrf, method: 'password', password: '' });
    expect(invalid.status).toBe(400);
    contract.response('post', '/profile-settings', 400, json(invalid.text));

    const flow = new URL(u.settingsAction, env.appUrl).search;
    const uploaded = await postMultipart(env.appUrl, u.browser.cookieHeader(), `/profile-settings/avatar${flow}`, [{ name: '_csrf', value: u.csrf }, { name: 'file', filename: 'a.png', data: makePng() }], { accept: 'application/json' });
    expect(uploaded.status).toBe(200);
    contract.response('post', '/profile-settings/avatar', 200, uploaded.json());
    const refused = await postMultipart(env.appUrl, u.browser.cookieHeader(), `/profile-settings/avatar${flow}`, [{ name: '_csrf', value: u.csrf }, { name: 'file', filename: 'a.gif', data: GIF }], { accept: 'application/json' });
    expect(refused.status).toBe(400);
    contract.response('post', '/profile-settings/avatar', 400, refused.json());
    const removed = await u.browser.postJson('/profile-settings/avatar/remove', {}, { 'x-csrf-token': u.csrf });
    contract.response('post', '/profile-settings/avatar/remove', removed.status, json(removed.text));

    const canny = await u.browser.get('/authentication/canny', { accept: 'application/json' });
    contract.response('get', '/authentication/canny', canny.status, json(canny.text));
    const cannyBad = await u.browser.get('/authentication/canny?redirect=https%3A%2F%2Fevil.example', { accept: 'application/json' });
    contract.response('get', '/authentication/canny', cannyBad.status, json(cannyBad.text));

    const deleted = await u.browser.postJson('/profile-settings/delete-account', {}, { 'x-csrf-token': u.csrf });
    contract.response('post', '/profile-settings/delete-account', deleted.status, json(deleted.text));
  });

  test('invitation answers match their documented shapes', async () => {
    const browser = new Browser(env.appUrl);
    const token = await env.invite(uniqueEmail('openapi-invite'));
    const good = await browser.get(`/sign-up/invitation?token=${token}`, { accept: 'application/json' });
    contract.response('get', '/sign-up/invitation', 200, json(good.text));
    const bad = await browser.get('/sign-up/invitation?token=unknown', { accept: 'application/json' });
    contract.response('get', '/sign-up/invitation', 404, json(bad.text));
    const page = await browser.get(`/sign-up/invitation?token=${token}`);
    const csrf = /name="_csrf" value="([0-9a-f]{64})"/.exec(page.text)![1]!;
    const invalid = await browser.postJson('/sign-up/invitation', { _csrf: csrf, token, password: 'x', terms: true });
    contract.response('post', '/sign-up/invitation', 400, json(invalid.text));
    const created = await browser.postJson('/sign-up/invitation', { _csrf: csrf, token, password: 'Saffron-Glacier-Tunnel-27', terms: true });
    expect(created.status).toBe(200);
    contract.response('post', '/sign-up/invitation', 200, json(created.text));
    const used = await new Browser(env.appUrl).get(`/sign-up/invitation?token=${token}`, { accept: 'application/json' });
    contract.response('get', '/sign-up/invitation', 410, json(used.text));
  });
});
