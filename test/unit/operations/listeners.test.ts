// listen (server/listeners.ts, decision 242): several sockets share the port, each handing its connections
// to the one HTTP server; the cap counts them all; stop closes every socket and leaves open connections.
import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { listen, listeningSockets, type Listening } from '../../../server/listeners.ts';
import { listenersOn, notYetAccepted } from '../../support/listening-sockets.ts';

const cleanup: Array<() => void> = [];
afterEach(() => cleanup.splice(0).forEach((step) => step()));

async function serve(sockets: number, full: () => boolean = () => false) {
  const server = http.createServer((_req, res) => res.end('ok'));
  const listening: Listening = listen(server, { port: 0, host: '127.0.0.1', backlog: 64, sockets, full });
  await new Promise((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const port = (server.address() as net.AddressInfo).port;
  cleanup.push(() => server.closeAllConnections());
  cleanup.push(() => listening.stop(() => {}));
  await expect.poll(() => listenersOn(port).length, { timeout: 5_000, interval: 10 }).toBe(sockets);
  return { server, port, listening };
}

/** One request on a connection of its own. */
function get(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get({ port, host: '127.0.0.1', agent: false }, (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk)).on('end', () => resolve(body));
      })
      .on('error', reject);
  });
}

describe('listeningSockets', () => {
  it('keeps the number asked for on Linux, where SO_REUSEPORT spreads connections, and 1 elsewhere', () => {
    expect(listeningSockets(16, 'linux')).toBe(16);
    expect(listeningSockets(16, 'darwin')).toBe(1);
    expect(listeningSockets(16, 'win32')).toBe(1);
  });
});

describe('listen', () => {
  it('listens with one socket as Node does when asked for one', async () => {
    const { port } = await serve(1);
    expect(await get(port)).toBe('ok');
  });

  it('answers from the one server whichever socket took the connection, and stop closes every socket', async () => {
    const { server, port, listening } = await serve(6);
    const taken = new Set<number>();
    server.on('connection', (socket: net.Socket) => taken.add(socket.remotePort!));
    const answers = await Promise.all(Array.from({ length: 30 }, () => get(port)));
    expect(answers).toEqual(Array.from({ length: 30 }, () => 'ok'));
    expect(taken.size).toBe(30);
    await new Promise<void>((resolve) => listening.stop(resolve));
    expect(listenersOn(port)).toEqual([]);
    await expect(get(port)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('closes at once a connection a second socket takes while the process is full', async () => {
    let full = false;
    const { port } = await serve(8, () => full);
    full = true;
    // The kernel picks the socket by the connection's addresses; of 16, some reach the 7 others.
    const outcomes = await Promise.all(Array.from({ length: 16 }, () => get(port).catch((error: Error) => error.message)));
    expect(outcomes.filter((outcome) => outcome !== 'ok').length).toBeGreaterThan(0);
    expect(outcomes.every((outcome) => outcome === 'ok' || /socket hang up|ECONNRESET/.test(outcome))).toBe(true);
    expect(notYetAccepted(port)).toBe(0);
  });

  it('fails with EADDRINUSE on a port another of its kind holds, instead of sharing it', async () => {
    const { port } = await serve(4);
    const second = http.createServer();
    listen(second, { port, host: '127.0.0.1', backlog: 64, sockets: 4, full: () => false });
    await expect(new Promise((resolve, reject) => second.once('listening', resolve).once('error', reject))).rejects.toThrow(/EADDRINUSE/);
    expect(listenersOn(port).length).toBe(4);
  });
});
