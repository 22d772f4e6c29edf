// Small HTTP layer on node:http: request context, content negotiation (contract §1.1),
// body decoding with limits, cookie parsing and reply writing.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { KratosError } from './errors.ts';
import { formToObject } from './form.ts';
import type { IdentitySchema } from './schema.ts';

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  html?: string;
  /** Any other text payload, written as is (give its Content-Type in headers). */
  text?: string;
}

export interface Ctx {
  req: IncomingMessage;
  method: string;
  path: string;
  query: URLSearchParams;
  /** The full URL of this request as the caller saw it (used as request_url). */
  requestUrl: string;
  cookies: Record<string, string>;
  /** Set-Cookie values of the answer (written on every status). */
  setCookies: string[];
  /** IsJSONRequest: Accept negotiates JSON or the Content-Type is application/json. */
  isJSON: boolean;
  ip: string;
  userAgent: string;
  requestId?: string;
  params: Record<string, string>;
  body: () => Promise<Record<string, unknown>>;
  /** Per-request state owned by csrf.ts */
  csrfToken?: Buffer;
  /** The ory_kratos_continuity entries this answer writes (continuity.ts) */
  continuity?: Record<string, string>;
}

const MAX_BODY = 1024 * 1024;

interface AcceptSpec {
  value: string;
  q: number;
}

function parseAccept(header: string | undefined): AcceptSpec[] {
  if (!header) return [];
  return header
    .split(',')
    .map((part) => {
      const [value, ...params] = part.trim().split(';');
      let q = 1;
      for (const p of params) {
        const [k, v] = p.trim().split('=');
        if (k === 'q' && v !== undefined) q = Number(v);
      }
      return { value: (value ?? '').trim().toLowerCase(), q: Number.isFinite(q) ? q : 0 };
    })
    .filter((s) => s.value);
}

/** golang/gddo NegotiateContentType: exact beats type/* beats * / *, higher q wins. */
export function negotiate(header: string | undefined, offers: string[], def: string): string {
  const specs = parseAccept(header);
  if (specs.length === 0) return def;
  let best = def;
  let bestQ = -1;
  let bestWild = 3;
  for (const offer of offers) {
    for (const spec of specs) {
      let wild: number;
      if (spec.value === '*/*') wild = 2;
      else if (spec.value.endsWith('/*') && offer.startsWith(spec.value.slice(0, -1))) wild = 1;
      else if (spec.value === offer) wild = 0;
      else continue;
      if (spec.q > bestQ || (spec.q === bestQ && wild < bestWild)) {
        best = offer;
        bestQ = spec.q;
        bestWild = wild;
      }
    }
  }
  return bestQ <= 0 ? def : best;
}

export function isJSONRequest(req: IncomingMessage): boolean {
  const ct = (req.headers['content-type'] ?? '').toLowerCase();
  if (ct === 'application/json') return true;
  return negotiate(req.headers.accept, ['text/html', 'text/*', '*/*', 'application/json'], 'text/html') === 'application/json';
}

export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!header) return out;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    const k = part.slice(0, i).trim();
    let v = part.slice(i + 1).trim();
    if (v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1);
    if (k && !(k in out)) out[k] = v;
  }
  return out;
}

export interface CookieOptions {
  maxAge?: number;
  expires?: Date;
  path?: string;
  domain?: string;
  httpOnly?: boolean;
  secure?: boolean;
  sameSite?: string;
}

export function serializeCookie(name: string, value: string, o: CookieOptions): string {
  let s = `${name}=${value}`;
  if (o.path) s += `; Path=${o.path}`;
  if (o.domain) s += `; Domain=${o.domain}`;
  if (o.expires) s += `; Expires=${o.expires.toUTCString()}`;
  if (o.maxAge !== undefined) s += `; Max-Age=${o.maxAge}`;
  if (o.httpOnly) s += '; HttpOnly';
  if (o.secure) s += '; Secure';
  if (o.sameSite) s += `; SameSite=${o.sameSite}`;
  return s;
}

function readRaw(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (c: Buffer) => {
      if (failed) return;
      size += c.length;
      if (size > limit) {
        failed = true;
        reject(new KratosError(413, { reason: `The request body exceeds the limit of ${limit} bytes.` }));
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!failed) resolve(Buffer.concat(chunks));
    });
    req.on('error', (e) => {
      if (!failed) {
        failed = true;
        reject(new KratosError(400, { reason: `Unable to read the request body: ${e.message}` }));
      }
    });
  });
}

