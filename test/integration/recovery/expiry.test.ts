// Expired flows on the recovery and verification screens: a submit to an expired flow moves the browser
// to the replacement flow, which says why; a GET of an expired flow starts a new one. The stand-in runs
// on a test clock, moved past the flow lifespan instead of waiting for it; real Kratos reads the real
// time, so there the flows live two seconds and the test waits until Kratos itself calls the flow gone.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestClock } from '../../../embedded/clock.ts';
import { configureRateLimits } from '../../../server/security/rate-limit.ts';
import { configureUniformTiming } from '../../../server/security/uniform-timing.ts';
import { csrfFrom, flowFormAction, flowIdOf } from '../../support/http.ts';
import { onRealKratos, startStack, type Stack } from '../../support/stack.ts';

let stack: Stack;
const clock = createTestClock();
const LIFESPAN_MS = onRealKratos ? 2_000 : 60_000;
const json = { Accept: 'application/json' };
type Agent = ReturnType<typeof request.agent>;

/**
 * Past the lifespan of the agent's flow `id`: the stand-in's clock is moved; on real Kratos this waits
 * until Kratos answers the flow with 410 (fetched as the agent's browser, with its cookies).
 */
async function expire(agent: Agent, path: string, id: string): Promise<void> {
  if (!onRealKratos) return void clock.advance(LIFESPAN_MS + 1_000);
  const kind = path === '/forgot-password' ? 'recovery' : 'verification';
  const cookie = (agent as unknown as { jar: { getCookies(o: object): { toValueString(): string }[] } }).jar
    .getCookies({ domain: '127.0.0.1', path: '/', secure: false, script: false })
    .map((entry) => entry.toValueString())
    .join('; ');
  await vi.waitFor(
    async () => {
      const answer = await fetch(`${stack.identity.publicUrl}/self-service/${kind}/flows?id=${id}`, { headers: { accept: 'application/json', cookie } });
      expect(answer.status).toBe(410);
    },
    { timeout: LIFESPAN_MS + 5_000, interval: 100 },
  );
}

beforeAll(async () => {
  configureRateLimits({ recovery: { perIp: 10_000, perEmail: 10_000 }, verification: { perIp: 10_000, perEmail: 10_000 } });
  configureUniformTiming(0);
  stack = await startStack({
    identityConfig: { selfservice: { flows: { recovery: { lifespan: `${LIFESPAN_MS}ms` }, verification: { lifespan: `${LIFESPAN_MS}ms` } } } } as never,
    clock: onRealKratos ? undefined : clock,
  });
});
afterAll(() => stack?.close());

describe.each([
  { path: '/forgot-password', messageId: 4060005 },
  { path: '/sign-up/verification', messageId: 4070005 },
])('$path with an expired flow', ({ path, messageId }) => {
  it('a submit moves to the replacement flow carrying the expiry message', async () => {
    const agent = request.agent(stack.appUrl);
    const page = await agent.get(path).expect(200);
    const start = flowFormAction(page.text);
    const flow = flowIdOf(start);
    await expire(agent, path, flow);
    const sent = await agent
      .post(start)
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
    await expire(agent, path, start.body.flow.id);
    const res = await agent.post(start.body.flow.ui.action).set(json).send({ csrf_token: csrf, email: 'late@example.com' }).expect(410);
    expect(res.body.flow.id).not.toBe(start.body.flow.id);
    expect(res.body.meta.flowId).toBe(res.body.flow.id);
  });

  it('a GET of an expired flow starts a new one', async () => {
    const agent = request.agent(stack.appUrl);
    const start = flowFormAction((await agent.get(path).expect(200)).text);
    await expire(agent, path, flowIdOf(start));
    const again = await agent.get(start).expect(200);
    expect(flowIdOf(flowFormAction(again.text))).not.toBe(flowIdOf(start));
  });
});
