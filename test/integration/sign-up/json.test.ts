// Sign-up in JSON mode (integrators): the profile step answers the next flow state, the credential step
// the redirect to verification. Bodies are checked against the very zod schemas the OpenAPI document is
// generated from.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { flowStateResultSchema, redirectResultSchema } from '../../../server/flows/schemas.ts';
import { STRONG_PASSWORD, uniqueEmail, useIdentities } from '../../support/fixtures.ts';
import { Browser } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';
import { csrfOf, jsonFlow, UUID } from '../api/json-flow.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());
const identities = useIdentities(() => stack.identity.adminUrl);

describe('sign-up JSON', () => {
  test('profile step answers the next flow state (200), the credential step redirects to verification', async () => {
    const browser = new Browser(stack.appUrl);
    const email = uniqueEmail('jsonup');
    identities.track(email);
    const flow = await jsonFlow(browser, '/sign-up');
    const step = await browser.postJson(flow.ui.action, { csrf_token: csrfOf(flow), method: 'profile', traits: { email, name: 'Ada' }, terms: true });
    expect(step.status).toBe(200);
    const next = JSON.parse(step.text);
    expect(flowStateResultSchema.safeParse(next).success).toBe(true);
    expect(next.flow.ui.nodes.some((node: { attributes: { name?: string } }) => node.attributes.name === 'password')).toBe(true);
    const done = await browser.postJson(next.flow.ui.action, {
      csrf_token: csrfOf(next.flow),
      method: 'password',
      password: STRONG_PASSWORD,
      traits: { email, name: 'Ada' },
      terms: true,
    });
    expect(done.status).toBe(200);
    const body = JSON.parse(done.text);
    expect(redirectResultSchema.safeParse(body).success).toBe(true);
    expect(body.redirect_to).toMatch(new RegExp(`^/sign-up/verification\\?flow=${UUID.source}`));
    expect(body.verification_flow_id).toMatch(UUID);
  });

  test('missing terms: 400 validation_error on the terms field', async () => {
    const browser = new Browser(stack.appUrl);
    const flow = await jsonFlow(browser, '/sign-up');
    const answer = await browser.postJson(flow.ui.action, { csrf_token: csrfOf(flow), method: 'profile', traits: { email: uniqueEmail(), name: 'Ada' } });
    expect(answer.status).toBe(400);
    const body = JSON.parse(answer.text);
    expect(body.code).toBe('validation_error');
    expect(body.meta.fields.terms).toEqual(['Please accept the Terms of Use and the Privacy Policy to continue.']);
  });

  test('the credential step without the traits its hidden nodes carry: 400 naming the field (meta.fields), not a bare "required"', async () => {
    const browser = new Browser(stack.appUrl);
    const email = uniqueEmail('jsonup-traits');
    identities.track(email);
    const flow = await jsonFlow(browser, '/sign-up');
    const step = JSON.parse(
      (await browser.postJson(flow.ui.action, { csrf_token: csrfOf(flow), method: 'profile', traits: { email, name: 'Ada' }, terms: true })).text,
    );
    const answer = await browser.postJson(step.flow.ui.action, { csrf_token: csrfOf(step.flow), method: 'password', password: STRONG_PASSWORD, terms: true });
    expect(answer.status).toBe(400);
    const body = JSON.parse(answer.text);
    expect(body.code).toBe('validation_error');
    expect(body.meta.fields['traits.email']).toEqual(['This field is required.']);
  });
});
