// The small HTTP toolkit of the OAuth2 stand-in: bodies (JSON or form, size-capped), JSON answers in
// Hydra's error format, Hydra's redirects and its cookies.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HydraError, oauthError } from './errors.ts';

const MAX_BODY_BYTES = 1024 * 1024;

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw oauthError('invalid_request', 'The request body is too large.');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A JSON body; an empty body is `{}` (Hydra's accept calls allow it), a malformed one Hydra's 400. */
export async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const text = await readBody(req);
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
    throw new Error('expected a JSON object');
  } catch (error) {
    throw oauthError('invalid_request', `Unable to decode body because: ${goJsonError(text, error as Error)}`);
  }
}

/** Go's encoding/json words for the two malformations clients send most (truncated, a bad key), else Node's. */
export function goJsonError(text: string, error: Error): string {
  if (/Unexpected end of JSON input|Unterminated/.test(error.message)) return 'unexpected EOF';
  const position = /position (\d+)/.exec(error.message);
  const char = position ? text[Number(position[1])] : /Unexpected token '(.)'/.exec(error.message)?.[1];
  if (char !== undefined && /Expected property name/.test(error.message)) return `invalid character '${char}' looking for beginning of object key string`;
  if (char !== undefined) return `invalid character '${char}' looking for beginning of value`;
  return error.message;
}

export async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const type = req.headers['content-type'] ?? '';
  const text = await readBody(req);
  if (!type.includes('application/x-www-form-urlencoded')) return new URLSearchParams();
  return new URLSearchParams(text);
}

const NO_CACHE = { 'Cache-Control': 'private, no-cache, no-store, must-revalidate' };

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string | string[]> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...NO_CACHE, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function sendEmpty(res: ServerResponse, status: number, headers: Record<string, string | string[]> = {}): void {
  res.writeHead(status, { ...NO_CACHE, ...headers });
  res.end();
}

export function sendError(res: ServerResponse, error: HydraError, headers: Record<string, string | string[]> = {}): void {
  sendJson(res, error.status, error.body(), headers);
}

const escapeAttr = (text: string) => text.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;');

/** Hydra → a UI page: 302 with Go's little "Found" body. */
export function redirectFound(res: ServerResponse, location: string, cookies: string[] = []): void {
  const body = `<a href="${escapeAttr(location)}">Found</a>.\n\n`;
  res.writeHead(302, { ...NO_CACHE, 'Content-Type': 'text/html; charset=utf-8', Location: location, 'Set-Cookie': cookies });
  res.end(body);
}

/** Hydra → the client's redirect URI (fosite's authorize response or error): 303, no body. */
export function redirectSeeOther(res: ServerResponse, location: string, cookies: string[] = []): void {
  res.writeHead(303, { 'Cache-Control': 'no-store', Pragma: 'no-cache', Location: location, 'Set-Cookie': cookies, 'Content-Length': 0 });
  res.end();
}

export function parseCookies(req: IncomingMessage): Map<string, string> {
  const jar = new Map<string, string>();
  for (const pair of (req.headers.cookie ?? '').split(';')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    const raw = pair.slice(eq + 1).trim();
    try {
      jar.set(pair.slice(0, eq).trim(), decodeURIComponent(raw));
    } catch {
      // A cookie that is not percent-encoding: kept as sent, so it simply matches nothing of ours.
      jar.set(pair.slice(0, eq).trim(), raw);
    }
  }
  return jar;
}

/** Hydra's cookie attributes (SameSite=Lax as the real Hydra of scripts/ory/hydra.ts is configured, HTTP only). */
export function cookie(name: string, value: string, maxAgeSeconds: number | undefined, nowMs: number): string {
  // No lifetime: a browser-session cookie (Hydra's remember cookie when remember_for is 0).
  if (maxAgeSeconds === undefined) return `${name}=${encodeURIComponent(value)}; Path=/; HttpOnly; SameSite=Lax`;
  const expires = new Date(maxAgeSeconds > 0 ? nowMs + maxAgeSeconds * 1000 : 1000).toUTCString();
  return `${name}=${encodeURIComponent(value)}; Path=/; Expires=${expires}; Max-Age=${Math.max(maxAgeSeconds, 0)}; HttpOnly; SameSite=Lax`;
}

export const clearCookie = (name: string) => `${name}=; Path=/; Expires=Thu, 01 Jan 1970 00:00:01 GMT; Max-Age=0; HttpOnly; SameSite=Lax`;

/** Go's url.Values.Encode: keys sorted, spaces as `+` (how Hydra re-encodes the authorize URL it hands back). */
export function goEncode(params: Record<string, string>): string {
  return Object.keys(params)
    .sort()
    .map((key) => `${formEncode(key)}=${formEncode(params[key]!)}`)
    .join('&');
}

const formEncode = (text: string) => new URLSearchParams({ x: text }).toString().slice(2);

/** Adds query parameters in the given order (fosite's error redirect: error, error_description, state). */
export function withQuery(uri: string, params: [string, string][]): string {
  const url = new URL(uri);
  for (const [key, value] of params) url.searchParams.append(key, value);
  return url.toString();
}
