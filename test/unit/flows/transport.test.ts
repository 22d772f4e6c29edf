import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Configuration, FrontendApi } from '@ory/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { kratosAdapter } from '../../../server/flows/transport.ts';

let server: http.Server;
let base: string;
const seen: { method: string; url: string; cookie?: string; body: string }[] = [];
/** Requests per socket, for /drop-reused (a server dropping a kept-alive socket as a request arrives on it). */
const perSocket = new WeakMap<object, number>();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', cookie: req.headers.cookie, body });
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/self-service/login/flows') {
        res.setHeader('set-cookie', ['a=1; Path=/', 'b=2; Path=/']);
        res.setHeader('content-type', 'application/json');
        return res.end(JSON.stringify({ id: url.searchParams.get('id'), ui: { nodes: [] } }));
      }
      if (url.pathname === '/gone') {
        res.statusCode = 410;
        res.setHeader('set-cookie', 'c=3; Path=/');
        res.setHeader('content-type', 'application/json');
        return res.end(JSON.stringify({ error: { id: 'self_service_flow_expired' } }));
      }
      if (url.pathname === '/hop') {
        res.statusCode = 303;
        res.setHeader('location', '/self-service/login/flows?id=next');
        return res.end();
      }
      if (url.pathname === '/drop-reused') {
        const count = (perSocket.get(req.socket) ?? 0) + 1;
        perSocket.set(req.socket, count);
        if (count > 1) return req.socket.destroy();
        res.setHeader('content-type', 'application/json');
        return res.end('{"ok":true}');
      }
      if (url.pathname === '/renew') {
        // Kratos on an expired verification flow (JSON): a new anti-CSRF cookie and a 303 to the new flow.
        res.statusCode = 303;
        res.setHeader('set-cookie', ['csrf=new; Path=/; HttpOnly', 'gone=; Path=/; Max-Age=0']);
        res.setHeader('location', '/self-service/login/flows?id=renewed');
        return res.end();
      }
      if (url.pathname === '/away') {
        res.statusCode = 303;
        res.setHeader('location', 'http://elsewhere.invalid/steal');
        return res.end();
      }
      if (url.pathname === '/slow') return setTimeout(() => res.end('{}'), 500);
      res.statusCode = 404;
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const agent = new http.Agent({ keepAlive: true });

type Rejected = { response: { status: number; data: string; headers: Record<string, unknown> } };

/** The rejection of a call that must fail (a resolved call fails the test). */
async function rejection(promise: Promise<unknown>): Promise<Rejected> {
  try {
    await promise;
  } catch (error) {
    return error as Rejected;
  }
  throw new Error('expected the call to reject');
}

describe('kratosAdapter', () => {
  test('through the SDK: the request the SDK built, parsed JSON, set-cookie as an array', async () => {
    const api = new FrontendApi(new Configuration({ basePath: base, baseOptions: { adapter: kratosAdapter, httpAgent: agent } }));
    const answer = await api.getLoginFlow({ id: 'abc' }, { headers: { cookie: 'csrf=1' } });
    expect(answer.status).toBe(200);
    expect(answer.data).toEqual({ id: 'abc', ui: { nodes: [] } });
    expect(answer.headers['set-cookie']).toEqual(['a=1; Path=/', 'b=2; Path=/']);
    expect(seen.at(-1)).toMatchObject({ method: 'GET', url: '/self-service/login/flows?id=abc', cookie: 'csrf=1' });
  });

  test('a non-2xx status rejects like axios, with response.status, data and headers', async () => {
    const error = await rejection(kratosAdapter({ url: `${base}/gone`, method: 'get', httpAgent: agent }));
    expect(error.response.status).toBe(410);
    expect(JSON.parse(error.response.data)).toEqual({ error: { id: 'self_service_flow_expired' } });
    expect(error.response.headers['set-cookie']).toEqual(['c=3; Path=/']);
  });

  test('a 303 to the same origin is followed as a GET with the cookies kept', async () => {
    const answer = await kratosAdapter({
      url: `${base}/hop`,
      method: 'post',
      data: '{"x":1}',
      headers: { cookie: 'k=v', 'Content-Type': 'application/json' },
      httpAgent: agent,
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.data).id).toBe('next');
    expect(seen.at(-1)).toMatchObject({ method: 'GET', cookie: 'k=v', body: '' });
  });

  test('a hop that sets cookies: the next hop carries them, and the answer returns them first', async () => {
    const answer = await kratosAdapter({ url: `${base}/renew`, method: 'post', data: '{}', headers: { cookie: 'csrf=old; k=v; gone=1' }, httpAgent: agent });
    expect(JSON.parse(answer.data).id).toBe('renewed');
    expect(seen.at(-1)).toMatchObject({ method: 'GET', url: '/self-service/login/flows?id=renewed', cookie: 'csrf=new; k=v' });
    expect(answer.headers['set-cookie']).toEqual(['csrf=new; Path=/; HttpOnly', 'gone=; Path=/; Max-Age=0', 'a=1; Path=/', 'b=2; Path=/']);
  });

  test('a request on a kept-alive socket the server dropped is sent again on a fresh one', async () => {
    const keptAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await kratosAdapter({ url: `${base}/drop-reused`, method: 'get', httpAgent: keptAlive });
      const before = seen.length;
      const second = await kratosAdapter({ url: `${base}/drop-reused`, method: 'post', data: '{"x":1}', httpAgent: keptAlive });
      expect([first.status, second.status]).toEqual([200, 200]);
      // The dropped attempt and the one on a fresh socket.
      expect(seen.length - before).toBe(2);
    } finally {
      keptAlive.destroy();
    }
  });

  test('a redirect to another origin is not followed (cookies never leave)', async () => {
    const error = await rejection(kratosAdapter({ url: `${base}/away`, method: 'get', headers: { cookie: 'k=v' }, httpAgent: agent }));
    expect(error.response.status).toBe(303);
    expect(error.response.headers.location).toBe('http://elsewhere.invalid/steal');
  });

  test('validateStatus () => true resolves every status (how the flow helpers call it)', async () => {
    const answer = await kratosAdapter({ url: `${base}/gone`, method: 'get', httpAgent: agent, validateStatus: () => true });
    expect(answer.status).toBe(410);
  });

  test('timeout aborts', async () => {
    await expect(kratosAdapter({ url: `${base}/slow`, method: 'get', timeout: 50, httpAgent: agent })).rejects.toThrow(/did not answer within 50 ms/);
  });
});
