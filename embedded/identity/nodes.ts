// UI nodes (contract §4): builders with Kratos's attribute order, trait nodes from the schema, and the
// per-flow sort order (§4.5).
import { msg, type UiText } from './messages.ts';
import type { IdentitySchema, PropSchema } from './schema.ts';

export interface UiNode {
  type: string;
  group: string;
  attributes: Record<string, unknown>;
  messages: UiText[];
  meta: { label?: UiText };
}

export interface UiContainer {
  action: string;
  method: string;
  nodes: UiNode[];
  messages?: UiText[];
}

export interface InputOpts {
  value?: unknown;
  required?: boolean;
  autocomplete?: string;
  pattern?: string;
  disabled?: boolean;
  maxlength?: number;
  options?: { value: unknown }[];
  label?: UiText;
}

export function input(name: string, type: string, group: string, o: InputOpts = {}): UiNode {
  const a: Record<string, unknown> = { name, type };
  if (o.value !== undefined && o.value !== null) a.value = o.value;
  if (o.required) a.required = true;
  if (o.autocomplete) a.autocomplete = o.autocomplete;
  if (o.pattern) a.pattern = o.pattern;
  a.disabled = o.disabled ?? false;
  if (o.maxlength !== undefined) a.maxlength = o.maxlength;
  if (o.options) a.options = o.options;
  a.node_type = 'input';
  return { type: 'input', group, attributes: a, messages: [], meta: o.label ? { label: o.label } : {} };
}

export function anchor(id: string, href: string, title: UiText, group: string): UiNode {
  return { type: 'a', group, attributes: { href, title, id, node_type: 'a' }, messages: [], meta: { label: title } };
}

export const csrfNode = (): UiNode => input('csrf_token', 'hidden', 'default', { value: '', required: true });

function traitType(p: PropSchema): { type: string; autocomplete?: string } {
  if (p.format === 'email') return { type: 'email', autocomplete: 'email' };
  if (p.format === 'tel') return { type: 'tel', autocomplete: 'tel' };
  if (p.format === 'uri') return { type: 'url', autocomplete: 'url' };
  if (p.format === 'date') return { type: 'date' };
  if (p.format === 'date-time') return { type: 'datetime-local' };
  if (p.type === 'number' || p.type === 'integer') return { type: 'number' };
  if (p.type === 'boolean') return { type: 'checkbox' };
  return { type: 'text' };
}

export function traitNodes(schema: IdentitySchema, group: string, values: Record<string, unknown>): UiNode[] {
  return schema.props.map(([name, p]) => {
    const t = traitType(p);
    return input(`traits.${name}`, t.type, group, {
      value: values[name],
      required: schema.required.includes(name),
      autocomplete: t.autocomplete,
      pattern: p.pattern,
      // v1.3.1 (ui/node NewInputFieldFromSchema): no `options` for an enum, and the generated label's
      // context is the title alone (newer Kratos adds both).
      label: p.title ? msg(1070002, { title: p.title }) : undefined,
    });
  });
}

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const isMethod = (n: UiNode) => n.attributes.name === 'method' || n.attributes.name === 'screen';

/** Go's fmt "%v" of a node's value, which Kratos compares when two nodes of a group share a key position. */
const valueText = (n: UiNode): string => (n.attributes.value === undefined || n.attributes.value === null ? '<nil>' : String(n.attributes.value));

/**
 * Sort by group order, then by key order within groups, `method` submit last in its group; nodes of the
 * same position by their value, as Kratos's SortBySchema does (so provider buttons end up in the order
 * of their ids), then as they came.
 */
export function sortNodes(nodes: UiNode[], groups: string[], keys: string[]): UiNode[] {
  const gi = (n: UiNode) => {
    const i = groups.indexOf(n.group);
    return i < 0 ? groups.length : i;
  };
  const ki = (n: UiNode) => {
    if (isMethod(n)) return 10_000;
    const i = keys.indexOf(String(n.attributes.name ?? ''));
    return i < 0 ? 5_000 : i;
  };
  return nodes
    .map((n, i) => ({ n, i }))
    .sort((a, b) => gi(a.n) - gi(b.n) || ki(a.n) - ki(b.n) || compareText(valueText(a.n), valueText(b.n)) || a.i - b.i)
    .map((x) => x.n);
}

export const LOGIN_GROUPS = ['oidc', 'default', 'webauthn', 'passkey', 'code', 'password', 'totp', 'lookup_secret'];
export const REGISTRATION_GROUPS = ['oidc', 'saml', 'default', 'webauthn', 'passkey', 'code', 'password', 'captcha', 'profile'];
export const SETTINGS_GROUPS = ['default', 'profile', 'password', 'oidc', 'lookup_secret', 'webauthn', 'passkey', 'totp'];

/** Adds a message to the node with the given name. */
export function addNodeMessage(nodes: UiNode[], name: string, m: UiText): boolean {
  const n = nodes.find((x) => x.attributes.name === name && x.attributes.type !== 'submit');
  if (!n) return false;
  n.messages.push(m);
  return true;
}

export function setNodeValue(nodes: UiNode[], name: string, value: unknown): void {
  const n = nodes.find((x) => x.attributes.name === name && x.attributes.type !== 'submit');
  if (!n) return;
  const a: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(n.attributes)) {
    if (k === 'value') continue;
    a[k] = v;
    if (k === 'type' && value !== undefined && value !== null) a.value = value;
  }
  n.attributes = a;
}
