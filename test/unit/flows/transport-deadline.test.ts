// Issue 10 #8: `timeout` is a total deadline (connect + headers + body), not an idle timeout that
// every arriving byte resets; and a caller's own signal cancels the call.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { kratosAdapter, upstreamState } from '../../../server/flows/transport.ts';

let server: http.Server;
let base: string;

beforeAll(async () => {
  // Answers at once, then sends its 40-byte body one byte every 200 ms (8 s in all).
  server = http.createServer((req, res) => {
    if (req.url === '/quick') return void res.end('{}');
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '40' });
    let sent = 0;
    const timer = setInterval(() => {
      if (sent >= 40 || res.destroyed) return clearInterval(timer);
      res.write(' ');
      sent += 1;
    }, 200);
    res.on('close', () => clearInterval(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('kratosAdapter deadline', () => {
  test('a body trickling 1 byte every 200 ms is cut at the 500 ms deadline with identity_unavailable', async () => {
    const startedAt = Date.now();
    const error = await kratosAdapter({ url: `${base}/slow`, method: 'get', timeout: 500, probe: true }).then(
      () => undefined,
      (reason: unknown) => reason as { status: number; code: string; meta: { reason: string } },
    );
    const elapsed = Date.now() - startedAt;
    expect(error).toMatchObject({ status: 503, code: 'identity_unavailable', meta: { reason: 'timeout' } });
    expect(elapsed).toBeGreaterThanOrEqual(450);
    expect(elapsed).toBeLessThan(1_200);
    expect(upstreamState(new URL(base).origin)).toMatchObject({ up: false });
  });

  test("the caller's own signal cancels with its reason, not as an outage", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('caller gave up')), 100);
    await expect(kratosAdapter({ url: `${base}/slow`, method: 'get', timeout: 5_000, signal: controller.signal, probe: true })).rejects.toThrow(
      'caller gave up',
    );
  });

  test('the deadline lives as long as the call, not for its whole length after it', async () => {
    // Only the global timers are faked: the transport's deadline is one, Node's sockets use their own.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const call = kratosAdapter({ url: `${base}/quick`, method: 'get', timeout: 60_000, probe: true });
      expect(vi.getTimerCount()).toBe(1);
      await expect(call).resolves.toMatchObject({ status: 200 });
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  test('right after a failure, calls fail at once instead of waiting for the deadline again', async () => {
    await kratosAdapter({ url: `${base}/slow`, method: 'get', timeout: 300, probe: true }).catch(() => undefined);
    const startedAt = Date.now();
    await expect(kratosAdapter({ url: `${base}/slow`, method: 'get', timeout: 5_000 })).rejects.toMatchObject({ status: 503 });
    expect(Date.now() - startedAt).toBeLessThan(100);
  });
});
