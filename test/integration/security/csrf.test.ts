// CSRF for our own forms (not Kratos's flows, which carry Kratos's token): the token in a hidden _csrf
// field or the x-csrf-token header, bound to our session cookie; a missing, wrong or foreign token is
// refused with a translated 403 and never logged. And that session cookie in production.
import express, { type Express } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { provideCsrfToken } from '../../../server/security/csrf.ts';
import { createSession } from '../../../server/session.ts';
import { buildApp, memoryLogger, testApp, testConfig } from '../../support/app.ts';

let build: ReturnType<typeof buildApp>;
let app: Express;
const log = memoryLogger();

beforeAll(async () => {
  build = buildApp();
  app = await testApp(build.assetsDir, {}, log.logger);
});
afterAll(() => build.remove());

describe('CSRF for our own forms', () => {
  async function formSession() {
    const agent = request.agent(app);
    const page = await agent.get('/__test/form');
    const token = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1];
    return { agent, page, token };
  }

  it('the form carries the token as a hidden _csrf field and the session cookie is HttpOnly and SameSite=Lax', async () => {
    const { page, token } = await formSession();
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    const cookie = ([] as string[]).concat(page.headers['set-cookie'] ?? []).find((c) => c.startsWith('accounts.sid='));
    expect(cookie).toBeDefined();
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
  });

  it('pages without our forms set no session cookie', async () => {
    const res = await request(app).get('/missing');
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('accepts the token from the body or the x-csrf-token header', async () => {
    const { agent, token } = await formSession();
    const viaBody = await agent.post('/__test/form').type('form').send({ _csrf: token, note: 'hi' });
    expect(viaBody.status).toBe(200);
    expect(viaBody.body).toEqual({ accepted: true, note: 'hi' });
    const viaHeader = await agent.post('/__test/form').set('x-csrf-token', token!).send({ note: 'json' });
    expect(viaHeader.status).toBe(200);
    expect(viaHeader.body.note).toBe('json');
  });

  it('refuses a missing, wrong or foreign token with a translated 403', async () => {
    const { agent, token } = await formSession();
    const missing = await agent.post('/__test/form').type('form').send({ note: 'x' });
    expect(missing.status).toBe(403);
    expect(missing.text).toContain('This form has expired');
    const wrong = await agent
      .post('/__test/form?lng=pt')
      .type('form')
      .send({ _csrf: `${token!.slice(0, -1)}${token!.endsWith('0') ? '1' : '0'}`, note: 'x' });
    expect(wrong.status).toBe(403);
    expect(wrong.text).toContain('Este formulário expirou');
    // The right token without its session (another browser) is worthless.
    const foreign = await request(app).post('/__test/form').set('Accept', 'application/json').type('form').send({ _csrf: token });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toMatchObject({ code: 'csrf_invalid', message: expect.any(String) });
  });

  it('never logs the token', async () => {
    const { agent, token } = await formSession();
    await agent.post('/__test/form').set('x-csrf-token', 'wrong-token').type('form').send({ _csrf: token });
    expect(log.text()).not.toContain(token!);
    expect(log.text()).not.toContain('wrong-token');
  });
});

describe('the session cookie that holds the token, in production', () => {
  it('is __Host- prefixed and Secure behind a TLS-terminating proxy', async () => {
    const config = testConfig(build.assetsDir, {
      NODE_ENV: 'production',
      ENABLE_TEST_ROUTES: 'false',
      SESSION_SECRET: 's'.repeat(40),
    });
    const session = createSession(config, log.logger);
    const bare = express();
    bare.set('trust proxy', 'loopback');
    bare.use(session.middleware);
    bare.get('/form', provideCsrfToken, (_req, res) => void res.send('ok'));
    const res = await request(bare).get('/form').set('X-Forwarded-Proto', 'https');
    const cookie = String(res.headers['set-cookie']);
    expect(cookie).toMatch(/^__Host-accounts\.sid=/);
    expect(cookie).toMatch(/; Secure/);
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).not.toMatch(/Domain=/i);
    await session.close();
  });
});
