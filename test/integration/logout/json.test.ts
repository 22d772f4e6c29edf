// Sign-out in JSON mode (integrators): the CSRF token from GET /logout, then a POST carrying it.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { STRONG_PASSWORD, uniqueEmail, useIdentities } from '../../support/fixtures.ts';
import { Browser } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';
import { csrfOf, JSON_ACCEPT, jsonFlow } from '../api/json-flow.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());
const identities = useIdentities(() => stack.identity.adminUrl);

describe('logout JSON', () => {
  test('GET gives the CSRF token; POST with it in the header signs out with Clear-Site-Data', async () => {
    const email = uniqueEmail('jsonout');
    await identities.create({ email });
    const browser = new Browser(stack.appUrl);
    const flow = await jsonFlow(browser, '/sign-in');
    await browser.postJson(flow.ui.action, { csrf_token: csrfOf(flow), identifier: email, password: STRONG_PASSWORD });
    const token = JSON.parse((await browser.get('/logout', JSON_ACCEPT)).text);
    expect(token).toEqual({ csrf_token: expect.stringMatching(/^[0-9a-f]{64}$/), action: '/logout' });
    const refused = await browser.postJson('/logout', {});
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.text).code).toBe('csrf_invalid');
    const answer = await browser.postJson('/logout', {}, { 'x-csrf-token': token.csrf_token });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ redirect_to: '/sign-in?logged_out=1' });
    expect(answer.headers.get('clear-site-data')).toBe('"cache", "storage"');
    const me = await browser.get('/', JSON_ACCEPT);
    expect(me.status).toBe(401);
  });
});
