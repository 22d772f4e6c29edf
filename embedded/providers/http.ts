// Small HTTP helpers shared by the embedded providers' own pages and endpoints.
import type { IncomingMessage, ServerResponse } from 'node:http';

const BODY_LIMIT = 64 * 1024;

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > BODY_LIMIT) throw new Error('request body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  return new URLSearchParams((await readBody(req)).toString('utf8'));
}

/**
 * Gives oidc-provider a body that was already read, as if it were still unread: it parses the body
 * itself from the stream, and a pre-parsed `req.body` would make it print a warning.
 */
export function replaceBody(req: IncomingMessage, body: string): void {
  const bytes = Buffer.from(body, 'utf8');
  req.headers['content-length'] = String(bytes.length);
  Object.defineProperty(req, 'readable', { value: true, configurable: true });
  Object.defineProperty(req, 'iterator', {
    configurable: true,
    value: async function* () {
      yield bytes;
    },
  });
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function send(res: ServerResponse, status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store', ...headers });
  res.end(body);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(body), headers);
}
