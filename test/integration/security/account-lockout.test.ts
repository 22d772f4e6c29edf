// Issue 10 #4 and #5: per-account limits key on the field each form acts on, and a stranger guessing
// an account's password cannot lock its owner out of the device they sign in from (decision 031).
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetRateLimitSettings } from '../../../server/security/rate-limit.ts';
import { configureUniformTiming } from '../../../server/security/uniform-timing.ts';
import { useIdentities } from '../../support/fixtures.ts';
import { csrfFrom, flowFormAction } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';

let stack: Stack;
const PASSWORD = 'Lockout-Phrase-Quartz-81';
const json = { Accept: 'application/json' };

beforeAll(async () => {
  resetRateLimitSettings(); // the defaults: 10 failures per account and IP, 50 per account, 100 per IP
  configureUniformTiming(0);
  stack = await startStack();
});
afterAll(async () => {
  resetRateLimitSettings();
  await stack?.close();
});
const identities = useIdentities(() => stack.identity.adminUrl);

type Agent = ReturnType<typeof request.agent>;

async function trySignIn(agent: Agent, ip: string, identifier: string, password: string) {
  const page = await agent.get('/sign-in').set(json).set('X-Forwarded-For', ip).expect(200);
  const csrf = page.body.flow.ui.nodes.find((n: any) => n.attributes.name === 'csrf_token').attributes.value as string;
  return agent.post(`/sign-in?flow=${page.body.flow.id}`).set(json).set('X-Forwarded-For', ip).send({ csrf_token: csrf, identifier, password });
}

/** A fresh browser that keeps only the known-device cookie a sign-in gave (signed out, as the next day). */
function deviceOf(answer: request.Response): Agent {
  const line = (answer.headers['set-cookie'] as unknown as string[] | undefined)?.find((cookie) => cookie.startsWith('known_device='));
  expect(line).toBeDefined();
  const agent = request.agent(stack.appUrl);
  agent.jar.setCookie(line!.split(';')[0]!, new URL(stack.appUrl).hostname, '/');
  return agent;
}

describe('sign-in lockout (issue 10 #5)', () => {
  it('an attacker failing 50 times from other IPs is stopped, while the owner still signs in from their device', async () => {
    const owner = 'locked.owner@example.com';
    await identities.create({ email: owner, password: PASSWORD, name: 'Owner', verified: true });
    const first = await trySignIn(request.agent(stack.appUrl), '203.0.113.200', owner, PASSWORD);
    expect(first.status).toBe(200);

    // 50 failures from five addresses (10 each: the per account-and-IP limit stops an address at 10).
    for (let i = 0; i < 50; i += 1) {
      const answer = await trySignIn(request.agent(stack.appUrl), `198.51.100.${10 + Math.floor(i / 10)}`, owner, `wrong-guess-${i}`);
      expect(answer.status).toBe(400);
    }
    expect((await trySignIn(request.agent(stack.appUrl), '198.51.100.10', owner, 'wrong-again')).status).toBe(429);
    // The attacker is still stopped, from a fresh address and even with the right password.
    expect((await trySignIn(request.agent(stack.appUrl), '198.51.100.99', owner, 'one-more-guess')).status).toBe(429);
    expect((await trySignIn(request.agent(stack.appUrl), '198.51.100.98', owner, PASSWORD)).status).toBe(429);

    // The owner, from the device they signed in with before, still gets in: at home, and on the attacker's address.
    expect((await trySignIn(deviceOf(first), '203.0.113.200', owner, PASSWORD)).status).toBe(200);
    expect((await trySignIn(deviceOf(first), '198.51.100.10', owner, PASSWORD)).status).toBe(200);
    // A new device of the owner is treated like the stranger's until the window ends (recovery still works).
    expect((await trySignIn(request.agent(stack.appUrl), '203.0.113.201', owner, PASSWORD)).status).toBe(429);
  });

  it('a forged or foreign known-device cookie earns nothing', async () => {
    const target = 'forged.device@example.com';
    await identities.create({ email: target, password: PASSWORD, name: 'Target', verified: true });
    const other = 'other.device@example.com';
    await identities.create({ email: other, password: PASSWORD, name: 'Other', verified: true });
    // A device that signed in to ANOTHER account is not a known device of the target.
    const attacker = deviceOf(await trySignIn(request.agent(stack.appUrl), '192.0.2.150', other, PASSWORD));
    for (let i = 0; i < 10; i += 1) expect((await trySignIn(attacker, '192.0.2.150', target, `guess-${i}-x`)).status).toBe(400);
    expect((await trySignIn(attacker, '192.0.2.150', target, 'guess-11-x')).status).toBe(429);
    const forged = request.agent(stack.appUrl);
    forged.jar.setCookie('known_device=eyJkIjoieCIsImEiOltdfQ.forged-signature', new URL(stack.appUrl).hostname, '/');
    expect((await trySignIn(forged, '192.0.2.150', target, 'guess-12-x')).status).toBe(429);
  });

  it('one attacker in an office does not lock out a colleague who signs in from their own device', async () => {
    const office = '203.0.113.77';
    const colleague = 'office.colleague@example.com';
    await identities.create({ email: colleague, password: PASSWORD, name: 'Colleague', verified: true });
    const signedIn = await trySignIn(request.agent(stack.appUrl), office, colleague, PASSWORD);
    expect(signedIn.status).toBe(200);
    // Successful sign-ins from the office never count against its address.
    for (let i = 0; i < 5; i += 1) expect((await trySignIn(deviceOf(signedIn), office, colleague, PASSWORD)).status).toBe(200);
    // A hundred failures for unknown addresses, ten at a time: Kratos answers an unknown identifier only
    // after a random delay of about half a second (hashers.argon2.expected_duration), one by one 30 s or more.
    for (let batch = 0; batch < 100; batch += 10) {
      const sprays = Array.from({ length: 10 }, (_, i) => `nobody${batch + i}@example.com`);
      await Promise.all(sprays.map((email) => trySignIn(request.agent(stack.appUrl), office, email, 'spray-password-1')));
    }
    expect((await trySignIn(request.agent(stack.appUrl), office, 'nobody.else@example.com', 'spray-password-1')).status).toBe(429);
    expect((await trySignIn(deviceOf(signedIn), office, colleague, PASSWORD)).status).toBe(200);
  });
});

describe('mail limits key on the mailed field (issue 10 #4)', () => {
  async function flowPost(path: string, ip: string, body: Record<string, string>) {
    const agent = request.agent(stack.appUrl);
    const page = await agent.get(path).set('X-Forwarded-For', ip).expect(200);
    const start = flowFormAction(page.text);
    return agent
      .post(start)
      .set(json)
      .set('X-Forwarded-For', ip)
      .send({ csrf_token: csrfFrom(page.text), ...body });
  }

  it('recovery: a changing decoy identifier does not open a fresh bucket for the mailed address', async () => {
    const email = 'recovery.flood@example.com';
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1)
      statuses.push((await flowPost('/forgot-password', `192.0.2.${30 + i}`, { email, identifier: `decoy${i}@example.com` })).status);
    expect(statuses.slice(0, 5).every((status) => status !== 429)).toBe(true);
    expect(statuses[5]).toBe(429);
  });

  it('resend: likewise for the verification mail', async () => {
    const email = 'resend.flood@example.com';
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1)
      statuses.push((await flowPost('/sign-up/resend-verification-email', `192.0.2.${60 + i}`, { email, identifier: `decoy${i}@example.com` })).status);
    expect(statuses.slice(0, 3).every((status) => status !== 429)).toBe(true);
    expect(statuses[3]).toBe(429);
  });
});
