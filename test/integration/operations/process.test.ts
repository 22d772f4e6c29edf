import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, runToExit, startServer, type RunningServer } from '../../support/app.ts';

// These run the built server (dist/server.js, here built into a temporary directory) as a real
// process, because signals, exit codes and start-up failures only exist there.

let build: ReturnType<typeof buildApp>;
const running: RunningServer[] = [];

beforeAll(() => {
  build = buildApp();
});
afterAll(async () => {
  await Promise.all(running.map((server) => server.stop()));
  build.remove();
});

async function start(env: Record<string, string> = {}): Promise<RunningServer> {
  const server = await startServer(build.serverJs, {
    NODE_ENV: 'test',
    ENABLE_TEST_ROUTES: 'true',
    ASSETS_DIR: build.assetsDir,
    ...env,
  });
  running.push(server);
  return server;
}

type Outcome = { status: number; body: string } | { error: string };

/** A request on its own connection; `started` resolves when the response headers arrive. */
function inFlight(url: string): { started: Promise<void>; done: Promise<Outcome> } {
  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const done = new Promise<Outcome>((resolve) => {
    const req = http.get(url, { agent: false }, (res) => {
      markStarted();
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
      res.on('error', (error) => resolve({ error: error.message }));
    });
    req.on('error', (error) => {
      markStarted();
      resolve({ error: (error as NodeJS.ErrnoException).code ?? error.message });
    });
  });
  return { started, done };
}

async function get(url: string): Promise<{ status: number; body: string } | { error: string }> {
  return inFlight(url).done;
}

async function until<T>(probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (accept(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('bad configuration', () => {
  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PUBLIC_URL: 'nope' }, 'PUBLIC_URL'],
    [{ LOG_LEVEL: 'shout' }, 'LOG_LEVEL'],
    [{ NODE_ENV: 'production' }, 'SESSION_SECRET'],
  ])('%o exits non-zero with one clear line naming %s, no stack trace', async (env, variable) => {
    const result = await runToExit(build.serverJs, { ASSETS_DIR: build.assetsDir, ...env });
    expect(result.code).toBe(1);
    const lines = result.stderr.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^Invalid configuration: .*${variable}: `));
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(result.stdout).toBe('');
  });

  it('a missing build also fails in one line', async () => {
    const result = await runToExit(build.serverJs, { ASSETS_DIR: '/nonexistent/assets' });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/manifest missing.*npm run build/);
  });
});

describe('graceful shutdown on SIGTERM', () => {
  it('finishes 50 slow requests in flight, refuses new connections, exits 0', async () => {
    // All 50 at once in flight (by default the 17th on would wait in line, and past 1 s get a 503).
    const server = await start({ MAX_IN_FLIGHT: '50' });
    // An idle kept-alive connection must not hold the shutdown up.
    const keepAlive = new http.Agent({ keepAlive: true });
    await new Promise<void>((resolve) => http.get(`${server.url}/healthz`, { agent: keepAlive }, (res) => res.resume().on('end', resolve)));

    const requests = Array.from({ length: 50 }, () => inFlight(`${server.url}/__test/slow?ms=1500`));
    await Promise.all(requests.map((request) => request.started));
    const signalledAt = Date.now();
    server.child.kill('SIGTERM');

    const refused = await until(
      () => get(`${server.url}/healthz`),
      (outcome) => 'error' in outcome,
    );
    // Refused, or reset when the connection was queued in the kernel's backlog as the listener closed:
    // either way no new request is served.
    expect(['ECONNREFUSED', 'ECONNRESET']).toContain((refused as { error: string }).error);

    const outcomes = await Promise.all(requests.map((request) => request.done));
    expect(outcomes).toHaveLength(50);
    for (const outcome of outcomes) expect(outcome).toEqual({ status: 200, body: '{"waited":1500}' });

    const exit = await server.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalledAt).toBeLessThan(5_000);
    expect(server.stdout()).toContain('shutdown complete');
    keepAlive.destroy();
  });

  it('readiness answers 503 as soon as shutdown starts, while liveness stays 200', async () => {
    // Readiness also needs the identity service: a Kratos that answers /health/ready.
    const kratos = http.createServer((_req, res) => res.end('{"status":"ok"}'));
    await new Promise<void>((resolve) => kratos.listen(0, '127.0.0.1', resolve));
    const kratosUrl = `http://127.0.0.1:${(kratos.address() as import('node:net').AddressInfo).port}`;
    const server = await start({ SHUTDOWN_DELAY_MS: '1500', KRATOS_PUBLIC_URL: kratosUrl });
    expect(await get(`${server.url}/readyz`)).toEqual({ status: 200, body: '{"status":"ready"}' });
    server.child.kill('SIGTERM');
    const ready = await until(
      () => get(`${server.url}/readyz`),
      (outcome) => 'status' in outcome && outcome.status === 503,
    );
    expect(ready).toEqual({ status: 503, body: '{"status":"shutting_down"}' });
    expect(await get(`${server.url}/healthz`)).toMatchObject({ status: 200 });
    expect(await server.exited).toEqual({ code: 0, signal: null });
    kratos.close();
  });

  it('exits 0 when whatever read its standard output has gone (a broken pipe), its last lines lost', async () => {
    const server = await start();
    // The reading end closes: the app's next log writes fail with EPIPE (Node ignores SIGPIPE).
    server.child.stdout!.destroy();
    expect(await get(`${server.url}/healthz`)).toMatchObject({ status: 200 });
    const signalledAt = Date.now();
    server.child.kill('SIGTERM');
    const exit = await Promise.race([server.exited, new Promise((resolve) => setTimeout(() => resolve('still running'), 5_000))]);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalledAt).toBeLessThan(5_000);
  });

  it('does not wait past SHUTDOWN_TIMEOUT_MS for a request that will not finish', async () => {
    const server = await start({ SHUTDOWN_TIMEOUT_MS: '700' });
    const stuck = inFlight(`${server.url}/__test/slow?ms=20000`);
    await stuck.started;
    const signalledAt = Date.now();
    server.child.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalledAt).toBeLessThan(3_000);
    expect(await stuck.done).toHaveProperty('error');
  });
});

describe('one bad request cannot take the process down', () => {
  it('survives handler errors and an exception thrown outside any request', async () => {
    const server = await start();
    expect(await get(`${server.url}/__test/crash`)).toMatchObject({ status: 500 });
    expect(await get(`${server.url}/__test/crash-async`)).toMatchObject({ status: 500 });
    expect(await get(`${server.url}/__test/stray-exception`)).toMatchObject({ status: 202 });
    await until(
      async () => server.stdout(),
      (out) => out.includes('error outside any request'),
    );
    expect(server.stdout()).toContain('Deliberate stray exception');
    expect(await get(`${server.url}/healthz`)).toEqual({ status: 200, body: '{"status":"ok"}' });
    expect(server.child.exitCode).toBeNull();
  });

  it('survives malformed HTTP', async () => {
    const server = await start();
    const { port } = new URL(server.url);
    const net = await import('node:net');
    const reply = await new Promise<string>((resolve) => {
      const socket = net.connect(Number(port), '127.0.0.1', () => socket.write('GARBAGE / HTTP/9.9\r\n\r\n'));
      let data = '';
      socket.on('data', (chunk) => (data += chunk));
      socket.on('close', () => resolve(data));
      socket.on('error', () => resolve(data));
    });
    expect(reply).toMatch(/^HTTP\/1\.1 400/);
    expect(await get(`${server.url}/healthz`)).toMatchObject({ status: 200 });
  });
});
