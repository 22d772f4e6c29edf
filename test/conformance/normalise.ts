// The conformance suite's normaliser: turns one recorded exchange into what is compared between the
// stand-in and real Kratos. What varies between two correct services (ids, hosts and ports, tokens,
// CSRF values, timestamps, the values of cookies) is replaced; everything else is kept:
//
//   request   method, URL (normalised like Location), variant
//   status    as is
//   location  URL with each service's origin as {public} / {admin} / {app}, UUIDs as {id}, secret query
//             values (token, code) as {token}, e-mail addresses as {email}, query parameters sorted
//             (their order carries no meaning) and URL-valued parameters normalised recursively
//   cookies   name → attributes (not the value); Max-Age rounded
//             to the minute, Expires as {past}/{future}; the CSRF cookie's name csrf_token_<sha256 of
//             the public base URL> as csrf_token_{sha256(public/)} (or {sha256(public)} without slash)
//   body      its shape: keys and JSON types, recursively; arrays as their distinct element shapes.
//             Values are kept where they are part of the contract rather than data: booleans, the
//             enumerations (state, type, active, action, method, via, status, aal, …), error.id and
//             error.code, uiText ids, and URLs (normalised). A JWT becomes its header and claim keys
//             and the shape of `iss`.
//   ui        for a flow: ui.action, ui.method, ui.messages ids, and per node: group/name, node_type,
//             attributes.type, required, the value of submit nodes (method, screen, provider, …),
//             label id, message ids, and the shape of the whole node; a run of adjacent hidden
//             trait nodes in name order (Kratos appends them in Go map order, see sortHiddenTraitRuns).
import { createHash } from 'node:crypto';
import type { Exchange } from './client.ts';

export type Placeholders = { public: string; admin: string; app: string };

export type Shape = string | Shape[] | { [key: string]: Shape };

export type NormalisedNode = {
  /** `<group>/<name or id>`: what the comparer aligns nodes by. */
  node: string;
  node_type: string;
  type?: string;
  required?: boolean;
  /** Only for submit and button inputs, whose values are constants of the form (method=password, screen=previous). */
  value?: string;
  label?: number;
  messages: number[];
  shape: Shape;
};

export type NormalisedUi = { action?: string; method?: string; messages: number[]; nodes: NormalisedNode[] };

export type NormalisedExchange = {
  request: string;
  status: number;
  location?: string;
  contentType?: string;
  cookies: Record<string, string>;
  body: Shape;
  ui?: NormalisedUi;
};

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const UUID_EXACT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EMAIL = /[^\s@/?&=:]+@[^\s@/?&=:]+\.[a-z]{2,}/gi;
const JWT = /^eyJ[\w-]*\.eyJ[\w-]*\.[\w-]*$/;
/**
 * Query parameters whose values are secrets or one-time values; with OIDC, the opaque `state` (each
 * service encrypts its own) and the PKCE challenge (random) of the provider's authorize URL.
 */
const SECRET_PARAMS = new Set(['token', 'code', 'csrf_token', 'session_token', 'state', 'code_challenge']);
/** Keys whose primitive values are part of the contract (enumerations), kept in the body shape. */
const ENUM_KEYS = new Set([
  'state',
  'type',
  'active',
  'action',
  'method',
  'aal',
  'authenticator_assurance_level',
  'requested_aal',
  'via',
  'status',
  'template_type',
  'schema_id',
  'node_type',
  'group',
  'autocomplete',
]);

function placeholderOf(origin: string, ph: Placeholders): string | undefined {
  for (const [name, base] of Object.entries(ph) as [keyof Placeholders, string][]) {
    if (new URL(base).origin === origin) return `{${name}}`;
  }
  return undefined;
}

/** Replaces each service's origin, UUIDs and e-mail addresses in free text. */
export function normaliseText(text: string, ph: Placeholders): string {
  let out = text;
  for (const [name, base] of Object.entries(ph)) out = out.split(base.replace(/\/+$/, '')).join(`{${name}}`);
  return out.replace(UUID, '{id}').replace(EMAIL, '{email}');
}

