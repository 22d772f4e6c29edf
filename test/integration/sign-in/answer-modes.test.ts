// Sign-in in the two answer modes besides the plain form post: JSON (integrators) and enhanced (the form
// island, X-Enhance: 1). Bodies are checked against the very zod schemas the OpenAPI document is
// generated from.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { flowStateResultSchema, redirectResultSchema } from '../../../server/flows/schemas.ts';
import { errorResponseSchema } from '../../../server/openapi/registry.ts';
import { STRONG_PASSWORD, uniqueEmail, useIdentities } from '../../support/fixtures.ts';
import { Browser, openSignIn } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';
import { csrfOf, jsonFlow, UUID } from '../api/json-flow.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());
const identities = useIdentities(() => stack.identity.adminUrl);

describe('sign-in JSON', () => {
  test('GET answers the flow state directly (no redirect), its action pointing at our endpoint', async () => {
    const browser = new Browser(stack.appUrl);
    const flow = await jsonFlow(browser, '/sign-in?return_to=%2Fprofile-settings');
    expect(flow.id).toMatch(UUID);
    expect(flow.ui.action).toBe(`/sign-in?flow=${flow.id}&return_to=%2Fprofile-settings`);
    expect(csrfOf(flow)).toHaveLength(88);
  });

  test('POST success: 200 with redirect_to and the session; the session cookie is relayed', async () => {
    const email = uniqueEmail('json');
    await identities.create({ email });
    const browser = new Browser(stack.appUrl);
    const flow = await jsonFlow(browser, '/sign-in?return_to=%2Fprofile-settings');
    const answer = await browser.postJson(flow.ui.action, { csrf_token: csrfOf(flow), identifier: email, password: STRONG_PASSWORD });
    expect(answer.status).toBe(200);
    const body = JSON.parse(answer.text);
    expect(redirectResultSchema.safeParse(body).success).toBe(true);
    expect(body.redirect_to).toBe(`${stack.appUrl}/profile-settings`);
    expect(body.session.identity.traits.email).toBe(email);
    expect(browser.cookies.has('ory_kratos_session')).toBe(true);
  });

  test('POST wrong password: 400 spec error with the next flow state', async () => {
    const email = uniqueEmail('jsonwrong');
    await identities.create({ email });
    const browser = new Browser(stack.appUrl);
    const flow = await jsonFlow(browser, '/sign-in');
    const answer = await browser.postJson(flow.ui.action, { csrf_token: csrfOf(flow), identifier: email, password: 'Wrong-Password-42' });
    expect(answer.status).toBe(400);
    const body = JSON.parse(answer.text);
    expect(errorResponseSchema.safeParse(body).success).toBe(true);
    expect(body).toMatchObject({ code: 'incorrect_email_password', message: 'Incorrect email or password.', meta: { messageId: 4000006, flowId: flow.id } });
    expect(flowStateResultSchema.shape.flow.safeParse(body.flow).success).toBe(true);
  });

  test('POST invalid input: 400 validation_error with translated messages per field (Kratos not called)', async () => {
    const browser = new Browser(stack.appUrl);
    const flow = await jsonFlow(browser, '/sign-in');
    const answer = await browser.postJson(flow.ui.action, { csrf_token: csrfOf(flow), identifier: 'nope', password: 'short' }, { 'accept-language': 'fr' });
    expect(answer.status).toBe(400);
    const body = JSON.parse(answer.text);
    expect(errorResponseSchema.safeParse(body).success).toBe(true);
    expect(body.code).toBe('validation_error');
    expect(Object.keys(body.meta.fields).sort()).toEqual(['identifier', 'password']);
    expect(body.meta.fields.password[0]).not.toMatch(/^validation\./);
    expect(body.meta.fields.password[0]).not.toBe('The password must be at least 8 characters.'); // French
  });
});

describe('sign-in enhanced post (the form island)', () => {
  test('enhanced post (X-Enhance: 1): success is 200 + X-Redirect-To, an error is the form fragment with 400', async () => {
    const email = uniqueEmail('enhanced');
    await identities.create({ email });
    const browser = new Browser(stack.appUrl);
    const { action, csrf } = await openSignIn(browser);
    const wrong = await browser.post(action, { csrf_token: csrf, identifier: email, password: 'Wrong-Password-42' }, { 'x-enhance': '1' });
    expect(wrong.status).toBe(400);
    expect(wrong.text.startsWith('<form id="sign-in-form"')).toBe(true);
    expect(wrong.text).not.toContain('<html');
    const { action: again, csrf: csrf2 } = await openSignIn(browser);
    const ok = await browser.post(again, { csrf_token: csrf2, identifier: email, password: STRONG_PASSWORD }, { 'x-enhance': '1' });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-redirect-to')).toBe('/');
    expect(ok.text).toBe('');
  });
});
