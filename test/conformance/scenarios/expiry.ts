// Expired flows (contract §6.2, §6.4, 410): each scenario makes one flow's lifespan one second, waits
// until the flow's expires_at has passed (a condition, not a fixed sleep), then reads and submits it
// as JSON (410) and as a browser form (a new flow), and reads the new flow.
import type { Client } from '../client.ts';
import type { Scenario, ScenarioContext } from '../harness.ts';
import type { ScenarioConfig } from '../targets.ts';
import { createFlow, getFlow, newIdentity, signedInBrowser, STRONG_PASSWORD, submitForm, submitJson, untilExpired, type Flow, type FlowKind } from './steps.ts';

const tiny = (kind: FlowKind): ScenarioConfig => ({ selfservice: { flows: { [kind]: { lifespan: '1s' } } } });

/** Reads, submits (JSON then form) an expired flow, then reads the flow it was replaced with. */
async function expire(
  ctx: ScenarioContext,
  client: Client,
  kind: FlowKind,
  flow: Flow,
  body: Record<string, string>,
  jsonBody: Record<string, unknown> = body,
): Promise<void> {
  await untilExpired(flow);
  await getFlow(ctx, client, kind, flow.id);
  const json = await submitJson(client, flow, jsonBody);
  const form = await submitForm(client, flow, body);
  const replacement = (json.body as { use_flow_id?: string }).use_flow_id;
  if (replacement) await getFlow(ctx, client, kind, replacement);
  const next = form.location ? new URL(form.location).searchParams.get('flow') : null;
  if (next) await getFlow(ctx, client, kind, next);
}

export const expiryScenarios: Scenario[] = [
  {
    name: 'expired login flow: 410 on read and JSON submit, a new flow for the browser',
    config: tiny('login'),
    async run(ctx) {
      const identity = await newIdentity(ctx);
      const client = ctx.browser();
      const flow = await createFlow(ctx, client, 'login', `?return_to=${encodeURIComponent(`${ctx.target.appUrl}/after`)}`);
      await expire(ctx, client, 'login', flow, { method: 'password', identifier: identity.email, password: STRONG_PASSWORD });
    },
  },
  {
    name: 'expired registration flow',
    config: tiny('registration'),
    async run(ctx) {
      const client = ctx.browser();
      const flow = await createFlow(ctx, client, 'registration');
      await expire(
        ctx,
        client,
        'registration',
        flow,
        { method: 'profile', 'traits.email': 'late@example.com' },
        { method: 'profile', traits: { email: 'late@example.com' } },
      );
    },
  },
  {
    name: 'expired recovery flow',
    config: tiny('recovery'),
    async run(ctx) {
      const client = ctx.browser();
      const flow = await createFlow(ctx, client, 'recovery');
      await expire(ctx, client, 'recovery', flow, { method: 'code', email: 'late@example.com' });
    },
  },
  {
    name: 'expired verification flow',
    config: tiny('verification'),
    async run(ctx) {
      const client = ctx.browser();
      const flow = await createFlow(ctx, client, 'verification');
      await expire(ctx, client, 'verification', flow, { method: 'code', email: 'late@example.com' });
    },
  },
  {
    name: 'expired settings flow',
    config: tiny('settings'),
    async run(ctx) {
      const { client } = await signedInBrowser(ctx);
      const flow = await createFlow(ctx, client, 'settings');
      await expire(ctx, client, 'settings', flow, { method: 'password', password: 'Amber-Lantern-Falcon-27' });
    },
  },
];
