import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../core/errors.ts';
import { createBackendClient } from '../../../server/backend-client.ts';
import { backendAgents, sendWithin, type BackendAgents } from '../../../server/backend-transport.ts';

// The backend client's JSON transport (server/backend-transport.ts): a total deadline, the caller's
// signal, no redirects followed, and one retry when a kept-alive socket turns out to be closed.
type Handler = (req: http.IncomingMessage, res: http.ServerResponse, nthOnSocket: number) => void;

let handler: Handler = (_req, res) => res.end('{}');
let server: http.Server;
let base = '';
const requestsPerSocket = new Map<Socket, number>();
const seen: string[] = [];
let agents: BackendAgents;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const nth = (requestsPerSocket.get(req.socket) ?? 0) + 1;
    requestsPerSocket.set(req.socket, nth);
    seen.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => handler(req, res, nth));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(() => {
  agents?.http.destroy();
  server.closeAllConnections();
  requestsPerSocket.clear();
  seen.length = 0;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const get = (path: string, timeoutMs = 2_000, signal?: AbortSignal) =>
  sendWithin(new URL(path, base), { method: 'GET', headers: { Accept: 'application/json' } }, agents, timeoutMs, signal);

describe('backend transport', () => {
  it('keeps the socket alive between calls', async () => {
    agents = backendAgents(4);
    handler = (_req, res) => res.end('{"ok":true}');
    const first = await get('/a');
    const second = await get('/b');
    expect(first).toMatchObject({ status: 200, ok: true });
    expect(await second.text()).toBe('{"ok":true}');
    expect([...requestsPerSocket.values()]).toEqual([2]);
  });

  it('sends a call again on a fresh socket when the kept-alive one was closed by the backend, once', async () => {
    agents = backendAgents(4);
    // The backend drops any socket at its second request without answering: what a call racing the
    // backend's idle close sees (ECONNRESET before any answer, on a reused socket).
    handler = (req, res, nth) => (nth >= 2 ? req.socket.destroy() : res.end(`{"path":"${req.url}"}`));
    expect(await (await get('/first')).text()).toBe('{"path":"/first"}');
    const retried = await get('/second');
    expect(await retried.text()).toBe('{"path":"/second"}');
    expect(seen).toEqual(['GET /first', 'GET /second', 'GET /second']);
  });

  it('does not retry a call that failed on a fresh socket', async () => {
    agents = backendAgents(4);
    handler = (req) => req.socket.destroy();
    const error = await get('/gone').catch((e: unknown) => e);
    expect((error as NodeJS.ErrnoException).code).toBe('ECONNRESET');
    expect(seen).toEqual(['GET /gone']);
  });

  it('holds a TOTAL deadline: a backend trickling bytes faster than the deadline still ends the call at it', async () => {
    agents = backendAgents(4);
    let timer: NodeJS.Timeout | undefined;
    handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      timer = setInterval(() => res.write(' '), 20); // never idle for long, never finished
      res.on('close', () => clearInterval(timer));
    };
    const started = Date.now();
    const error = (await get('/slow', 300).catch((e: unknown) => e)) as Error;
    clearInterval(timer);
    expect(error.name).toBe('TimeoutError');
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('stops at the caller’s signal, with its reason, and drops the request', async () => {
    agents = backendAgents(4);
    const closed = new Promise<void>((resolve) => (handler = (req) => req.socket.on('close', () => resolve())));
    const controller = new AbortController();
    const pending = get('/waits', 10_000, controller.signal).catch((e: unknown) => e);
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => seen.length > 0 && (clearInterval(poll), resolve()), 5);
    });
    controller.abort();
    expect(((await pending) as Error).name).toBe('AbortError');
    await closed; // the backend sees the request go away
  });

  it('does not follow a redirect', async () => {
    agents = backendAgents(4);
    handler = (req, res) => (req.url === '/moved' ? res.writeHead(302, { Location: '/elsewhere' }).end() : res.end('{}'));
    const answer = await get('/moved');
    expect(answer).toMatchObject({ status: 302, ok: false });
    expect(seen).toEqual(['GET /moved']);
  });
});

describe('backend client over the transport', () => {
  const client = (timeoutMs: number) => createBackendClient({ backendUrl: base, kratosPublicUrl: base, timeoutMs });

  it('answers a trickling backend with backend_timeout (504) at the deadline', async () => {
    let timer: NodeJS.Timeout | undefined;
    handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      timer = setInterval(() => res.write(' '), 20);
      res.on('close', () => clearInterval(timer));
    };
    const error = (await client(300)
      .getInvitation('t')
      .catch((e: unknown) => e)) as AppError;
    clearInterval(timer);
    expect(error).toBeInstanceOf(AppError);
    expect(error.status).toBe(504);
    expect(error.code).toBe('backend_timeout');
  });

  it('survives the backend closing its idle kept-alive socket between two calls', async () => {
    handler = (req, res, nth) => (nth >= 2 ? req.socket.destroy() : res.end('{"email":"a@example.com","expiresAt":null}'));
    const backend = client(2_000);
    expect((await backend.getInvitation('one')).email).toBe('a@example.com');
    expect((await backend.getInvitation('two')).email).toBe('a@example.com');
    expect(seen).toHaveLength(3);
  });

  it('sends a JSON body with its length', async () => {
    let received = '';
    handler = (req, res) => {
      received = `${req.headers['content-type']} ${req.headers['content-length']}`;
      res.end('{}');
    };
    await client(2_000).forgotPassword('é@example.com');
    expect(received).toBe(`application/json ${Buffer.byteLength(JSON.stringify({ email: 'é@example.com' }))}`);
  });
});
