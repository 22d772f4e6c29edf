// Issue 10 #1 (general part): no request, however malformed or aborted, reaches the process-level error
// handlers. Every documented route (plus static, asset and test-hook paths) gets bodies that stop short
// of their Content-Length, multipart cut before its closing boundary, JSON cut mid-value and resets;
// then the app must still answer and its log must hold no "error outside any request".
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { documentedEndpoints } from '../../../server/openapi/registry.ts';
import { buildApp, startServer, testApp, type RunningServer } from '../../support/app.ts';

let build: ReturnType<typeof buildApp>;
let server: RunningServer;
let port: number;

beforeAll(async () => {
  build = buildApp();
  await testApp(build.assetsDir); // builds the routers, which fills the OpenAPI registry
  server = await startServer(build.serverJs, {
    NODE_ENV: 'test',
    ENABLE_TEST_ROUTES: 'true',
    ASSETS_DIR: build.assetsDir,
    KRATOS_PUBLIC_URL: 'http://127.0.0.1:9',
  });
  port = Number(new URL(server.url).port);
});
afterAll(async () => {
  await server?.stop();
  build?.remove();
});

/** Writes `head` and `body`, then ends the connection abruptly (`reset`) or half-closes it; resolves on close. */
function send(head: string, body: string, how: 'destroy' | 'reset' | 'end'): Promise<void> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(head + body, () => {
        setImmediate(() => {
          if (how === 'reset') socket.resetAndDestroy();
          else if (how === 'end') socket.end();
          else socket.destroy();
        });
      });
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve());
    socket.resume();
  });
}

const BOUNDARY = '----cut';
const BODIES: Array<{ type: string; body: string }> = [
  { type: 'application/json', body: '{"identifier":"a@example.com","password":"pa' },
  { type: 'application/x-www-form-urlencoded', body: 'identifier=a%40example.com&password=p' },
  {
    type: `multipart/form-data; boundary=${BOUNDARY}`,
    body: `--${BOUNDARY}\r\nContent-Disposition: form-data; name="avatar"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n\x89PNG\r\n\x1a\n`,
  },
];

function paths(): Array<{ method: string; path: string }> {
  const documented = documentedEndpoints().map((doc) => ({ method: doc.method.toUpperCase(), path: doc.path.replace(/:([A-Za-z_]\w*)/g, 'x') }));
  const extra = ['/favicon.ico', '/assets/none.js', '/healthz', '/readyz', '/__test/form', '/__test/slow?ms=10', '/nowhere'].flatMap((path) => [
    { method: 'GET', path },
    { method: 'POST', path },
  ]);
  return [...documented, ...extra];
}

describe('aborted and truncated requests on every route', () => {
  test('none reaches the process-level handlers; the app keeps answering', async () => {
    const targets = paths();
    expect(targets.length).toBeGreaterThan(20);
    for (const { method, path } of targets) {
      const work: Promise<void>[] = [];
      for (const { type, body } of BODIES) {
        const head = `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${type}\r\nContent-Length: ${body.length + 5000}\r\nCookie: ory_kratos_session=x\r\n\r\n`;
        for (const how of ['destroy', 'reset', 'end'] as const) work.push(send(head, body, how));
        // Chunked, cut before its last chunk.
        work.push(
          send(
            `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${type}\r\nTransfer-Encoding: chunked\r\n\r\n`,
            `${body.length.toString(16)}\r\n${body}\r\n`,
            'destroy',
          ),
        );
      }
      // Headers cut in the middle.
      work.push(send(`${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le`, '', 'reset'));
      await Promise.all(work);
    }
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(server.child.exitCode).toBeNull();
    // Give pending log lines a moment to be written, then read them: a marker request is logged last.
    await fetch(`${server.url}/nowhere-marker`);
    await expect.poll(() => server.stdout().includes('nowhere-marker'), { timeout: 5_000 }).toBe(true);
    expect(server.stdout()).not.toContain('error outside any request');
    expect(server.stderr()).toBe('');
  }, 120_000);
});
