import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureRateLimits } from '../../../server/security/rate-limit.ts';
import { startStack, type Stack } from '../../support/stack.ts';
import { hostileReturnTos } from '../../unit/security/return-to-cases.ts';
import { createIdentity } from '../../support/flow-helpers.ts';

let stack: Stack;
let cases: string[];
const EXTRA_ALLOWED = 'https://docs.example.com/app';
const PASSWORD = 'Return-To-Phrase-99';
const json = { Accept: 'application/json' };

beforeAll(async () => {
  configureRateLimits({ 'sign-in': { perIp: 100_000, perEmail: 100_000 } });
  stack = await startStack({ env: { ALLOWED_RETURN_URLS: EXTRA_ALLOWED } });
  const ours = new URL(stack.appUrl).host;
  cases = [...new Set([...hostileReturnTos(ours), ...hostileReturnTos('accounts.example.com')])];
});
afterAll(() => stack?.close());

const label = (value: string) => JSON.stringify(value).slice(0, 160);

/** A redirect target is fine when it stays on the app or inside the extra allow-listed prefix. */
function assertAllowed(location: string | undefined, returnTo: string): void {
  expect(location, `no Location for ${label(returnTo)}`).toBeTruthy();
  const url = new URL(location!, stack.appUrl);
  const app = new URL(stack.appUrl);
  const extra = new URL(EXTRA_ALLOWED);
  const onApp = url.origin === app.origin && url.username === '' && url.password === '';
  const onExtra = url.origin === extra.origin && (url.pathname === extra.pathname || url.pathname.startsWith(`${extra.pathname}/`));
  expect(onApp || onExtra, `${label(returnTo)} → ${location}`).toBe(true);
  // Relative answers must not be protocol-relative or backslash tricks a browser would send elsewhere.
  if (!/^https?:/i.test(location!)) expect(location!).toMatch(/^\/(?![/\\])/);
}

async function signedInAgent(email: string) {
  await createIdentity(stack, email, PASSWORD, { verified: true });
  const agent = request.agent(stack.appUrl);
  const page = await agent.get('/sign-in').set(json).expect(200);
  const csrf = page.body.flow.ui.nodes.find((n: any) => n.attributes.name === 'csrf_token').attributes.value;
  await agent.post(`/sign-in?flow=${page.body.flow.id}`).set(json).send({ csrf_token: csrf, identifier: email, password: PASSWORD }).expect(200);
  return agent;
}

describe('return_to tricks never redirect off the allow-list', () => {
  it('has at least 200 tricks to try', () => {
    expect(cases.length).toBeGreaterThanOrEqual(200);
  });

  it('guest GETs of /sign-in, /sign-up and /forgot-password stay on the app', { timeout: 120_000 }, async () => {
    const agent = request.agent(stack.appUrl);
    for (const returnTo of cases) {
      for (const path of ['/sign-in', '/sign-up', '/forgot-password']) {
        const res = await agent.get(path).query({ return_to: returnTo });
        expect(res.status, `${path} ${label(returnTo)}`).toBeLessThan(500);
        if (res.status >= 300 && res.status < 400) assertAllowed(res.headers.location, returnTo);
      }
    }
  });

  it('signed-in GETs of the guest-only pages send the user on only to allowed places', { timeout: 120_000 }, async () => {
    const agent = await signedInAgent('signed.in.return@example.com');
    let sentOn = 0;
    for (const returnTo of cases) {
      for (const path of ['/sign-in', '/sign-up', '/forgot-password']) {
        const res = await agent.get(path).query({ return_to: returnTo });
        // Node itself refuses the longest values (431): no redirect at all is fine too.
        expect([303, 431], `${path} ${label(returnTo)}`).toContain(res.status);
        if (res.status === 303) {
          assertAllowed(res.headers.location, returnTo);
          sentOn += 1;
        }
      }
    }
    expect(sentOn).toBeGreaterThan(cases.length * 3 * 0.95);
    // The allowed ones do go where they asked.
    const good = await agent.get('/sign-in').query({ return_to: `${EXTRA_ALLOWED}/doc/1` }).expect(303);
    expect(good.headers.location).toBe(`${EXTRA_ALLOWED}/doc/1`);
  });

  it('a successful sign-in with a trick return_to lands on the app', { timeout: 120_000 }, async () => {
    const email = 'trick.sign.in@example.com';
    await createIdentity(stack, email, PASSWORD, { verified: true });
    const sample = cases.filter((_value, index) => index % 8 === 0);
    for (const returnTo of sample) {
      const agent = request.agent(stack.appUrl);
      const page = await agent.get('/sign-in').query({ return_to: returnTo }).set(json).expect(200);
      const csrf = page.body.flow.ui.nodes.find((n: any) => n.attributes.name === 'csrf_token').attributes.value;
      const done = await agent
        .post(`/sign-in?${new URLSearchParams({ flow: page.body.flow.id, return_to: returnTo })}`)
        .type('form')
        .send({ csrf_token: csrf, identifier: email, password: PASSWORD });
      expect([303, 431], label(returnTo)).toContain(done.status);
      if (done.status === 303) assertAllowed(done.headers.location, returnTo);
    }
  });
});