function multipartFields(raw: Buffer, boundary: string): [string, string][] {
  const out: [string, string][] = [];
  const text = raw.toString('utf8');
  for (const part of text.split(`--${boundary}`)) {
    const idx = part.indexOf('\r\n\r\n');
    if (idx < 0) continue;
    const head = part.slice(0, idx);
    const m = /name="([^"]*)"/i.exec(head);
    if (!m || /filename=/i.test(head)) continue;
    out.push([m[1]!, part.slice(idx + 4).replace(/\r\n$/, '')]);
  }
  return out;
}

/** Reads the body once; form bodies are typed by the identity schema like Kratos's form decoder (form.ts). */
export function makeBodyReader(req: IncomingMessage, schema: IdentitySchema): () => Promise<Record<string, unknown>> {
  let cached: Promise<Record<string, unknown>> | undefined;
  return () => {
    cached ??= (async () => {
      const raw = await readRaw(req, MAX_BODY);
      const ctHeader = (req.headers['content-type'] ?? '').toLowerCase();
      const ct = ctHeader.split(';')[0]!.trim();
      if (raw.length === 0) return {};
      if (ct === 'application/json' || ct.endsWith('+json')) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(raw.toString('utf8'));
        } catch (e) {
          throw new KratosError(400, { reason: `Unable to decode JSON payload: ${(e as Error).message}` });
        }
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
          throw new KratosError(400, { reason: 'Unable to decode JSON payload: expected a JSON object.' });
        }
        return parsed as Record<string, unknown>;
      }
      if (ct === 'application/x-www-form-urlencoded') return formToObject(new URLSearchParams(raw.toString('utf8')), schema);
      if (ct === 'multipart/form-data') {
        const b = /boundary=("?)([^";]+)\1/i.exec(ctHeader);
        if (!b) throw new KratosError(400, { reason: 'Unable to decode multipart body: missing boundary.' });
        return formToObject(multipartFields(raw, b[2]!), schema);
      }
      throw new KratosError(415, {
        reason: `Unable to decode body because HTTP Request Content-Type "${ct || '(none)'}" is not supported.`,
      });
    })();
    return cached;
  };
}

/** Reads and parses a JSON body that may be any JSON value (admin JSON-patch). */
export async function readJsonAny(req: IncomingMessage): Promise<unknown> {
  const raw = await readRaw(req, MAX_BODY);
  const ct = (req.headers['content-type'] ?? '').toLowerCase().split(';')[0]!.trim();
  if (ct && ct !== 'application/json' && !ct.endsWith('+json')) {
    throw new KratosError(415, { reason: `Unable to decode body because HTTP Request Content-Type "${ct}" is not supported.` });
  }
  try {
    return JSON.parse(raw.toString('utf8') || 'null');
  } catch (e) {
    throw new KratosError(400, { reason: `Unable to decode JSON payload: ${(e as Error).message}` });
  }
}

export function writeReply(res: ServerResponse, ctx: Ctx | undefined, reply: Reply): void {
  const headers: Record<string, string | string[]> = {
    'Cache-Control': 'private, no-cache, no-store, must-revalidate',
    ...(reply.headers ?? {}),
  };
  if (ctx && ctx.setCookies.length > 0) headers['Set-Cookie'] = ctx.setCookies;
  let payload: string | undefined;
  if (reply.html !== undefined) {
    headers['Content-Type'] ??= 'text/html; charset=utf-8';
    payload = reply.html;
  } else if (reply.text !== undefined) {
    payload = reply.text;
  } else if (reply.body !== undefined) {
    headers['Content-Type'] ??= 'application/json; charset=utf-8';
    payload = JSON.stringify(reply.body);
  }
  res.writeHead(reply.status, headers);
  res.end(payload);
}

export const json = (status: number, body: unknown, headers?: Record<string, string>): Reply => ({ status, body, headers });
export const redirect = (status: number, location: string): Reply => ({ status, headers: { Location: location } });

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: unknown): s is string => typeof s === 'string' && UUID_RE.test(s);

export function str(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}
