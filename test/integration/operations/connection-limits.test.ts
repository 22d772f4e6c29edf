// Issue 10 #11: one client must not hold a process's connections. Headers that never finish are cut
// after HEADERS_TIMEOUT_MS, an idle kept-alive connection after KEEP_ALIVE_TIMEOUT_MS, and past
// MAX_CONNECTIONS new connections are turned away while the app keeps answering. Issue 17: LISTEN_SOCKETS
// sockets share the port (decision 242), the cap counts the connections of them all, and a second copy on
// the same port still fails to start.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp, startServer, type RunningServer } from '../../support/app.ts';
import { listenersOn, notYetAccepted } from '../../support/listening-sockets.ts';

let build: ReturnType<typeof buildApp>;
let server: RunningServer;
let port = 0;
const sockets: net.Socket[] = [];

beforeAll(async () => {
  build = buildApp();
  server = await startServer(build.serverJs, {
    NODE_ENV: 'test',
    ASSETS_DIR: build.assetsDir,
    KRATOS_PUBLIC_URL: 'http://127.0.0.1:9',
    HEADERS_TIMEOUT_MS: '1000',
    REQUEST_TIMEOUT_MS: '2000',
    KEEP_ALIVE_TIMEOUT_MS: '1000',
    MAX_CONNECTIONS: '20',
    LISTEN_SOCKETS: '8',
  });
  port = Number(new URL(server.url).port);
});

afterAll(async () => {
  sockets.forEach((socket) => socket.destroy());
  await server?.stop();
  build?.remove();
});

function open(): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
    socket.on('error', reject);
    sockets.push(socket);
  });
}

/** Resolves with how long the server took to close the socket (rejects past `withinMs`). */
function closedWithin(socket: net.Socket, withinMs: number): Promise<number> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    if (socket.destroyed) return resolve(0);
    const timer = setTimeout(() => reject(new Error(`still open after ${withinMs} ms`)), withinMs);
    socket.resume(); // read (and drop) whatever comes, such as a 408, so the end of the stream is seen
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(Date.now() - started);
    });
  });
}

async function health(): Promise<number> {
  const answer = await fetch(`http://127.0.0.1:${port}/healthz`, { headers: { Connection: 'close' } });
  return answer.status;
}

describe('listening sockets', () => {
  test('LISTEN_SOCKETS sockets listen on the port, and connections to any of them are answered', async () => {
    await expect.poll(() => listenersOn(port).length, { timeout: 5_000, interval: 50 }).toBe(8);
    // The kernel spreads new connections over the sockets by their addresses: 40 connections, one after
    // another (below MAX_CONNECTIONS), reach several.
    const statuses: number[] = [];
    for (let count = 0; count < 40; count += 1) statuses.push(await health());
    expect(statuses).toEqual(Array.from({ length: 40 }, () => 200));
  });

  test('a second copy on the same port fails to start and says why, and the first keeps answering', async () => {
    const second = startServer(build.serverJs, {
      NODE_ENV: 'test',
      ASSETS_DIR: build.assetsDir,
      KRATOS_PUBLIC_URL: 'http://127.0.0.1:9',
      PORT: String(port),
      LISTEN_SOCKETS: '8',
    });
    await expect(second).rejects.toThrow(/exited \(1\) before listening; stderr: accounts cannot listen on 127\.0\.0\.1:\d+: .*EADDRINUSE/);
    expect(listenersOn(port).length).toBe(8);
    expect(await health()).toBe(200);
  });
});

describe('connection limits', () => {
  test('headers that never finish are cut after HEADERS_TIMEOUT_MS, with a 408', async () => {
    const socket = await open();
    socket.on('error', () => {});
    const answer = new Promise<string>((resolve) => socket.once('data', (chunk) => resolve(String(chunk))));
    socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: '); // and nothing more
    const took = await closedWithin(socket, 5_000);
    expect(took).toBeGreaterThanOrEqual(500);
    expect(await answer).toMatch(/^HTTP\/1\.1 408/);
  });

  test('an idle kept-alive connection is closed after KEEP_ALIVE_TIMEOUT_MS', async () => {
    const socket = await open();
    socket.on('error', () => {});
    const answered = new Promise<string>((resolve) => socket.once('data', (chunk) => resolve(String(chunk))));
    socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n');
    expect(await answered).toMatch(/^HTTP\/1\.1 200/);
    await closedWithin(socket, 5_000);
  });

  test('past MAX_CONNECTIONS new connections are turned away, and the app still answers once they go', async () => {
    const held = await Promise.all(Array.from({ length: 20 }, () => open()));
    held.forEach((socket) => socket.on('error', () => {}));
    // Connected is not yet accepted, and each listening socket has its own line: once the app has taken
    // all 20, whichever socket the next one reaches, it is the one past the cap.
    await expect.poll(() => notYetAccepted(port), { timeout: 5_000, interval: 20 }).toBe(0);
    // One more: accepted by the kernel, then closed by the server without an answer.
    const extra = await open();
    extra.on('error', () => {});
    let received = '';
    extra.on('data', (chunk) => (received += String(chunk)));
    extra.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await closedWithin(extra, 5_000);
    expect(received).toBe('');
    held.forEach((socket) => socket.destroy());
    await expect.poll(health, { timeout: 5_000, interval: 50 }).toBe(200);
  });
});
