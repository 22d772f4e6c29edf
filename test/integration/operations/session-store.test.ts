import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppLocals } from '../../../server/locals.ts';
import { BoundedMemoryStore } from '../../../server/session.ts';
import { buildApp, memoryLogger, testApp } from '../../support/app.ts';

let build: ReturnType<typeof buildApp>;
// Readiness also asks the identity service: a Kratos that answers /health/ready.
const kratos = http.createServer((_req, res) => res.end('{"status":"ok"}'));
let kratosEnv: Record<string, string> = {};

beforeAll(async () => {
  build = buildApp();
  await new Promise<void>((resolve) => kratos.listen(0, '127.0.0.1', resolve));
  kratosEnv = { KRATOS_PUBLIC_URL: `http://127.0.0.1:${(kratos.address() as AddressInfo).port}` };
});
afterAll(() => {
  build.remove();
  kratos.close();
});

describe('session store', () => {
  it('with REDIS_URL pointing nowhere, readiness reports the session store and forms fail cleanly', async () => {
    const log = memoryLogger('warn');
    // Port 1 on loopback: nothing listens there, so the connection is refused at once.
    const app = await testApp(build.assetsDir, { ...kratosEnv, REDIS_URL: 'redis://127.0.0.1:1' }, log.logger);
    const ready = await request(app).get('/readyz');
    expect(ready.status).toBe(503);
    // The rate limits and the socket fan-out share that Redis (decision 160): named too.
    expect(ready.body).toEqual({ status: 'unavailable', failing: ['session-store', 'redis'] });
    expect((await request(app).get('/healthz')).status).toBe(200);
    // A page that needs the session answers (with the crash page) instead of hanging.
    const form = await request(app).get('/__test/form').timeout(5_000);
    expect(form.status).toBe(500);
    // Pages that need no session are not affected.
    expect((await request(app).get('/missing')).status).toBe(404);
    for (const hook of (app.locals as AppLocals).onShutdown) await hook();
  });

  it('readiness is 200 with the memory store and 503 once shutdown begins', async () => {
    const app = await testApp(build.assetsDir, kratosEnv);
    expect((await request(app).get('/readyz')).body).toEqual({ status: 'ready' });
    (app.locals as AppLocals).shuttingDown = true;
    const res = await request(app).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.headers.connection).toBe('close');
  });

  it('a registered readiness check that fails or hangs turns readiness 503', async () => {
    const app = await testApp(build.assetsDir, kratosEnv);
    const locals = app.locals as AppLocals;
    locals.readiness.push({ name: 'mail', check: async () => false });
    expect((await request(app).get('/readyz')).body).toEqual({ status: 'unavailable', failing: ['mail'] });
    locals.readiness.splice(-1, 1, { name: 'backend', check: () => Promise.reject(new Error('down')) });
    expect((await request(app).get('/readyz')).body).toEqual({ status: 'unavailable', failing: ['backend'] });
  });

  it('the memory store forgets expired sessions', async () => {
    let now = 1_000_000;
    const store = new BoundedMemoryStore({ perf: { now: () => now } });
    const cookie = (ms: number) => ({ originalMaxAge: ms, expires: new Date(Date.now() + ms) }) as never;
    store.set('old', { cookie: cookie(10) });
    store.set('new', { cookie: cookie(60_000) });
    expect(store.size).toBe(2);
    now += 1_000;
    const found = await new Promise((resolve) => store.get('new', (_error, session) => resolve(session)));
    expect(found).toMatchObject({ cookie: { originalMaxAge: 60_000 } });
    const gone = await new Promise((resolve) => store.get('old', (_error, session) => resolve(session)));
    expect(gone).toBeNull();
    store.close();
  });
});
