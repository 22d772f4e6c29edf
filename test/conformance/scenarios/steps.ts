// Building blocks of the scenarios: creating and reading flows as the app (SDK-style JSON calls) or a
// browser (navigation, then Kratos's own form posted) would, submitting them, and the set-up steps
// (identities through the admin API, a signed-in browser, the mailed code or link) that scenarios
// usually leave out of the comparison (`record: false`). Nothing here waits a fixed time.
import { vi } from 'vitest';
import type { Answer, Client } from '../client.ts';
import type { ScenarioContext } from '../harness.ts';
import { createIdentity, STRONG_PASSWORD, uniqueEmail, type IdentityOptions, type TestIdentity } from '../../support/fixtures.ts';

export { STRONG_PASSWORD, uniqueEmail };

export type FlowKind = 'login' | 'registration' | 'settings' | 'recovery' | 'verification';
export type UiNode = { group: string; attributes: { name?: string; value?: unknown; type?: string; href?: string } };
export type Flow = {
  id: string;
  expires_at: string;
  return_to?: string;
  ui: { action: string; nodes: UiNode[] };
  continue_with?: { action: string; flow?: { id: string; url?: string } }[];
};

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The flow in an answer (a 200 or a 400 with the flow); throws with the status otherwise. */
export function asFlow(answer: Answer): Flow {
  const body = answer.body;
  if (!isRecord(body) || typeof body.id !== 'string' || !isRecord(body.ui))
    throw new Error(`expected a flow, got ${answer.status}: ${answer.text.slice(0, 300)}`);
  return body as unknown as Flow;
}

export function nodeValue(flow: Flow, name: string): string {
  const node = flow.ui.nodes.find((n) => n.attributes.name === name);
  if (!node) throw new Error(`the flow has no ${name} node`);
  return String(node.attributes.value ?? '');
}

export const csrfOf = (flow: Flow) => nodeValue(flow, 'csrf_token');

/** The CSRF field a submit carries: the flow's token, or none when the flow has no CSRF node (admin-made flows). */
const csrfField = (flow: Flow): Record<string, string> => (flow.ui.nodes.some((n) => n.attributes.name === 'csrf_token') ? { csrf_token: csrfOf(flow) } : {});

type Record_ = { record?: boolean };

/** A browser flow created the way the app does: GET /self-service/<kind>/browser with Accept: application/json. */
export async function createFlow(ctx: ScenarioContext, client: Client, kind: FlowKind, query = '', options: Record_ = {}): Promise<Flow> {
  return asFlow(await client.getJson(ctx.pub(`/self-service/${kind}/browser${query}`), options));
}

/** The flow, read like the app's UI page reads it (JSON, the browser's cookies). */
export async function getFlow(ctx: ScenarioContext, client: Client, kind: FlowKind, id: string, options: Record_ = {}): Promise<Answer> {
  return client.getJson(ctx.pub(`/self-service/${kind}/flows?id=${encodeURIComponent(id)}`), options);
}

/** A browser flow created by a browser navigation (303 to the UI with ?flow=), then read as its page would. */
export async function navigateToFlow(ctx: ScenarioContext, client: Client, kind: FlowKind, query = ''): Promise<Flow> {
  const answer = await client.get(ctx.pub(`/self-service/${kind}/browser${query}`), { variant: 'browser' });
  const id = answer.location ? new URL(answer.location).searchParams.get('flow') : null;
  if (!id) throw new Error(`expected a redirect to the ${kind} UI, got ${answer.status} ${answer.location ?? ''}`);
  return asFlow(await getFlow(ctx, client, kind, id));
}

/** The SDK-style submit: JSON, the flow's CSRF token added. */
export function submitJson(client: Client, flow: Flow, body: Record<string, unknown>, options: Record_ = {}): Promise<Answer> {
  return client.postJson(flow.ui.action, { ...csrfField(flow), ...body }, options);
}

