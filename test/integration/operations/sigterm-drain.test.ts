// Issue 10 #13: on SIGTERM, requests in flight and on kept-alive connections finish or are closed
// cleanly: every answer says `Connection: close`, an idle kept-alive connection is not cut under a
// request its client is sending, and a steady load over keep-alive sees no failed request.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { soakRound } from '../../../scripts/sigterm-soak.ts';
import { buildApp, startServer, type RunningServer } from '../../support/app.ts';

let build: ReturnType<typeof buildApp>;
const running: RunningServer[] = [];
beforeAll(() => {
  build = buildApp();
});
afterAll(async () => {
  await Promise.all(running.map((server) => server.stop()));
  build?.remove();
});

/** A raw kept-alive connection: `ask()` sends one GET and resolves with the raw answer (or the error). */
function rawConnection(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  let buffer = '';
  let waiting: ((answer: string) => void) | undefined;
  const flush = () => {
    const end = buffer.indexOf('\r\n\r\n');
    if (end === -1 || !waiting) return;
    const length = Number(/content-length: (\d+)/i.exec(buffer.slice(0, end))?.[1] ?? 0);
    if (buffer.length < end + 4 + length) return;
    const answer = buffer.slice(0, end + 4 + length);
    buffer = buffer.slice(end + 4 + length);
    const resolve = waiting;
    waiting = undefined;
    resolve(answer);
  };
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    flush();
  });
  const fail = (reason: string) => () => waiting?.(`ERROR ${reason}`);
  socket.on('error', (error: NodeJS.ErrnoException) => fail(error.code ?? error.message)());
  let closed = false;
  socket.on('close', () => {
    closed = true;
    fail('closed')();
  });
  const ready = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return {
    ask: async (path: string) => {
      await ready;
      if (closed) return 'ERROR closed';
      const answer = new Promise<string>((resolve) => (waiting = resolve));
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n`);
      return answer;
    },
    destroy: () => socket.destroy(),
  };
}

function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

async function untilAsync(probe: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('SIGTERM with kept-alive connections', () => {
  test('a request sent on an idle kept-alive connection just after SIGTERM is answered, with Connection: close', async () => {
    const server = await startServer(build.serverJs, { NODE_ENV: 'test', ASSETS_DIR: build.assetsDir, KRATOS_PUBLIC_URL: 'http://127.0.0.1:9' });
    running.push(server);
    const port = Number(new URL(server.url).port);
    const connections = Array.from({ length: 20 }, () => rawConnection(port));
    for (const answer of await Promise.all(connections.map((connection) => connection.ask('/healthz')))) {
      expect(answer).toMatch(/^HTTP\/1\.1 200/);
      expect(answer).toMatch(/connection: keep-alive/i);
    }
    server.child.kill('SIGTERM');
    // Once the app has stopped accepting (a new connection is refused), the kept-alive ones still take a request.
    await untilAsync(() => connects(port).then((ok) => !ok));
    const answers = await Promise.all(connections.map((connection) => connection.ask('/healthz')));
    for (const answer of answers) {
      expect(answer).toMatch(/^HTTP\/1\.1 200/);
      expect(answer).toMatch(/connection: close/i);
    }
    expect(await server.exited).toEqual({ code: 0, signal: null });
    connections.forEach((connection) => connection.destroy());
  });

  test('100 req/s over 8 kept-alive connections, SIGTERM mid-load: no request fails, the process exits 0', async () => {
    for (const balancer of [false, true]) {
      const result = await soakRound({ serverJs: build.serverJs, assetsDir: build.assetsDir, rate: 100, seconds: 1, sockets: 8, balancer });
      expect(result.failures).toEqual([]);
      expect(result.failed).toBe(0);
      expect(result.exit).toBe(0);
      expect(result.ok).toBeGreaterThan(80);
      // Behind a load balancer that watches /readyz, nothing is even refused.
      if (balancer) expect(result.refused).toBe(0);
    }
  });
});
