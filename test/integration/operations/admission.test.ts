// Admission control (issue #17 item 7): past MAX_IN_FLIGHT requests at once the next ones wait in line
// for at most QUEUE_TIMEOUT_MS, then get a quick, translated 503 with Retry-After instead of a long wait.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, testApp } from '../../support/app.ts';

let build: ReturnType<typeof buildApp>;
beforeAll(() => {
  build = buildApp();
});
afterAll(() => build.remove());

const servers: http.Server[] = [];
afterAll(() => servers.forEach((server) => server.close()));

/** The app listening for real (one instance, one line), and a request holding its one slot for `ms`. */
async function appWith(env: Record<string, string>): Promise<{ server: http.Server; occupy(ms: number): Promise<{ done: Promise<number> }> }> {
  const app: Express = await testApp(build.assetsDir, env);
  const server = app.listen(0);
  servers.push(server);
  const port = (server.address() as AddressInfo).port;
  // Resolves once the slow request holds the slot (its headers arrived), with its end still to come.
  const occupy = (ms: number) =>
    new Promise<{ done: Promise<number> }>((holding, reject) => {
      http
        .get({ port, path: `/__test/slow?ms=${ms}` }, (res) => {
          // Wrapped: a promise resolved with a promise would wait for that one (the end) instead.
          holding({ done: new Promise<number>((done) => res.resume().on('end', () => done(res.statusCode ?? 0))) });
        })
        .on('error', reject);
    });
  return { server, occupy };
}

describe('admission control', () => {
  it('a request past the limit that waits too long gets a translated 503 with Retry-After, at once after the deadline', async () => {
    const { server: app, occupy } = await appWith({ MAX_IN_FLIGHT: '1', QUEUE_TIMEOUT_MS: '150' });
    const busy = (await occupy(1500)).done;
    const started = Date.now();
    const [page, json] = await Promise.all([
      request(app).get('/__test/form').set('Accept-Language', 'fr'),
      request(app).get('/__test/form').set('Accept', 'application/json'),
    ]);
    expect(Date.now() - started).toBeLessThan(1200); // answered at the deadline, not after the slow request
    expect(page.status).toBe(503);
    expect(page.headers['retry-after']).toBe('1');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.text).toContain('Service très sollicité');
    expect(json.status).toBe(503);
    expect(json.body).toMatchObject({ code: 'overloaded', meta: { retryAfterSeconds: 1 } });
    expect(await busy).toBe(200);
    // The slot is free again.
    expect((await request(app).get('/__test/form')).status).toBe(200);
  });

  it('within the deadline a waiting request is served as soon as a slot frees, in arrival order', async () => {
    const { server: app, occupy } = await appWith({ MAX_IN_FLIGHT: '1', QUEUE_TIMEOUT_MS: '5000' });
    const busy = (await occupy(300)).done;
    const order: string[] = [];
    const first = request(app)
      .get('/__test/slow?ms=10')
      .then((res) => order.push('first') && res.status);
    const second = request(app)
      .get('/__test/slow?ms=10')
      .then((res) => order.push('second') && res.status);
    expect(await Promise.all([busy, first, second])).toEqual([200, 200, 200]);
    expect(order).toEqual(['first', 'second']);
  });

  it('health probes are never held in line', async () => {
    const { server: app, occupy } = await appWith({ MAX_IN_FLIGHT: '1', QUEUE_TIMEOUT_MS: '5000' });
    const busy = (await occupy(800)).done;
    const started = Date.now();
    expect((await request(app).get('/healthz')).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(500);
    await busy;
  });
});
