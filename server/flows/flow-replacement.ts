/**
 * Replacing a flow after a failed submit, keeping what the user typed where Kratos allows it.
 *
 *   replacementFlow(req, res, kind, outcome, params?) → LoadedFlow
 *       expired (410) → the flow Kratos already created (`use_flow_id`, it carries the 40x0001 message);
 *       csrf (403, a flow from another browser or a lost cookie) and missing (404) → a new flow.
 *   prefillFlow(flow, input)  → a copy whose empty, visible, non-secret inputs take the submitted values
 *       (passwords, codes and the CSRF token are never copied back into a page).
 *   withoutEarlierErrors(flow) → a copy without the errors Kratos gave the last post (for a post we refuse ourselves).
 *   withNodeValue(flow, name, value) → a copy with one input's value replaced (a refused entry shown as typed).
 *   restartNotice(reason)     → the `flowError.*` key explaining why the form was reset.
 *   flowState(flow, action)   → the JSON "flow state" integrators get: the flow with `ui.action` pointing
 *       at OUR endpoint (they post there, never to Kratos directly).
 */
import type { Request, Response } from 'express';
import { getFlow, loadFlow, type CreateFlowParams, type LoadedFlow, type RestartReason, type SubmitOutcome } from './kratos.ts';
import type { FlowKind, KratosFlow, UiNode, UiText } from '../../core/kratos/types.ts';

const SECRET_FIELDS = new Set(['password', 'csrf_token', 'code', 'totp_code', 'lookup_secret']);

export async function replacementFlow(req: Request, res: Response, kind: FlowKind, outcome: SubmitOutcome, params: CreateFlowParams = {}): Promise<LoadedFlow> {
  if (outcome.type === 'expired' && outcome.newFlowId) {
    const next = await getFlow(req, res, kind, outcome.newFlowId);
    if (next.ok) return { ok: true, flow: next.data, created: true, restarted: 'expired' };
  }
  const loaded = await loadFlow(req, res, kind, undefined, params);
  if (loaded.ok) return { ...loaded, restarted: outcome.type === 'csrf' ? 'foreign' : outcome.type === 'expired' ? 'expired' : 'missing' };
  return loaded;
}

function prefillNode(node: UiNode, input: Readonly<Record<string, string | undefined>>): UiNode {
  const a = node.attributes;
  const name = a.name;
  if (!name || a.node_type !== 'input' || SECRET_FIELDS.has(name)) return node;
  if (a.type === 'submit' || a.type === 'button' || a.type === 'hidden') return node;
  const value = input[name];
  if (value === undefined || (a.value !== undefined && a.value !== '' && a.value !== null)) return node;
  return { ...node, attributes: { ...a, value } };
}

export function prefillFlow(flow: KratosFlow, input: Readonly<Record<string, string | undefined>>): KratosFlow {
  return { ...flow, ui: { ...flow.ui, nodes: flow.ui.nodes.map((node) => prefillNode(node, input)) } };
}

/**
 * The flow without the errors Kratos gave an earlier post of it: a post we refuse before Kratos sees it
 * (the captcha, our own checks) shows only why this one was refused, not also "incorrect password" from
 * the last one. Kratos's other messages (a code was sent, choose a method) still describe the flow.
 */
export function withoutEarlierErrors(flow: KratosFlow): KratosFlow {
  const current = (messages: UiText[] | undefined) => messages?.filter((message) => message.type !== 'error');
  return {
    ...flow,
    ui: { ...flow.ui, messages: current(flow.ui.messages), nodes: flow.ui.nodes.map((node) => ({ ...node, messages: current(node.messages) ?? [] })) },
  };
}

/** The flow with one input's value replaced (what was typed into a field Kratos filled with the saved value). */
export function withNodeValue(flow: KratosFlow, name: string, value: string): KratosFlow {
  const nodes = flow.ui.nodes.map((node) => (node.attributes.name === name ? { ...node, attributes: { ...node.attributes, value } } : node));
  return { ...flow, ui: { ...flow.ui, nodes } };
}

export function restartNotice(reason: RestartReason | undefined): string | undefined {
  switch (reason) {
    case 'foreign':
      return 'errorMessage.csrfInvalid';
    case 'missing':
      return 'flowError.restartedMissing';
    default:
      // Kratos puts its own "flow expired" message (40x0001) on the replacement flow.
      return undefined;
  }
}

export function flowState(flow: KratosFlow, action: string) {
  return {
    id: flow.id,
    type: flow.type,
    state: flow.state,
    expires_at: flow.expires_at,
    ...(flow.return_to ? { return_to: flow.return_to } : {}),
    ui: { action, method: 'POST', nodes: flow.ui.nodes, ...(flow.ui.messages ? { messages: flow.ui.messages } : {}) },
  };
}
