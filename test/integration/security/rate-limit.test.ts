import { readFileSync } from 'node:fs';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureRateLimits, resetRateLimitSettings } from '../../../server/security/rate-limit.ts';
import { configureUniformTiming } from '../../../server/security/uniform-timing.ts';
import { uniqueEmail, useIdentities } from '../../support/fixtures.ts';
import { csrfFrom, flowFormAction, visibleText } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';
import { openApiContract, type Contract } from '../../support/openapi-contract.ts';

const vi = JSON.parse(readFileSync('locales/vi/common.json', 'utf8'));
let stack: Stack;
let contract: Contract;
const PASSWORD = 'Rate-Limit-Phrase-55';
const json = { Accept: 'application/json' };

beforeAll(async () => {
  configureRateLimits({
    'sign-in': { perIp: 6, perEmail: 3 },
    recovery: { perIp: 4, perEmail: 2 },
    verification: { perIp: 3, perEmail: 100 },
    resend: { perIp: 100, perEmail: 2 },
    'sign-up': { perIp: 100, perEmail: 1 },
  });
  configureUniformTiming(0);
  stack = await startStack();
  contract = openApiContract((await request(stack.appUrl).get('/swagger/openapi.json')).body);
});
afterAll(async () => {
  resetRateLimitSettings();
  await stack?.close();
});
const identities = useIdentities(() => stack.identity.adminUrl);

/** A browser on one IP with a fresh login flow (JSON, so the flow and token are easy to read). */
async function loginFlow(ip: string) {
  const agent = request.agent(stack.appUrl);
  const page = await agent.get('/sign-in').set(json).set('X-Forwarded-For', ip).expect(200);
  const csrf = page.body.flow.ui.nodes.find((n: any) => n.attributes.name === 'csrf_token').attributes.value as string;
  return { agent, flow: page.body.flow.id as string, csrf };
}

async function trySignIn(ip: string, identifier: string, password: string, headers: Record<string, string> = json) {
  const { agent, flow, csrf } = await loginFlow(ip);
  return agent.post(`/sign-in?flow=${flow}`).set(headers).set('X-Forwarded-For', ip).send({ csrf_token: csrf, identifier, password });
}

