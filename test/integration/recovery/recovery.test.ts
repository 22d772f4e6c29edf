import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureRateLimits } from '../../../server/security/rate-limit.ts';
import { configureUniformTiming, UNIFORM_ANSWER_FLOOR_MS } from '../../../server/security/uniform-timing.ts';
import { courierMessages, latestCode, useIdentities } from '../../support/fixtures.ts';
import { barAddress, csrfFrom, flowFormAction, flowIdOf, visibleText } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';
import { openApiContract, type Contract } from '../../support/openapi-contract.ts';

let stack: Stack;
let contract: Contract;
const PASSWORD = 'Old-Secret-Phrase-42';
const NEW_PASSWORD = 'Brand-New-Phrase-2026!';

beforeAll(async () => {
  // This file is about the screens; rate limits have their own test file.
  configureRateLimits({ recovery: { perIp: 10_000, perEmail: 10_000 }, 'sign-in': { perIp: 10_000, perEmail: 10_000 } });
  configureUniformTiming(UNIFORM_ANSWER_FLOOR_MS);
  stack = await startStack();
  contract = openApiContract((await request(stack.appUrl).get('/swagger/openapi.json')).body);
});
afterAll(() => stack?.close());
const identities = useIdentities(() => stack.identity.adminUrl);

const json = { Accept: 'application/json' };

/** A browser (cookie jar) on a fresh recovery flow, shown by the first GET (decision 190): the flow id and the page's CSRF token. */
async function openRecovery(agent: ReturnType<typeof request.agent>) {
  const page = await agent.get('/forgot-password').expect(200);
  const action = flowFormAction(page.text);
  const flow = flowIdOf(action);
  expect(action).toBe(`/forgot-password?flow=${flow}`);
  expect(barAddress(page.text)).toBe(action);
  return { flow, csrf: csrfFrom(page.text), page };
}

