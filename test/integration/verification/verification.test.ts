import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureRateLimits } from '../../../server/security/rate-limit.ts';
import { configureUniformTiming } from '../../../server/security/uniform-timing.ts';
import { latestCode, useIdentities } from '../../support/fixtures.ts';
import { flowFormAction, csrfFrom, flowIdOf, visibleText } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';
import { openApiContract, type Contract } from '../../support/openapi-contract.ts';

let stack: Stack;
let contract: Contract;
const PASSWORD = 'Verify-Me-Phrase-77';
const json = { Accept: 'application/json' };

beforeAll(async () => {
  configureRateLimits({ verification: { perIp: 10_000, perEmail: 10_000 }, resend: { perIp: 10_000, perEmail: 10_000 }, 'sign-in': { perIp: 10_000 } });
  configureUniformTiming(0);
  stack = await startStack();
  contract = openApiContract((await request(stack.appUrl).get('/swagger/openapi.json')).body);
});
afterAll(() => stack?.close());
const identities = useIdentities(() => stack.identity.adminUrl);

async function isVerified(email: string): Promise<boolean> {
  const res = await fetch(`${stack.identity.adminUrl}/admin/identities?credentials_identifier=${encodeURIComponent(email)}`);
  const [identity] = (await res.json()) as { verifiable_addresses: { value: string; verified: boolean }[] }[];
  return identity?.verifiable_addresses.some((address) => address.value === email && address.verified) ?? false;
}

/** Sends a verification code to `email` through the resend screen; returns the verification flow id. */
async function sendCode(agent: ReturnType<typeof request.agent>, email: string): Promise<string> {
  const page = await agent.get('/sign-up/resend-verification-email').expect(200);
  const start = flowFormAction(page.text);
  const sent = await agent
    .post(start)
    .type('form')
    .send({ csrf_token: csrfFrom(page.text), method: 'code', email })
    .expect(303);
  expect(sent.headers.location).toMatch(/^\/sign-up\/verification\?flow=[0-9a-f-]{36}$/);
  return flowIdOf(sent.headers.location);
}

describe('verification screens (HTML, no JavaScript)', () => {
  it('asks for the email on a fresh flow', async () => {
    const agent = request.agent(stack.appUrl);
    const page = await agent.get('/sign-up/verification').expect(200);
    expect(flowFormAction(page.text)).toMatch(/^\/sign-up\/verification\?flow=[0-9a-f-]{36}$/);
    expect(page.text).toContain('name="email"');
    expect(visibleText(page.text)).toContain('Verify your email');
    expect(page.text).toContain('data-link="resend"'); // no code sent yet: the way to the resend screen
  });

  it('verifies with the emailed code, shows success and leads on to sign-in', async () => {
    const email = 'new.user@example.com';
    await identities.create({ email: email, password: PASSWORD, name: 'Test User', verified: false });
    const agent = request.agent(stack.appUrl);
    const flow = await sendCode(agent, email);
    const page = await agent.get(`/sign-up/verification?flow=${flow}`).expect(200);
    expect(page.text).toContain('name="code"');
    expect(visibleText(page.text)).toContain(`Enter the code we sent to ${email}.`);
    // Kratos's "Send a new code" is in the form: the footer offers no second way to the same.
    expect(page.text).toMatch(/<button[^>]*name="email"[^>]*>/);
    expect(page.text).not.toContain('data-link="resend"');

    const wrong = await agent
      .post(`/sign-up/verification?flow=${flow}`)
      .type('form')
      .send({ csrf_token: csrfFrom(page.text), code: '0000000' })
      .expect(400);
    expect(visibleText(wrong.text)).toMatch(/verification code is invalid|code/i);
    const notDigits = await agent
      .post(`/sign-up/verification?flow=${flow}`)
      .type('form')
      .send({ csrf_token: csrfFrom(page.text), code: 'abc' })
      .expect(400);
    expect(visibleText(notDigits.text)).toContain('Enter the code from the email.');

    const code = await latestCode(stack.identity.adminUrl, email, 'verification');
    const ok = await agent
      .post(`/sign-up/verification?flow=${flow}`)
      .type('form')
      .send({ csrf_token: csrfFrom(page.text), method: 'code', code })
      .expect(303);
    expect(ok.headers.location).toBe(`/sign-up/verification?flow=${flow}`);
    const done = await agent.get(ok.headers.location!).expect(200);
    expect(visibleText(done.text)).toContain('Your email address has been verified.');
    expect(done.text).toContain('href="/sign-in"');
    expect(await isVerified(email)).toBe(true);
  });

  it('lands from the emailed link on /verify-account with the code filled in', async () => {
    const email = 'link.lander@example.com';
    await identities.create({ email: email, password: PASSWORD, name: 'Test User', verified: false });
    const agent = request.agent(stack.appUrl);
    const flow = await sendCode(agent, email);
    const code = await latestCode(stack.identity.adminUrl, email, 'verification');
    const page = await agent.get(`/verify-account?flow=${flow}&code=${code}`).expect(200);
    expect(page.text).toMatch(new RegExp(`name="code"[^>]*value="${code}"|value="${code}"[^>]*name="code"`));
    expect(page.text).toContain(`action="/verify-account?flow=${flow}"`);
    await agent
      .post(`/verify-account?flow=${flow}`)
      .type('form')
      .send({ csrf_token: csrfFrom(page.text), code })
      .expect(303);
    expect(await isVerified(email)).toBe(true);
  });

  it('moves to the new flow when the old one was already completed', async () => {
    const email = 'twice@example.com';
    await identities.create({ email: email, password: PASSWORD, name: 'Test User', verified: false });
    const agent = request.agent(stack.appUrl);
    const flow = await sendCode(agent, email);
    const page = await agent.get(`/sign-up/verification?flow=${flow}`).expect(200);
    const code = await latestCode(stack.identity.adminUrl, email, 'verification');
    await agent
      .post(`/sign-up/verification?flow=${flow}`)
      .type('form')
      .send({ csrf_token: csrfFrom(page.text), code })
      .expect(303);
    const again = await agent
      .post(`/sign-up/verification?flow=${flow}`)
      .type('form')
      .send({ csrf_token: csrfFrom(page.text), code })
      .expect(303);
    expect(flowIdOf(again.headers.location)).not.toBe(flow);
    const replaced = await agent.get(again.headers.location!).expect(200);
    expect(replaced.text).toContain('data-message-id="4070002"');
  });
});