describe('sign-in rate limits', () => {
  it('stop an attacker IP with 429 + Retry-After while a real user on another IP still signs in', async () => {
    const user = 'real.user@example.com';
    await identities.create({ email: user, password: PASSWORD, name: 'Test User', verified: true });
    const attacker = '198.51.100.66';
    for (let i = 0; i < 6; i += 1) {
      const res = await trySignIn(attacker, `victim${i}@example.com`, 'wrong-password-1');
      expect(res.status).toBe(400);
    }
    const blocked = await trySignIn(attacker, 'victim9@example.com', 'wrong-password-1');
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(blocked.body).toMatchObject({ code: 'too_many_requests', meta: { retryAfterSeconds: Number(blocked.headers['retry-after']) } });
    // Even the right password is refused from that IP now.
    expect((await trySignIn(attacker, user, PASSWORD)).status).toBe(429);

    const ok = await trySignIn('203.0.113.10', user, PASSWORD);
    expect(ok.status).toBe(200);
    expect(ok.body.redirect_to).toBe('/');
  });

  it('count the forms of one scope together: failed passwords use up the same IP’s Google One Tap attempts', async () => {
    const attacker = '198.51.100.77';
    for (let i = 0; i < 6; i += 1) expect((await trySignIn(attacker, `target${i}@example.com`, 'wrong-password-2')).status).toBe(400);
    // One Tap is a sign-in too: with its own counter space (as the in-memory limits had) this would be its first attempt.
    const oneTapFrom = (ip: string) =>
      request(stack.appUrl).post('/sign-in/google-one-tap').set(json).set('X-Forwarded-For', ip).send({ credential: 'not-a-token' });
    const refused = await oneTapFrom(attacker);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'too_many_requests' });
    // Another address still reaches One Tap's own answer.
    const other = await oneTapFrom('203.0.113.77');
    expect(other.status).not.toBe(429);
    expect(other.status).toBeGreaterThanOrEqual(400);
  });

  it('stop one email hammered from many IPs', async () => {
    const victim = 'hammered@example.com';
    await identities.create({ email: victim, password: PASSWORD, name: 'Test User', verified: true });
    for (let i = 0; i < 3; i += 1) expect((await trySignIn(`192.0.2.${10 + i}`, victim, `guess-${i}-password`)).status).toBe(400);
    const blocked = await trySignIn('192.0.2.99', ` ${victim.toUpperCase()} `, 'another-guess');
    expect(blocked.status).toBe(429);
    // Other accounts from those IPs are unaffected.
    const other = 'bystander@example.com';
    await identities.create({ email: other, password: PASSWORD, name: 'Test User', verified: true });
    expect((await trySignIn('192.0.2.10', other, PASSWORD)).status).toBe(200);
  });

  it('answer a plain browser with a translated page and the form island with the fragment', async () => {
    const ip = '198.51.100.77';
    for (let i = 0; i < 6; i += 1) await trySignIn(ip, `x${i}@example.com`, 'wrong-password-2');
    const { agent, flow, csrf } = await loginFlow('198.51.100.78');
    const page = await agent
      .post(`/sign-in?flow=${flow}&lng=vi`)
      .set('X-Forwarded-For', ip)
      .type('form')
      .send({ csrf_token: csrf, identifier: 'x@example.com', password: 'wrong-password-2' })
      .expect(429);
    expect(page.headers['content-type']).toMatch(/html/);
    expect(Number(page.headers['retry-after'])).toBeGreaterThan(0);
    const text = visibleText(page.text);
    expect(text).toContain(vi.rateLimit.title);
    expect(text).toContain(vi.rateLimit.message.split('{{')[0].trim());
    expect(page.text).toContain(`<title>${vi.rateLimit.title}</title>`);

    const fragment = await agent
      .post(`/sign-in?flow=${flow}`)
      .set('X-Forwarded-For', ip)
      .set('X-Enhance', '1')
      .type('form')
      .send({ csrf_token: csrf, identifier: 'x@example.com', password: 'wrong-password-2' })
      .expect(429);
    // The form island swaps the form with the same id: the notice comes as the sign-in form.
    expect(fragment.text.startsWith('<form id="sign-in-form"')).toBe(true);
    expect(fragment.text).toContain('role="alert"');
    expect(fragment.text).not.toContain('<html');
  });
});