describe('forgot password → code → new password (HTML, no JavaScript)', () => {
  it('walks the whole recovery and signs in with the new password', async () => {
    const email = 'ada.recovery@example.com';
    await identities.create({ email: email, password: PASSWORD, name: 'Test User', verified: true });
    const agent = request.agent(stack.appUrl);
    const { flow, csrf, page } = await openRecovery(agent);
    expect(page.text).toContain('name="email"');
    expect(visibleText(page.text)).toContain('Forgot your password?');

    const sent = await agent.post(`/forgot-password?flow=${flow}`).type('form').send({ csrf_token: csrf, method: 'code', email }).expect(303);
    expect(sent.headers.location).toBe(`/forgot-password?flow=${flow}`);
    const codePage = await agent.get(sent.headers.location!).expect(200);
    expect(codePage.text).toContain('name="code"');
    expect(visibleText(codePage.text)).toContain('Check your email');
    // Said once, hedged (the address may have no account): not also Kratos's flat "has been sent" (1060003).
    expect(visibleText(codePage.text)).toContain('If an account exists for this address, we’ve sent it a recovery code.');
    expect(visibleText(codePage.text)).not.toContain('An email containing a recovery code has been sent');
    // The field says which code it is (Kratos's label 1070010), not "Verification code".
    expect(/<label[^>]*for="field-code"[^>]*>([^<]*)</.exec(codePage.text)?.[1]).toBe('Recovery code');

    const code = await latestCode(stack.identity.adminUrl, email, 'recovery');
    const recovered = await agent
      .post(`/forgot-password?flow=${flow}`)
      .type('form')
      .send({ csrf_token: csrfFrom(codePage.text), method: 'code', code })
      .expect(303);
    expect(recovered.headers.location).toMatch(/^\/forgot-password\/reset\?flow=[0-9a-f-]{36}$/);
    expect(String(recovered.headers['set-cookie'])).toContain('ory_kratos_session=');

    const reset = await agent.get(recovered.headers.location!).expect(200);
    expect(reset.text).toContain('type="password"');
    expect(reset.text).not.toContain('name="traits.email"'); // the settings flow is narrowed to the password
    expect(visibleText(reset.text)).toContain('Set a new password');

    const short = await agent
      .post(recovered.headers.location!)
      .type('form')
      .send({ csrf_token: csrfFrom(reset.text), method: 'password', password: 'short' })
      .expect(400);
    expect(visibleText(short.text)).toContain('at least 8 characters');

    const saved = await agent
      .post(recovered.headers.location!)
      .type('form')
      .send({ csrf_token: csrfFrom(reset.text), method: 'password', password: NEW_PASSWORD })
      .expect(303);
    expect(saved.headers.location).toBe(recovered.headers.location);
    const done = await agent.get(saved.headers.location!).expect(200);
    expect(visibleText(done.text)).toContain('Password changed');

    // The old password no longer works; the new one does (from another browser).
    const other = request.agent(stack.appUrl);
    const signIn = await other.get('/sign-in').set(json).expect(200);
    const loginCsrf = signIn.body.flow.ui.nodes.find((n: any) => n.attributes.name === 'csrf_token').attributes.value;
    const loginFlow = signIn.body.flow.id;
    await other.post(`/sign-in?flow=${loginFlow}`).set(json).send({ csrf_token: loginCsrf, identifier: email, password: PASSWORD }).expect(400);
    // The flow now carries the refusal (4000006), so reading it again answers 400 with it (decision 110).
    const again = await other.get(`/sign-in?flow=${loginFlow}`).set(json).expect(400);
    const csrf2 = again.body.flow.ui.nodes.find((n: any) => n.attributes.name === 'csrf_token').attributes.value;
    await other.post(`/sign-in?flow=${loginFlow}`).set(json).send({ csrf_token: csrf2, identifier: email, password: NEW_PASSWORD }).expect(200);
  });

  it('shows a translated error for a wrong code and keeps the flow', async () => {
    const email = 'wrong.code@example.com';
    await identities.create({ email: email, password: PASSWORD, name: 'Test User', verified: false });
    const agent = request.agent(stack.appUrl);
    const { flow, csrf } = await openRecovery(agent);
    await agent.post(`/forgot-password?flow=${flow}`).type('form').send({ csrf_token: csrf, email }).expect(303);
    const codePage = await agent.get(`/forgot-password?flow=${flow}&lng=fr`).expect(200);
    const wrong = await agent
      .post(`/forgot-password?flow=${flow}&lng=fr`)
      .type('form')
      .send({ csrf_token: csrfFrom(codePage.text), code: '000000' === (await latestCode(stack.identity.adminUrl, email, 'recovery')) ? '111111' : '000000' })
      .expect(400);
    expect(visibleText(wrong.text)).toContain('Le code de récupération');
    expect(wrong.text).toContain('name="code"');
  });

  it('refuses a malformed code or email before asking Kratos, with the field error', async () => {
    const agent = request.agent(stack.appUrl);
    const { flow, csrf } = await openRecovery(agent);
    const bad = await agent.post(`/forgot-password?flow=${flow}`).type('form').send({ csrf_token: csrf, email: 'not-an-email' }).expect(400);
    expect(visibleText(bad.text)).toContain('Enter a valid email address.');
    const long = await agent
      .post(`/forgot-password?flow=${flow}`)
      .type('form')
      .send({ csrf_token: csrf, email: `${'a'.repeat(250)}@example.com` })
      .expect(400);
    expect(visibleText(long.text)).toContain('at most 255 characters');
  });

  it('restarts cleanly when the flow comes from another browser (CSRF cookie mismatch)', async () => {
    const first = request.agent(stack.appUrl);
    const { flow, csrf } = await openRecovery(first);
    const second = request.agent(stack.appUrl);
    const answer = await second.post(`/forgot-password?flow=${flow}`).type('form').send({ csrf_token: csrf, email: 'x@example.com' });
    expect([400, 403]).toContain(answer.status);
    expect(answer.text).toContain('name="csrf_token"');
    expect(answer.text).not.toContain(flow); // a new flow
  });

  it('replaces a missing or garbage flow id with a new flow', async () => {
    const agent = request.agent(stack.appUrl);
    const missing = await agent.get('/forgot-password?flow=3f1c4c39-8d5e-4c8a-9d73-55c1e7e7b4a1').expect(200);
    expect(flowIdOf(flowFormAction(missing.text))).not.toBe('3f1c4c39-8d5e-4c8a-9d73-55c1e7e7b4a1');
    expect(barAddress(missing.text)).toBe(flowFormAction(missing.text));
    const garbage = await agent.get('/forgot-password?flow=%3Cscript%3E').expect(200);
    expect(flowFormAction(garbage.text)).toMatch(/^\/forgot-password\?flow=[0-9a-f-]{36}$/);
    expect(garbage.text).not.toContain('<script>');
  });

  it('sends an emailed recovery link (flow + token) on to Kratos to be checked', async () => {
    const flow = '3f1c4c39-8d5e-4c8a-9d73-55c1e7e7b4a1';
    const res = await request(stack.appUrl).get(`/forgot-password?flow=${flow}&token=abcdefgh12345678`).expect(303);
    expect(res.headers.location).toBe(`${stack.identity.publicUrl}/self-service/recovery?flow=${flow}&token=abcdefgh12345678`);
    // A token that is not one: no link to follow, the unknown flow replaced by a new one, shown at once.
    const bad = await request(stack.appUrl)
      .get(`/forgot-password?flow=${flow}&token=${encodeURIComponent('"><script>')}`)
      .expect(200);
    expect(flowIdOf(flowFormAction(bad.text))).not.toBe(flow);
    expect(bad.text).not.toContain('"><script>');
  });
});