describe('verification in JSON, checked against the OpenAPI document', () => {
  it('sends, rejects and accepts codes; leads into the product when signed in', async () => {
    const email = 'json.verify@example.com';
    // Signed in first, so "continue" goes to the product. Signing in needs a verified address
    // (require_verified_address), so the account signs in with one and then gets a new, unverified
    // address, as after an e-mail change: the session stays, the new address waits for its code.
    const before = await identities.create({ password: PASSWORD, name: 'Test User' });
    const agent = request.agent(stack.appUrl);
    const signIn = await agent.get('/sign-in').set(json).expect(200);
    const loginCsrf = signIn.body.flow.ui.nodes.find((n: any) => n.attributes.name === 'csrf_token').attributes.value;
    await agent
      .post(`/sign-in?flow=${signIn.body.flow.id}`)
      .set(json)
      .send({ csrf_token: loginCsrf, identifier: before.email, password: PASSWORD })
      .expect(200);
    const changed = await fetch(`${stack.identity.adminUrl}/admin/identities/${before.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify([{ op: 'replace', path: '/traits/email', value: email }]),
    });
    expect(changed.status).toBe(200);
    expect(await isVerified(email)).toBe(false);

    const start = await agent.get('/verify-account?return_to=%2Fprofile-settings').set(json).expect(200);
    contract.response('get', '/verify-account', 200, start.body);
    const flow = start.body.flow;
    const csrf = flow.ui.nodes.find((n: any) => n.attributes.name === 'csrf_token').attributes.value;

    const sendBody = { csrf_token: csrf, email };
    contract.request('post', '/verify-account', sendBody, 'application/json');
    const sent = await agent.post(flow.ui.action).set(json).send(sendBody).expect(200);
    contract.response('post', '/verify-account', 200, sent.body);
    expect(sent.body.flow.state).toBe('sent_email');

    const bad = await agent.post(flow.ui.action).set(json).send({ csrf_token: csrf, code: 'x1' }).expect(400);
    contract.response('post', '/verify-account', 400, bad.body);
    expect(bad.body).toMatchObject({ code: 'validation_error', meta: { fields: { code: ['Enter the code from the email.'] } } });

    const wrong = await agent.post(flow.ui.action).set(json).send({ csrf_token: csrf, code: '99999999' }).expect(400);
    contract.response('post', '/verify-account', 400, wrong.body);
    expect(wrong.body.meta.messageId).toBe(4070006);

    const code = await latestCode(stack.identity.adminUrl, email, 'verification');
    const ok = await agent.post(flow.ui.action).set(json).send({ csrf_token: csrf, code }).expect(200);
    contract.response('post', '/verify-account', 200, ok.body);
    expect(ok.body).toMatchObject({ flow: { state: 'passed_challenge' }, continue_to: `${stack.appUrl}/profile-settings` });

    const replaced = await agent.post(flow.ui.action).set(json).send({ csrf_token: csrf, code }).expect(410);
    contract.response('post', '/verify-account', 410, replaced.body);
    expect(replaced.body.flow.id).not.toBe(flow.id);
  });

  it('enhanced posts swap the form on errors and follow X-Redirect-To on success', async () => {
    const agent = request.agent(stack.appUrl);
    const page = await agent.get('/sign-up/verification').expect(200);
    const start = flowFormAction(page.text);
    const bad = await agent
      .post(start)
      .set('X-Enhance', '1')
      .type('form')
      .send({ csrf_token: csrfFrom(page.text), email: 'x' })
      .expect(400);
    expect(bad.text.startsWith('<form')).toBe(true);
    expect(bad.text).toContain('id="verification-form"');
    const ok = await agent
      .post(start)
      .set('X-Enhance', '1')
      .type('form')
      .send({ csrf_token: csrfFrom(page.text), email: 'x@example.com' })
      .expect(200);
    expect(ok.headers['x-redirect-to']).toBe(start);
  });
});
