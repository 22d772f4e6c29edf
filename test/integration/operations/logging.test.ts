import type { Express } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, memoryLogger, testApp } from '../../support/app.ts';

let build: ReturnType<typeof buildApp>;
let app: Express;
const log = memoryLogger('info');

beforeAll(async () => {
  build = buildApp();
  app = await testApp(build.assetsDir, {}, log.logger);
});
afterAll(() => build.remove());

describe('request logs', () => {
  it('carry the request id and never the cookies, Authorization, Set-Cookie, passwords, CSRF or flow tokens', async () => {
    const secrets = {
      cookie: 'ory_kratos_session=kratos-session-value; lng=fr',
      authorization: 'Bearer jwt-header.jwt-claims.jwt-signature',
      password: 'my password is long enough',
      csrf: 'csrf-value-in-the-body',
      token: 'logout-token-in-the-query',
    };
    const agent = request.agent(app);
    const form = await agent.get('/__test/form').set('X-Request-Id', 'log-form');
    const sessionCookie = String(form.headers['set-cookie']).split(';')[0]!;
    const ourCsrf = /name="_csrf" value="([^"]+)"/.exec(form.text)![1]!;
    await agent
      .post(`/__test/form?token=${secrets.token}&flow=123`)
      .set('X-Request-Id', 'log-post')
      .set('Authorization', secrets.authorization)
      .set('x-csrf-token', secrets.csrf)
      .type('form')
      .send({ password: secrets.password, _csrf: ourCsrf });
    await request(app).get('/__test/crash').set('Cookie', secrets.cookie).set('X-Request-Id', 'log-crash');

    const text = log.text();
    for (const [name, secret] of Object.entries(secrets)) expect(text, name).not.toContain(secret);
    expect(text).not.toContain(ourCsrf);
    expect(text).not.toContain(sessionCookie.split('=')[1]);
    const lines = log.lines().map((line) => JSON.parse(line));
    const post = lines.find((entry) => entry.req?.id === 'log-post' && entry.res);
    // The body's token is ours and valid (the header is only read without one): accepted.
    expect(post).toMatchObject({ req: { method: 'POST', path: '/__test/form' }, res: { statusCode: 200 } });
    expect(lines.some((entry) => entry.req?.id === 'log-crash' && entry.level === 50)).toBe(true);
  });

  it('health probes are not logged', async () => {
    await request(app).get('/healthz').set('X-Request-Id', 'probe-1');
    expect(log.text()).not.toContain('probe-1');
  });
});
