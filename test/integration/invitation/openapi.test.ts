import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { uniqueEmail, useIdentities } from '../../support/fixtures.ts';
import { Browser } from '../../support/http.ts';
import { openApiContract, type Contract } from '../../support/openapi-contract.ts';
import { startProfileStack, type ProfileStack } from '../profile/profile-stack.ts';

// Every JSON answer of the invitation endpoints matches the served OpenAPI document.

let env: ProfileStack;
let contract: Contract;
beforeAll(async () => {
  env = await startProfileStack();
  const document = await (await fetch(`${env.appUrl}/swagger/openapi.json`)).json();
  contract = openApiContract(document as never);
});
afterAll(() => env?.close());
const identities = useIdentities(() => env.identityAdminUrl);

const json = (text: string) => JSON.parse(text) as unknown;

describe('OpenAPI entries', () => {
  test('every invitation endpoint is documented', () => {
    for (const [method, path] of [
      ['get', '/sign-up/invitation'],
      ['post', '/sign-up/invitation'],
    ] as const) {
      expect(contract.has(method, path), `${method} ${path}`).toBe(true);
    }
  });

  test('invitation answers match their documented shapes', async () => {
    const browser = new Browser(env.appUrl);
    const email = uniqueEmail('openapi-invite');
    identities.track(email);
    const token = await env.invite(email);
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
