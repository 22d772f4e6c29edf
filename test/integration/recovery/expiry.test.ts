// Expired flows on the recovery and verification screens: a submit to an expired flow moves the browser
// to the replacement flow, which says why; a GET of an expired flow starts a new one. The stand-in runs
// on a test clock, moved past the flow lifespan instead of waiting for it.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestClock } from '../../../embedded/clock.ts';
import { configureRateLimits } from '../../../server/security/rate-limit.ts';
import { configureUniformTiming } from '../../../server/security/uniform-timing.ts';
import { csrfFrom, flowIdOf } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';

let stack: Stack;
const clock = createTestClock();
const LIFESPAN_MS = 60_000;
/** Moves the stand-ins' time just past the flow lifespan. */
const expire = () => clock.advance(LIFESPAN_MS + 1_000);
const json = { Accept: 'application/json' };

beforeAll(async () => {
  configureRateLimits({ recovery: { perIp: 10_000, perEmail: 10_000 }, verification: { perIp: 10_000, perEmail: 10_000 } });
  configureUniformTiming(0);
  stack = await startStack({
    identityConfig: { selfservice: { flows: { recovery: { lifespan: `${LIFESPAN_MS}ms` }, verification: { lifespan: `${LIFESPAN_MS}ms` } } } } as never,
    clock,
  });
});
afterAll(() => stack?.close());

describe.each([
  { path: '/forgot-password', messageId: 4060005 },
  { path: '/sign-up/verification', messageId: 4070005 },
])('$path with an expired flow', ({ path, messageId }) => {
  it('a submit moves to the replacement flow carrying the expiry message', async () => {
    const agent = request.agent(stack.appUrl);
    const start = await agent.get(path).expect(303);
    const flow = flowIdOf(start.headers.location);
    const page = await agent.get(start.headers.location!).expect(200);
    expire();
    const sent = await agent
      .post(start.headers.location!)
      .type('form')
      .send({ csrf_token: csrfFrom(page.text), email: 'late@example.com' })
      .expect(303);
    const next = flowIdOf(sent.headers.location);
    expect(next).not.toBe(flow);
    const shown = await agent.get(sent.headers.location!).expect(200);
    expect(shown.text).toContain(`data-message-id="${messageId}"`);
  });

  it('JSON callers get 410 with the replacement flow', async () => {
    const agent = request.agent(stack.appUrl);
    const start = await agent.get(path).set(json).expect(200);
    const csrf = start.body.flow.ui.nodes.find((n: any) => n.attributes.name === 'csrf_token').attributes.value;
    expire();
    const res = await agent.post(start.body.flow.ui.action).set(json).send({ csrf_token: csrf, email: 'late@example.com' }).expect(410);
    expect(res.body.flow.id).not.toBe(start.body.flow.id);
    expect(res.body.meta.flowId).toBe(res.body.flow.id);
  });

  it('a GET of an expired flow starts a new one', async () => {
    const agent = request.agent(stack.appUrl);
    const start = await agent.get(path).expect(303);
    expire();
    const again = await agent.get(start.headers.location!).expect(303);
    expect(flowIdOf(again.headers.location)).not.toBe(flowIdOf(start.headers.location));
  });
});