describe('anti-enumeration', () => {
  async function askFor(email: string) {
    const agent = request.agent(stack.appUrl);
    const { flow, csrf } = await openRecovery(agent);
    const started = performance.now();
    const sent = await agent.post(`/forgot-password?flow=${flow}`).type('form').send({ csrf_token: csrf, email });
    const elapsed = performance.now() - started;
    const page = await agent.get(`/forgot-password?flow=${flow}`);
    const text = visibleText(page.text);
    return { status: sent.status, location: sent.headers.location?.replace(flow, 'FLOW'), pageStatus: page.status, text, elapsed };
  }

  it('answers the same, never before the uniform-timing floor, for known and unknown addresses', async () => {
    const known = 'known.person@example.com';
    await identities.create({ email: known, password: PASSWORD, name: 'Test User', verified: false });
    const knownAnswers: Awaited<ReturnType<typeof askFor>>[] = [];
    const unknownAnswers: Awaited<ReturnType<typeof askFor>>[] = [];
    for (let i = 0; i < 5; i += 1) {
      knownAnswers.push(await askFor(known));
      unknownAnswers.push(await askFor(`nobody${i}@example.com`));
    }
    for (const [a, b] of knownAnswers.map((answer, i) => [answer, unknownAnswers[i]!] as const)) {
      expect({ ...a, elapsed: 0 }).toEqual({ ...b, elapsed: 0 });
      // The uniform-timing floor is applied to both: neither answer comes back before it, so the time
      // of an answer cannot tell a known address from an unknown one (the floor exceeds the work).
      expect(a.elapsed).toBeGreaterThanOrEqual(UNIFORM_ANSWER_FLOOR_MS - 5);
      expect(b.elapsed).toBeGreaterThanOrEqual(UNIFORM_ANSWER_FLOOR_MS - 5);
    }
    // Only the known address got mail.
    expect((await courierMessages(stack.identity.adminUrl, known)).length).toBeGreaterThan(0);
    expect(await courierMessages(stack.identity.adminUrl, 'nobody0@example.com')).toEqual([]);
  });
});

describe('signed-in browsers', () => {
  it('are sent on from /forgot-password (to the allow-listed return_to, else /), never crash', async () => {
    const email = 'signed.in@example.com';
    await identities.create({ email: email, password: PASSWORD, name: 'Test User', verified: true });
    const agent = request.agent(stack.appUrl);
    const signIn = await agent.get('/sign-in').set(json).expect(200);
    const csrf = signIn.body.flow.ui.nodes.find((n: any) => n.attributes.name === 'csrf_token').attributes.value;
    await agent.post(`/sign-in?flow=${signIn.body.flow.id}`).set(json).send({ csrf_token: csrf, identifier: email, password: PASSWORD }).expect(200);
    const home = await agent.get('/forgot-password').expect(303);
    expect(home.headers.location).toBe('/');
    const back = await agent.get(`/forgot-password?return_to=${encodeURIComponent('/profile-settings')}`).expect(303);
    expect(back.headers.location).toBe(`${stack.appUrl}/profile-settings`);
    const evil = await agent.get(`/forgot-password?return_to=${encodeURIComponent('https://evil.example/')}`).expect(303);
    expect(evil.headers.location).toBe('/');
  });

  it('the reset screen without a session goes back to /forgot-password', async () => {
    const res = await request(stack.appUrl).get('/forgot-password/reset?flow=3f1c4c39-8d5e-4c8a-9d73-55c1e7e7b4a1').expect(303);
    expect(res.headers.location).toBe('/forgot-password');
    await request(stack.appUrl).get('/forgot-password/reset').set(json).expect(401);
  });
});