describe('recovery, verification and resend rate limits', () => {
  async function recoveryForm(ip: string) {
    const agent = request.agent(stack.appUrl);
    const page = await agent.get('/forgot-password').set('X-Forwarded-For', ip).expect(200);
    const start = flowFormAction(page.text);
    return { agent, action: start, csrf: csrfFrom(page.text) };
  }

  it('limit recovery per email across IPs, with the documented JSON answer', async () => {
    const email = 'recover.me@example.com';
    for (let i = 0; i < 2; i += 1) {
      const { agent, action, csrf } = await recoveryForm(`203.0.113.${50 + i}`);
      await agent
        .post(action)
        .set('X-Forwarded-For', `203.0.113.${50 + i}`)
        .type('form')
        .send({ csrf_token: csrf, email })
        .expect(303);
    }
    const { agent, action, csrf } = await recoveryForm('203.0.113.59');
    const blocked = await agent.post(action).set(json).set('X-Forwarded-For', '203.0.113.59').send({ csrf_token: csrf, email }).expect(429);
    contract.response('post', '/forgot-password', 429, blocked.body);
    expect(blocked.headers['retry-after']).toBeDefined();
  });

  it('limit recovery per IP', async () => {
    const ip = '203.0.113.70';
    for (let i = 0; i < 4; i += 1) {
      const { agent, action, csrf } = await recoveryForm(ip);
      await agent
        .post(action)
        .set('X-Forwarded-For', ip)
        .type('form')
        .send({ csrf_token: csrf, email: `someone${i}@example.com` })
        .expect(303);
    }
    const { agent, action, csrf } = await recoveryForm(ip);
    await agent.post(action).set('X-Forwarded-For', ip).type('form').send({ csrf_token: csrf, email: 'last@example.com' }).expect(429);
  });

  it('limit code guessing on verification per IP', async () => {
    const ip = '203.0.113.80';
    const agent = request.agent(stack.appUrl);
    const page = await agent.get('/verify-account').set('X-Forwarded-For', ip).expect(200);
    const start = flowFormAction(page.text);
    const csrf = csrfFrom(page.text);
    for (let i = 0; i < 3; i += 1) {
      const res = await agent
        .post(start)
        .set('X-Forwarded-For', ip)
        .type('form')
        .send({ csrf_token: csrf, code: `12345${i}` });
      expect(res.status).not.toBe(429);
    }
    const blocked = await agent.post(start).set(json).set('X-Forwarded-For', ip).send({ csrf_token: csrf, code: '123459' }).expect(429);
    contract.response('post', '/verify-account', 429, blocked.body);
  });

  it('limit resend per email', async () => {
    const email = 'flooded.inbox@example.com';
    const send = async (ip: string) => {
      const agent = request.agent(stack.appUrl);
      const page = await agent.get('/sign-up/resend-verification-email').set('X-Forwarded-For', ip).expect(200);
      const start = flowFormAction(page.text);
      return agent
        .post(start)
        .set(json)
        .set('X-Forwarded-For', ip)
        .send({ csrf_token: csrfFrom(page.text), email });
    };
    expect((await send('203.0.113.90')).status).toBe(200);
    expect((await send('203.0.113.91')).status).toBe(200);
    const blocked = await send('203.0.113.92');
    expect(blocked.status).toBe(429);
    contract.response('post', '/sign-up/resend-verification-email', 429, blocked.body);
  });
});

describe('sign-up rate limits', () => {
  /** A fresh registration form on `ip`: its action and CSRF token (JSON, as integrators post). */
  async function signUpForm(ip: string) {
    const agent = request.agent(stack.appUrl);
    const page = await agent.get('/sign-up').set(json).set('X-Forwarded-For', ip).expect(200);
    const csrf = page.body.flow.ui.nodes.find((n: any) => n.attributes.name === 'csrf_token').attributes.value as string;
    return { agent, flow: page.body.flow.id as string, csrf };
  }
  const post = (form: Awaited<ReturnType<typeof signUpForm>>, ip: string, body: Record<string, unknown>) =>
    form.agent
      .post(`/sign-up?flow=${form.flow}`)
      .set(json)
      .set('X-Forwarded-For', ip)
      .send({ csrf_token: form.csrf, ...body });

  it('count completed sign-ups per address, never the steps, typos and retries before one', async () => {
    const email = uniqueEmail('typo-prone');
    identities.track(email);
    const ip = '198.51.100.70';
    // Mistakes and first steps, well past the per-address limit of 1: none is refused.
    for (let i = 0; i < 4; i += 1) {
      const form = await signUpForm(ip);
      const refused = await post(form, ip, { method: 'profile', traits: { email, name: 'Ada' } }); // terms not accepted
      expect(refused.status).toBe(400);
      const step = await post(form, ip, { method: 'profile', traits: { email, name: 'Ada' }, terms: 'on' });
      expect(step.status).toBeLessThan(429);
    }
    const form = await signUpForm(ip);
    const done = await post(form, ip, { method: 'password', traits: { email, name: 'Ada' }, password: PASSWORD, terms: 'on' });
    expect(done.status).toBe(200);
    // One completed sign-up is the limit here: the address gets no more mail through sign-up this hour.
    const again = await post(await signUpForm(ip), ip, { method: 'profile', traits: { email, name: 'Ada' }, terms: 'on' });
    expect(again.status).toBe(429);
    contract.response('post', '/sign-up', 429, again.body);
    expect(again.body.message).toMatch(/\d+ min/);
  });
});
