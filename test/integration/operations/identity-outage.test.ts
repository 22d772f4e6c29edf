// Issue 10 #8 and #9: every identity-service call has a total deadline, and an outage is a translated
// 503 `identity_unavailable` (not the crash page), with /readyz 503 while it lasts and both back to
// normal within seconds of the service's return, without a restart.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp, testApp } from '../../support/app.ts';
import { startFakeKratos } from '../../support/fake-kratos.ts';

type Mode = 'up' | 'down' | 'hang' | 'trickle';

/**
 * A switchable stand-in address for Kratos: `up` relays to the fake Kratos, `down` closes the port
 * (connection refused), `hang` accepts and never answers, `trickle` answers headers then one byte every
 * 200 ms for 6 s. Switching drops every open connection, as a crash of the service would.
 */
async function switchableKratos(target: string) {
  const targetPort = Number(new URL(target).port);
  const sockets = new Set<net.Socket>();
  let mode: Mode = 'up';
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    if (mode === 'up') {
      const upstream = net.connect(targetPort, '127.0.0.1');
      upstream.on('error', () => socket.destroy());
      socket.on('close', () => upstream.destroy());
      socket.pipe(upstream).pipe(socket);
    } else if (mode === 'trickle') {
      socket.once('data', () => {
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 30\r\n\r\n');
        let sent = 0;
        const timer = setInterval(() => {
          if (socket.destroyed || sent >= 30) return clearInterval(timer);
          socket.write(' ');
          sent += 1;
        }, 200);
        socket.on('close', () => clearInterval(timer));
      });
    }
    // hang: nothing, ever.
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const dropAll = () => sockets.forEach((socket) => socket.destroy());
  return {
    url: `http://127.0.0.1:${port}`,
    async set(next: Mode) {
      dropAll();
      if (next === 'down' && server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
      if (next !== 'down' && !server.listening) await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
      mode = next;
    },
    async close() {
      dropAll();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let build: ReturnType<typeof buildApp>;
let fake: Awaited<ReturnType<typeof startFakeKratos>>;
let kratos: Awaited<ReturnType<typeof switchableKratos>>;
let app: Express;
let appServer: http.Server;

beforeAll(async () => {
  build = buildApp();
  fake = await startFakeKratos();
  kratos = await switchableKratos(fake.url);
  app = await testApp(build.assetsDir, { KRATOS_PUBLIC_URL: kratos.url, KRATOS_ADMIN_URL: kratos.url, KRATOS_TIMEOUT_MS: '600' });
  // One server for all requests, so keep-alive connections to Kratos are reused as in production.
  appServer = http.createServer(app);
  await new Promise<void>((resolve) => appServer.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  appServer?.closeAllConnections();
  await new Promise((resolve) => appServer?.close(resolve));
  await kratos?.close();
  await fake?.close();
  build?.remove();
});

const FRENCH_TEXT = 'Notre service de comptes est injoignable pour le moment. Veuillez réessayer dans quelques instants.';

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const startedAt = Date.now();
  const value = await work();
  return { value, ms: Date.now() - startedAt };
}

async function until(probe: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const startedAt = Date.now();
  while (!(await probe())) {
    if (Date.now() - startedAt > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return Date.now() - startedAt;
}

const signIn = (headers: Record<string, string> = {}) => request(appServer).get('/sign-in').set(headers);
const ready = () => request(appServer).get('/readyz');
// Normal: the sign-in page of a new flow, shown at once (decision 190).
const isNormal = async () => (await signIn()).status === 200 && (await ready()).status === 200;

describe('identity service outage', () => {
  test('down: /sign-in answers a translated 503 within 2 s, as HTML and JSON, and /readyz 503; back up: normal within 5 s', async () => {
    await until(isNormal, 5_000);
    await kratos.set('down');

    const page = await timed(() => signIn({ 'Accept-Language': 'fr', Accept: 'text/html' }));
    expect(page.ms).toBeLessThan(2_000);
    expect(page.value.status).toBe(503);
    expect(page.value.headers['retry-after']).toBe('5');
    expect(page.value.text).toContain('Service temporairement indisponible');
    expect(page.value.text).toContain(FRENCH_TEXT);

    const json = await timed(() => signIn({ 'Accept-Language': 'fr', Accept: 'application/json' }));
    expect(json.ms).toBeLessThan(2_000);
    expect(json.value.status).toBe(503);
    expect(json.value.body).toEqual({ code: 'identity_unavailable', message: FRENCH_TEXT, meta: { requestId: expect.any(String) } });

    for (const language of ['en', 'vi', 'pt', 'es']) {
      const other = await signIn({ 'Accept-Language': language, Accept: 'application/json' });
      expect(other.status).toBe(503);
      expect(other.body.message).not.toBe(FRENCH_TEXT);
      expect(other.body.message).not.toMatch(/httpError/);
    }

    const readiness = await ready();
    expect(readiness.status).toBe(503);
    expect(readiness.body).toMatchObject({ status: 'unavailable', failing: ['identity'] });
    // Still 503 after the page call's outcome has aged: the probe itself finds Kratos down.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    expect((await ready()).status).toBe(503);

    await kratos.set('up');
    const recoveredIn = await until(isNormal, 5_000);
    expect(recoveredIn).toBeLessThan(5_000);
  });

  test('a Kratos that accepts and never answers: 503 once the deadline (600 ms here) passes', async () => {
    await until(isNormal, 5_000);
    await kratos.set('hang');
    const page = await timed(() => signIn({ Accept: 'application/json' }));
    expect(page.value.status).toBe(503);
    expect(page.value.body.code).toBe('identity_unavailable');
    expect(page.ms).toBeLessThan(2_000);
    await kratos.set('up');
    await until(isNormal, 5_000);
  });
});

describe('total deadline on identity calls', () => {
  test('a Kratos trickling one byte every 200 ms cannot hold a request past the deadline', async () => {
    await until(isNormal, 5_000);
    await kratos.set('trickle');
    // The trickle would take 6 s to finish; an idle timeout (reset by every byte) would wait for all of it.
    const page = await timed(() => signIn({ Accept: 'application/json' }));
    expect(page.value.status).toBe(503);
    expect(page.value.body.code).toBe('identity_unavailable');
    expect(page.ms).toBeLessThan(1_500);
    await kratos.set('up');
    await until(isNormal, 5_000);
  });
});
