// The JSON answer mode of the flow screens (Accept: application/json, for integrators), as the feature
// tests use it: GET a screen for its flow state, checked against the zod schema the OpenAPI document is
// generated from, and the CSRF token the flow carries. Each feature's JSON tests live in its own folder
// (sign-in/, sign-up/, logout/).
import { expect } from 'vitest';
import { flowStateResultSchema } from '../../../server/flows/schemas.ts';
import type { Browser } from '../../support/http.ts';

export const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;
export const JSON_ACCEPT = { accept: 'application/json' };

export type Flow = { id: string; ui: { action: string; nodes: { attributes: { name?: string; value?: unknown } }[] } };
export const csrfOf = (flow: Flow): string => String(flow.ui.nodes.find((node) => node.attributes.name === 'csrf_token')?.attributes.value);

/** GETs `path` as JSON: 200, the flow state shape; returns its flow. */
export async function jsonFlow(browser: Browser, path: string): Promise<Flow> {
  const answer = await browser.get(path, JSON_ACCEPT);
  expect(answer.status).toBe(200);
  expect(answer.headers.get('content-type')).toContain('application/json');
  const body = JSON.parse(answer.text);
  expect(flowStateResultSchema.safeParse(body).success).toBe(true);
  return body.flow as Flow;
}