function normaliseParam(key: string, value: string, ph: Placeholders): string {
  if (value === '') return '';
  if (SECRET_PARAMS.has(key)) return '{token}';
  if (UUID_EXACT.test(value)) return '{id}';
  if (/^https?:\/\//i.test(value)) return normaliseUrl(value, ph);
  return normaliseText(value, ph);
}

/** A URL with the services' origins as placeholders, ids and secrets replaced, query parameters sorted. */
export function normaliseUrl(raw: string, ph: Placeholders): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return normaliseText(raw, ph);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return normaliseText(raw, ph);
  const origin = placeholderOf(url.origin, ph) ?? url.origin;
  // The path exactly as written: `http://h:1` and `http://h:1/` differ (a JWT issuer does).
  const afterOrigin = raw.toLowerCase().startsWith(url.origin) ? raw.slice(url.origin.length) : url.pathname + url.search;
  const rawPath = afterOrigin.split(/[?#]/)[0] ?? '';
  const path = rawPath.replace(UUID, '{id}');
  const params = [...url.searchParams].map(([key, value]) => `${key}=${normaliseParam(key, value, ph)}`).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const hash = url.hash ? `#${normaliseText(url.hash.slice(1), ph)}` : '';
  return `${origin}${path}${params.length ? `?${params.join('&')}` : ''}${hash}`;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The cookie's name with the CSRF cookie's hash named after what it hashes. */
export function normaliseCookieName(name: string, ph: Placeholders): string {
  const match = /^csrf_token_([0-9a-f]{64})$/.exec(name);
  if (!match) return name;
  const base = ph.public.replace(/\/+$/, '');
  if (match[1] === sha256(`${base}/`)) return 'csrf_token_{sha256(public/)}';
  if (match[1] === sha256(base)) return 'csrf_token_{sha256(public)}';
  return 'csrf_token_{sha256(?)}';
}

/**
 * `name`, and its sorted attributes. Not the value: whether a cookie is set or removed is what its
 * Max-Age/Expires say (Kratos removes a session cookie with an encoded value and Max-Age=0).
 */
export function normaliseSetCookie(line: string, ph: Placeholders): [string, string] {
  const [pair = '', ...rest] = line.split(';');
  const eq = pair.indexOf('=');
  const name = normaliseCookieName((eq < 0 ? pair : pair.slice(0, eq)).trim(), ph);
  const attributes = rest
    .map((a) => a.trim())
    .filter(Boolean)
    .map((attribute) => {
      const i = attribute.indexOf('=');
      const key = (i < 0 ? attribute : attribute.slice(0, i)).toLowerCase();
      const v = i < 0 ? undefined : attribute.slice(i + 1);
      switch (key) {
        case 'max-age': {
          const seconds = Number(v);
          return `Max-Age=${seconds <= 0 ? 0 : Math.round(seconds / 60) * 60}`;
        }
        case 'expires':
          return `Expires=${Date.parse(v ?? '') <= Date.now() ? '{past}' : '{future}'}`;
        case 'samesite':
          return `SameSite=${v ?? ''}`;
        case 'httponly':
          return 'HttpOnly';
        case 'secure':
          return 'Secure';
        case 'path':
          return `Path=${v ?? ''}`;
        case 'domain':
          return `Domain=${v ?? ''}`;
        default:
          return i < 0 ? attribute : `${attribute.slice(0, i)}=${v ?? ''}`;
      }
    })
    .sort();
  return [name, attributes.join('; ')];
}

function decodeSegment(segment: string): Record<string, unknown> {
  try {
    return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** A JWT as its header keys, claim keys and the normalised issuer (values are not compared). */
export function jwtShape(token: string, ph: Placeholders): Shape {
  const [header = '', claims = ''] = token.split('.');
  const h = decodeSegment(header);
  const c = decodeSegment(claims);
  return {
    jwt_header: Object.keys(h).sort().join(','),
    jwt_claims: Object.keys(c).sort().join(','),
    jwt_iss: typeof c.iss === 'string' ? normaliseUrl(c.iss, ph) : typeof c.iss,
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The shape of a JSON value. With `values`, the contract's enumerations, booleans, error ids and uiText
 * ids are kept (see the file comment); without, types only.
 */
export function shapeOf(value: unknown, ph: Placeholders, values = true, key?: string, parentKey?: string): Shape {
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    const seen = new Map<string, Shape>();
    for (const element of value) {
      const shape = shapeOf(element, ph, values, undefined, key);
      seen.set(JSON.stringify(shape), shape);
    }
    return [...seen.values()];
  }
  if (isRecord(value)) {
    const out: Record<string, Shape> = {};
    for (const k of Object.keys(value).sort()) out[k] = shapeOf(value[k], ph, values, k, key);
    return out;
  }
  switch (typeof value) {
    case 'boolean':
      return values ? `boolean:${value}` : 'boolean';
    case 'number':
      return values && (key === 'id' || key === 'code') ? `number:${value}` : 'number';
    case 'string':
      if (JWT.test(value)) return jwtShape(value, ph);
      if (/^https?:\/\//i.test(value)) return values ? `url:${normaliseUrl(value, ph)}` : 'string';
      if (values && ((key !== undefined && ENUM_KEYS.has(key)) || (parentKey === 'error' && key === 'id'))) return `string:${normaliseText(value, ph)}`;
      return 'string';
    default:
      return typeof value;
  }
}

const uiTextIds = (list: unknown): number[] => (Array.isArray(list) ? list.map((m) => (isRecord(m) && typeof m.id === 'number' ? m.id : -1)) : []);

export function normaliseNode(node: unknown, ph: Placeholders): NormalisedNode {
  const n = isRecord(node) ? node : {};
  const attributes = isRecord(n.attributes) ? n.attributes : {};
  const meta = isRecord(n.meta) ? n.meta : {};
  const label = isRecord(meta.label) && typeof meta.label.id === 'number' ? meta.label.id : undefined;
  const name = String(attributes.name ?? attributes.id ?? '?');
  const type = typeof attributes.type === 'string' ? attributes.type : undefined;
  const out: NormalisedNode = { node: `${String(n.group)}/${name}`, node_type: String(attributes.node_type ?? n.type), messages: [], shape: '' };
  if (type) out.type = type;
  if (typeof attributes.required === 'boolean') out.required = attributes.required;
  if ((type === 'submit' || type === 'button') && attributes.value !== undefined) out.value = normaliseText(String(attributes.value), ph);
  if (label !== undefined) out.label = label;
  out.messages = uiTextIds(n.messages);
  out.shape = shapeOf(node, ph, false);
  return out;
}

const isHiddenTrait = (n: NormalisedNode) => n.type === 'hidden' && /^[^/]+\/traits\./.test(n.node);

/**
 * Kratos v1.3.1 appends the hidden trait nodes of the registration's credential step in Go map order
 * (container.UpdateNodeValuesFromJSON ranges over jsonx.Flatten's map), which differs from request to
 * request: a run of adjacent hidden trait nodes is put in name order. Their set, and where the run
 * stands among the other nodes, are still compared.
 */
export function sortHiddenTraitRuns(nodes: NormalisedNode[]): NormalisedNode[] {
  const out = [...nodes];
  for (let i = 0; i < out.length;) {
    if (!isHiddenTrait(out[i]!)) {
      i++;
      continue;
    }
    let j = i;
    while (j < out.length && isHiddenTrait(out[j]!)) j++;
    const run = out.slice(i, j).sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
    out.splice(i, run.length, ...run);
    i = j;
  }
  return out;
}

function normaliseUi(ui: Record<string, unknown>, ph: Placeholders): NormalisedUi {
  const out: NormalisedUi = { messages: uiTextIds(ui.messages), nodes: [] };
  if (typeof ui.action === 'string') out.action = normaliseUrl(ui.action, ph);
  if (typeof ui.method === 'string') out.method = ui.method;
  out.nodes = sortHiddenTraitRuns(Array.isArray(ui.nodes) ? ui.nodes.map((node) => normaliseNode(node, ph)) : []);
  return out;
}

export function normaliseExchange(exchange: Exchange, ph: Placeholders): NormalisedExchange {
  const out: NormalisedExchange = {
    request: `${exchange.method} ${normaliseUrl(exchange.url, ph)} [${exchange.variant}]`,
    status: exchange.status,
    cookies: {},
    body: '',
  };
  if (exchange.location !== undefined) out.location = normaliseUrl(exchange.location, ph);
  for (const line of exchange.setCookies) {
    const [name, attributes] = normaliseSetCookie(line, ph);
    out.cookies[name] = out.cookies[name] === undefined ? attributes : `${out.cookies[name]} | ${attributes}`;
  }
  // A redirect's body and type are for humans (Go writes a link for GET); clients read Location.
  const redirect = exchange.status >= 300 && exchange.status < 400;
  if (!redirect && exchange.contentType) out.contentType = exchange.contentType.split(';')[0]!.trim().toLowerCase();
  const body = exchange.body;
  if (redirect) out.body = '';
  else if (typeof body === 'string') out.body = body === '' ? '' : 'text';
  else if (isRecord(body) && isRecord(body.ui)) {
    const { ui, ...rest } = body;
    out.body = { ...(shapeOf(rest, ph) as Record<string, Shape>), ui: '(see ui)' };
    out.ui = normaliseUi(ui, ph);
  } else out.body = shapeOf(body, ph);
  return out;
}

export function normaliseRecording(exchanges: Exchange[], ph: Placeholders): NormalisedExchange[] {
  return exchanges.map((exchange) => normaliseExchange(exchange, ph));
}