/** A browser posting Kratos's own form: urlencoded, no Accept, the CSRF token first as the form has it. */
export function submitForm(client: Client, flow: Flow, fields: [string, string][] | Record<string, string>): Promise<Answer> {
  const list = Array.isArray(fields) ? fields : Object.entries(fields);
  return client.postForm(flow.ui.action, [...Object.entries(csrfField(flow)), ...list]);
}

/** An identity through the admin API, not recorded (verified, STRONG_PASSWORD unless told otherwise). */
export function newIdentity(ctx: ScenarioContext, options: IdentityOptions = {}): Promise<TestIdentity> {
  return createIdentity(ctx.target.adminUrl, { prefix: 'conformance', ...options });
}

/** Signs `client` in through a JSON login flow; not recorded unless asked. */
export async function signIn(
  ctx: ScenarioContext,
  client: Client,
  email: string,
  password = STRONG_PASSWORD,
  options: Record_ = { record: false },
): Promise<Answer> {
  const flow = await createFlow(ctx, client, 'login', '', options);
  const answer = await submitJson(client, flow, { method: 'password', identifier: email, password }, options);
  if (answer.status !== 200) throw new Error(`sign-in failed: ${answer.status} ${answer.text.slice(0, 300)}`);
  return answer;
}

/** A verified identity and a browser signed in as it. */
export async function signedInBrowser(ctx: ScenarioContext, options: IdentityOptions = {}): Promise<{ identity: TestIdentity; client: Client }> {
  const identity = await newIdentity(ctx, options);
  const client = ctx.browser();
  await signIn(ctx, client, identity.email, identity.password);
  return { identity, client };
}

type Message = { recipient: string; template_type: string; body: string; created_at: string; status?: string };

/** The courier messages to `email` (admin API, not recorded), oldest first. */
export async function mailTo(ctx: ScenarioContext, email: string): Promise<Message[]> {
  const response = await fetch(ctx.adm(`/admin/courier/messages?recipient=${encodeURIComponent(email)}`), { headers: { accept: 'application/json' } });
  const list = (await response.json()) as Message[];
  return list.filter((m) => m.recipient === email.toLowerCase()).sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));
}

/** Waits for the `count`-th message to `email` and returns it. */
export async function waitForMail(ctx: ScenarioContext, email: string, count = 1): Promise<Message> {
  return vi.waitFor(
    async () => {
      const list = await mailTo(ctx, email);
      if (list.length < count) throw new Error(`${list.length} message(s) to ${email}, waiting for ${count}`);
      return list[count - 1]!;
    },
    { timeout: 10_000, interval: 50 },
  );
}

/** The six-digit code in the newest message to `email` (waiting for message number `count`). */
export async function mailedCode(ctx: ScenarioContext, email: string, count = 1): Promise<string> {
  const message = await waitForMail(ctx, email, count);
  const code = /\b(\d{6})\b/.exec(message.body)?.[1];
  if (!code) throw new Error(`no code in the ${message.template_type} message to ${email}`);
  return code;
}

/** The first link to the public API in the newest message to `email`. */
export async function mailedLink(ctx: ScenarioContext, email: string, count = 1): Promise<string> {
  const message = await waitForMail(ctx, email, count);
  const link = new RegExp(`${ctx.target.publicUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/\\S+`).exec(message.body)?.[0];
  if (!link) throw new Error(`no link in the ${message.template_type} message to ${email}`);
  return link.replace(/&amp;/g, '&');
}

/** Waits until `moment` (ms since the epoch) has passed, checking the condition rather than sleeping a fixed time. */
export async function until(moment: number): Promise<void> {
  await vi.waitFor(
    () => {
      if (Date.now() <= moment) throw new Error('not yet');
    },
    { timeout: 15_000, interval: 50 },
  );
}

/** Waits until the flow has expired on both services' clocks (its expires_at has passed). */
export const untilExpired = (flow: Flow) => until(Date.parse(flow.expires_at) + 50);