describe('JSON for integrators, checked against the OpenAPI document', () => {
  it('walks recovery in JSON and every answer matches the document', async () => {
    const email = 'json.recovery@example.com';
    await identities.create({ email: email, password: PASSWORD, name: 'Test User', verified: false });
    const agent = request.agent(stack.appUrl);
    const start = await agent.get('/forgot-password').set(json).expect(200);
    contract.response('get', '/forgot-password', 200, start.body);
    const flow = start.body.flow.id;
    expect(start.body.flow.ui.action).toBe(`/forgot-password?flow=${flow}`);
    const csrf = start.body.flow.ui.nodes.find((n: any) => n.attributes.name === 'csrf_token').attributes.value;

    const invalidBody = { csrf_token: csrf, email: 'nope' };
    contract.request('post', '/forgot-password', invalidBody, 'application/json');
    const invalid = await agent.post(`/forgot-password?flow=${flow}`).set(json).send(invalidBody).expect(400);
    contract.response('post', '/forgot-password', 400, invalid.body);
    expect(invalid.body).toMatchObject({ code: 'validation_error', meta: { fields: { email: ['Enter a valid email address.'] } } });

    const sendBody = { csrf_token: csrf, method: 'code', email };
    contract.request('post', '/forgot-password', sendBody, 'application/json');
    const sent = await agent.post(`/forgot-password?flow=${flow}`).set(json).send(sendBody).expect(200);
    contract.response('post', '/forgot-password', 200, sent.body);
    expect(sent.body.flow.state).toBe('sent_email');

    const csrf2 = sent.body.flow.ui.nodes.find((n: any) => n.attributes.name === 'csrf_token').attributes.value;
    const wrong = await agent.post(`/forgot-password?flow=${flow}`).set(json).send({ csrf_token: csrf2, code: '12' }).expect(400);
    contract.response('post', '/forgot-password', 400, wrong.body);

    const code = await latestCode(stack.identity.adminUrl, email, 'recovery');
    const codeBody = { csrf_token: csrf2, code };
    contract.request('post', '/forgot-password', codeBody, 'application/x-www-form-urlencoded');
    const recovered = await agent.post(`/forgot-password?flow=${flow}`).set(json).send(codeBody).expect(200);
    contract.response('post', '/forgot-password', 200, recovered.body);
    expect(recovered.body.redirect_to).toMatch(/^\/forgot-password\/reset\?flow=/);

    const reset = await agent.get(recovered.body.redirect_to).set(json).expect(200);
    contract.response('get', '/forgot-password/reset', 200, reset.body);
    expect(reset.body.flow.ui.nodes.map((n: any) => n.attributes.name).sort()).toEqual(['csrf_token', 'method', 'password']);
    const resetCsrf = reset.body.flow.ui.nodes.find((n: any) => n.attributes.name === 'csrf_token').attributes.value;
    const tooShort = await agent.post(reset.body.flow.ui.action).set(json).send({ csrf_token: resetCsrf, password: 'x' }).expect(400);
    contract.response('post', '/forgot-password/reset', 400, tooShort.body);
    const similar = await agent.post(reset.body.flow.ui.action).set(json).send({ csrf_token: resetCsrf, password: email }).expect(400);
    contract.response('post', '/forgot-password/reset', 400, similar.body);
    expect(similar.body.code).toBe('similarity_password');
    const saved = await agent.post(reset.body.flow.ui.action).set(json).send({ csrf_token: resetCsrf, method: 'password', password: NEW_PASSWORD }).expect(200);
    contract.response('post', '/forgot-password/reset', 200, saved.body);
    expect(saved.body).toMatchObject({ flow: { state: 'success' }, continue_to: '/' });
  });

  it('enhanced posts (X-Enhance: 1) answer 200 + X-Redirect-To, and the form fragment on errors', async () => {
    const agent = request.agent(stack.appUrl);
    const { flow, csrf } = await openRecovery(agent);
    const bad = await agent.post(`/forgot-password?flow=${flow}`).set('X-Enhance', '1').type('form').send({ csrf_token: csrf, email: 'bad' }).expect(400);
    expect(bad.text.startsWith('<form')).toBe(true);
    expect(bad.text).toContain('id="forgot-password-form"');
    const ok = await agent
      .post(`/forgot-password?flow=${flow}`)
      .set('X-Enhance', '1')
      .type('form')
      .send({ csrf_token: csrf, email: 'someone@example.com' })
      .expect(200);
    expect(ok.headers['x-redirect-to']).toBe(`/forgot-password?flow=${flow}`);
    expect(ok.text).toBe('');
  });
});
