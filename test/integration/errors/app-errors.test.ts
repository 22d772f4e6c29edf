// How the app answers what goes wrong: unknown paths (404), a handler that throws (the crash screen, 500)
// and request bodies it cannot take (4xx), as pages and as JSON, translated. CSRF for our own forms is
// in ../security/csrf.test.ts.
import type { Express } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOG_REASONS } from '../../../server/log-reasons.ts';
import { translator } from '../../../server/request-context.ts';
import { buildApp, memoryLogger, testApp } from '../../support/app.ts';

let build: ReturnType<typeof buildApp>;
let app: Express;
const log = memoryLogger();

beforeAll(async () => {
  build = buildApp();
  app = await testApp(build.assetsDir, {}, log.logger);
});
afterAll(() => build.remove());

const STACK_FRAME = /\bat .+\.(ts|tsx|js):\d+/;

describe('unknown paths', () => {
  it('render the 404 page with status 404, /404 included, for any method', async () => {
    for (const [method, url] of [
      ['get', '/definitely/not/here'],
      ['get', '/404'],
      ['post', '/nope'],
    ] as const) {
      const res = await request(app)[method](url);
      expect(res.status, url).toBe(404);
      expect(res.text).toContain('<h1>Page not found</h1>');
    }
  });

  it('answer JSON in the spec error shape to Accept: application/json', async () => {
    const res = await request(app).get('/nope').set('Accept', 'application/json').set('X-Request-Id', 'req-404');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ code: 'not_found', message: expect.any(String), meta: { requestId: 'req-404' } });
  });

  it('are translated', async () => {
    const res = await request(app).get('/nope?lng=fr');
    expect(res.text).toContain('<html lang="fr"');
    expect(res.text).toContain('Page introuvable');
  });
});

describe('a handler that throws', () => {
  it('gives the crash screen with status 500 and the request id, never the error or a stack', async () => {
    for (const url of ['/__test/crash', '/__test/crash-async']) {
      const res = await request(app).get(url).set('X-Request-Id', 'crash-123');
      expect(res.status, url).toBe(500);
      expect(res.text).toContain('Something went wrong');
      expect(res.text).toContain('Sorry, we’re having some technical issues. Try to refresh the page.');
      // Retry reloads: a link to the same address (an island makes it location.reload()).
      expect(res.text).toMatch(/<a (?=[^>]*href="\/__test\/crash(-async)?")(?=[^>]*data-reload)[^>]*>(?:(?!<\/a>).)*Retry(?:(?!<\/a>).)*<\/a>/);
      expect(res.text).toContain('crash-123');
      expect(res.text).not.toContain('Deliberate');
      expect(res.text).not.toMatch(STACK_FRAME);
    }
  });

  it('and the next request is served normally', async () => {
    expect((await request(app).get('/__test/crash')).status).toBe(500);
    const next = await request(app).get('/healthz');
    expect(next.status).toBe(200);
    expect(next.body).toEqual({ status: 'ok' });
    expect((await request(app).get('/__test/form')).status).toBe(200);
  });

  it('answers JSON without a stack to Accept: application/json', async () => {
    const res = await request(app).get('/__test/crash').set('Accept', 'application/json').set('X-Request-Id', 'j-1');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ code: 'internal_error', message: expect.any(String), meta: { requestId: 'j-1' } });
    expect(JSON.stringify(res.body)).not.toContain('Deliberate');
    expect(JSON.stringify(res.body)).not.toMatch(STACK_FRAME);
  });

  it('the crash page is translated', async () => {
    const res = await request(app).get('/__test/crash').set('Accept-Language', 'vi');
    expect(res.text).toContain('<html lang="vi"');
    expect(res.text).not.toContain('Something went wrong');
  });

  it('error pages can translate even when the failure came before the i18n middleware', () => {
    const t = translator({ app } as never);
    expect(t('crash.title')).toBe('Something went wrong');
  });

  it('logs the error with the reason crash error, its message and its stack (the log is for us, the page is for the visitor)', async () => {
    await request(app).get('/__test/crash').set('X-Request-Id', 'logged-crash');
    const line = log.lines().find((entry) => entry.includes('logged-crash') && entry.includes('Deliberate crash'));
    expect(line).toBeDefined();
    const entry = JSON.parse(line!) as { level: number; reason?: string; err?: { message?: string; stack?: string } };
    expect(entry.level).toBe(50);
    // Spec §4: the reason crash error, with the stack and the message.
    expect(entry.reason).toBe(LOG_REASONS.crash);
    expect(entry.err?.message).toContain('Deliberate crash');
    expect(entry.err?.stack).toMatch(/Deliberate crash[\s\S]*\n\s+at /);
  });

  it('gives no crash reason to a failure that is not a crash (the identity service down: 503, logged as ORY_EXCEPTION)', async () => {
    const downLog = memoryLogger();
    // Port 1 on loopback: nothing listens there, so the connection is refused at once.
    const down = await testApp(build.assetsDir, { KRATOS_PUBLIC_URL: 'http://127.0.0.1:1', KRATOS_ADMIN_URL: 'http://127.0.0.1:1' }, downLog.logger);
    expect((await request(down).get('/sign-in').set('X-Request-Id', 'not-a-crash')).status).toBe(503);
    const line = downLog.lines().find((entry) => entry.includes('not-a-crash') && entry.includes('"level":50'));
    expect(line).toBeDefined();
    expect(JSON.parse(line!).reason).not.toBe(LOG_REASONS.crash);
    // The outage's own line (spec §8's internal reason), with what went wrong underneath.
    const outage = downLog.lines().find((entry) => entry.includes('not-a-crash') && entry.includes('"level":40'));
    expect(JSON.parse(outage!)).toMatchObject({ code: 'identity_unavailable', reason: LOG_REASONS.ory, cause: 'unreachable' });
  });
});

describe('bad request bodies get a translated 4xx, never a 500', () => {
  it('malformed JSON → 400', async () => {
    const res = await request(app).post('/anything').set('Content-Type', 'application/json').send('{"a":');
    expect(res.status).toBe(400);
    expect(res.text).toContain('This request could not be understood');
    const json = await request(app).post('/anything').set('Content-Type', 'application/json').set('Accept', 'application/json').send('{"a":');
    expect(json.status).toBe(400);
    expect(json.body).toMatchObject({ code: 'bad_request', message: 'Part of what was sent is malformed. Go back and try again.' });
  });

  it('a body over the limit → 413, in the visitor’s language', async () => {
    const big = `note=${'x'.repeat(200_000)}`;
    const res = await request(app).post('/__test/form?lng=es').type('form').send(big);
    expect(res.status).toBe(413);
    expect(res.text).toContain('Demasiados datos');
    const json = await request(app)
      .post('/anything')
      .set('Accept', 'application/json')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ a: 'y'.repeat(200_000) }));
    expect(json.status).toBe(413);
    expect(json.body.code).toBe('payload_too_large');
  });

  it('an unsupported charset → 415', async () => {
    const res = await request(app).post('/anything').set('Content-Type', 'application/json; charset=klingon').set('Accept', 'application/json').send('{}');
    expect(res.status).toBe(415);
    expect(res.body.code).toBe('unsupported_media_type');
  });

  it('too many form fields and a malformed URL → 4xx', async () => {
    const fields = Array.from({ length: 500 }, (_, i) => `f${i}=1`).join('&');
    expect((await request(app).post('/anything').type('form').send(fields)).status).toBe(413);
    const res = await request(app).get('/assets/%E0%A4%A');
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });
});
