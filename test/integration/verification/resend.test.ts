import { readFileSync } from 'node:fs';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureRateLimits } from '../../../server/security/rate-limit.ts';
import { configureUniformTiming, UNIFORM_ANSWER_FLOOR_MS } from '../../../server/security/uniform-timing.ts';
import { courierMessages, useIdentities } from '../../support/fixtures.ts';
import { barAddress, csrfFrom, flowFormAction, visibleText } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';
import { openApiContract, type Contract } from '../../support/openapi-contract.ts';

const spanish = JSON.parse(readFileSync('locales/es/common.json', 'utf8'));
let stack: Stack;
let contract: Contract;
const json = { Accept: 'application/json' };

beforeAll(async () => {
  configureRateLimits({ resend: { perIp: 10_000, perEmail: 10_000 } });
  configureUniformTiming(UNIFORM_ANSWER_FLOOR_MS);
  stack = await startStack();
  contract = openApiContract((await request(stack.appUrl).get('/swagger/openapi.json')).body);
});
afterAll(() => stack?.close());
const identities = useIdentities(() => stack.identity.adminUrl);

async function resend(email: string, lng = 'en') {
  const agent = request.agent(stack.appUrl);
  const form = await agent.get(`/sign-up/resend-verification-email?lng=${lng}`).expect(200);
  const action = flowFormAction(form.text);
  expect(action).toContain(`lng=${lng}`);
  const started = performance.now();
  const sent = await agent
    .post(action)
    .type('form')
    .send({ csrf_token: csrfFrom(form.text), method: 'code', email });
  const elapsed = performance.now() - started;
  const next = sent.status === 303 ? await agent.get(sent.headers.location!) : undefined;
  return { form, sent, next, elapsed };
}

describe('resend verification email', () => {
  it('prefills the email from the query and keeps return_to on the way', async () => {
    const agent = request.agent(stack.appUrl);
    const page = await agent.get('/sign-up/resend-verification-email?email=ada%40example.com&return_to=%2Fprofile-settings').expect(200);
    const action = flowFormAction(page.text);
    expect(action).toMatch(/flow=[0-9a-f-]{36}/);
    expect(action).toContain('return_to=%2Fprofile-settings');
    expect(barAddress(page.text)).toBe(action);
    expect(page.text).toMatch(/name="email"[^>]*value="ada@example.com"|value="ada@example.com"[^>]*name="email"/);
    expect(visibleText(page.text)).toContain('Resend the verification email');
  });

  it('sends a code and continues on the verification screen', async () => {
    const email = 'pending.person@example.com';
    await identities.create({ email: email, password: 'Pending-Phrase-123', name: 'Test User', verified: false });
    const { sent, next } = await resend(email);
    expect(sent.status).toBe(303);
    expect(sent.headers.location).toMatch(/^\/sign-up\/verification\?flow=/);
    expect(next!.status).toBe(200);
    expect(next!.text).toContain('name="code"');
    const mails = await courierMessages(stack.identity.adminUrl, email);
    expect(mails.some((mail) => mail.template_type === 'verification_code_valid')).toBe(true);
  });

  it('gives the same answer, never before the uniform-timing floor, whether the account exists or not', async () => {
    const known = 'exists@example.com';
    await identities.create({ email: known, password: 'Exists-Phrase-123', name: 'Test User', verified: false });
    const knownTimes: number[] = [];
    const unknownTimes: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      const a = await resend(known);
      const b = await resend(`ghost${i}@example.com`);
      knownTimes.push(a.elapsed);
      unknownTimes.push(b.elapsed);
      expect(a.sent.status).toBe(b.sent.status);
      expect(a.sent.headers.location?.replace(/flow=[^&]+/, '')).toBe(b.sent.headers.location?.replace(/flow=[^&]+/, ''));
      expect(a.next!.status).toBe(b.next!.status);
      expect(visibleText(a.next!.text).replace(known, 'EMAIL')).toBe(visibleText(b.next!.text).replace(`ghost${i}@example.com`, 'EMAIL'));
    }
    // The uniform-timing floor is applied to every answer, known address or not: none comes back before it.
    for (const elapsed of [...knownTimes, ...unknownTimes]) expect(elapsed).toBeGreaterThanOrEqual(UNIFORM_ANSWER_FLOOR_MS - 5);
    expect(await courierMessages(stack.identity.adminUrl, 'ghost0@example.com')).toEqual([]);
  });

  it('refuses an invalid email with a translated field error and keeps what was typed', async () => {
    const { sent } = await resend('not-an-email', 'es');
    expect(sent.status).toBe(400);
    expect(sent.text).toContain('value="not-an-email"');
    expect(visibleText(sent.text)).toContain(spanish.validation.emailInvalid);
    expect(visibleText(sent.text)).not.toContain('Enter a valid email address.');
    expect(sent.text).toContain('field-email');
  });

  it('answers JSON integrators as documented', async () => {
    const agent = request.agent(stack.appUrl);
    const start = await agent.get('/sign-up/resend-verification-email').set(json).expect(200);
    contract.response('get', '/sign-up/resend-verification-email', 200, start.body);
    const csrf = start.body.flow.ui.nodes.find((n: any) => n.attributes.name === 'csrf_token').attributes.value;
    const bad = await agent.post(start.body.flow.ui.action).set(json).send({ csrf_token: csrf, email: '' }).expect(400);
    contract.response('post', '/sign-up/resend-verification-email', 400, bad.body);
    expect(bad.body.code).toBe('validation_error');
    const body = { csrf_token: csrf, method: 'code', email: 'json.resend@example.com' };
    contract.request('post', '/sign-up/resend-verification-email', body, 'application/json');
    const ok = await agent.post(start.body.flow.ui.action).set(json).send(body).expect(200);
    contract.response('post', '/sign-up/resend-verification-email', 200, ok.body);
    expect(ok.body.continue_to).toBe(`/sign-up/verification?flow=${ok.body.flow.id}`);
    expect(ok.body.flow.ui.action).toBe(`/sign-up/verification?flow=${ok.body.flow.id}`);
  });
});
