/**
 * What the code and link screens (recovery, verification, resend) share about Kratos's `code` and
 * `link` methods:
 *
 *   kratosLinkUrl(req, kind, flow, token) → Kratos's own endpoint that checks an emailed link's token
 *   sentToEmail(flow)                      → the address a code was sent to (its "send again" button)
 *   codeSubmitLabels(flow, t, section)     → submit labels by `name:value`: main button, send link, resend,
 *                                            from `<section>.submitCode|sendCode|sendLink|resendCode`
 *   withCode(flow, code)                   → the code from an emailed link put into the code field
 */
import type { Request } from 'express';
import type { FlowKind, KratosFlow, UiNode } from '../../core/kratos/types.ts';
import type { Translate } from '../../core/translate.ts';
import { configOf } from '../request-context.ts';
import { isFlowId } from './kratos.ts';

/** Kratos's "submit again with this token" endpoint for link methods: only a uuid flow and a plain token. */
export function kratosLinkUrl(req: Request, kind: FlowKind, flowId: unknown, token: unknown): string | undefined {
  if (!isFlowId(flowId) || typeof token !== 'string' || !/^[A-Za-z0-9_-]{8,256}$/.test(token)) return undefined;
  const base = configOf(req).KRATOS_PUBLIC_URL.replace(/\/+$/, '');
  return `${base}/self-service/${kind}?${new URLSearchParams({ flow: flowId, token })}`;
}

export function sentToEmail(flow: KratosFlow): string | undefined {
  const node = flow.ui.nodes.find((candidate) => candidate.attributes.name === 'email' && candidate.attributes.type === 'submit');
  const value = node?.attributes.value;
  return typeof value === 'string' && value ? value : undefined;
}

export function codeSubmitLabels(flow: KratosFlow, t: Translate, section: 'recovery' | 'verification'): Record<string, string> {
  const main = flow.state === 'sent_email' ? `${section}.submitCode` : `${section}.sendCode`;
  const out: Record<string, string> = { 'method:code': t(main), 'method:link': t(`${section}.sendLink`) };
  const email = sentToEmail(flow);
  if (email) out[`email:${email}`] = t(`${section}.resendCode`);
  return out;
}

/** Kratos fills the code field from its own link the same way. */
export function withCode(flow: KratosFlow, code: unknown): KratosFlow {
  if (typeof code !== 'string' || !/^[0-9]{4,16}$/.test(code) || flow.state !== 'sent_email') return flow;
  const nodes = flow.ui.nodes.map((node): UiNode =>
    node.attributes.name === 'code' && node.attributes.type !== 'submit' && !node.attributes.value
      ? { ...node, attributes: { ...node.attributes, value: code } }
      : node,
  );
  return { ...flow, ui: { ...flow.ui, nodes } };
}
