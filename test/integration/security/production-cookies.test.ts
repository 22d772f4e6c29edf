// Issue 10 #14: in production, cookies the app relays from Kratos keep the attributes Kratos gave them
// (Secure, HttpOnly, SameSite; only Domain is dropped), and a deployment that does not tell the app
// it is behind HTTPS is told so in the logs: once at start-up, once on the first plain-HTTP request.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp, memoryLogger, testApp } from '../../support/app.ts';

const LOGIN_FLOW = readFileSync(new URL('../../fixtures/flows/login-fresh.json', import.meta.url), 'utf8');
const KRATOS_COOKIES = [
  'csrf_token_806060ca5bf70dff3caa0e5c860002aade9d470a5a4dce73bcfa7ba10778f481=abc; Path=/; Domain=kratos.example.com; Max-Age=31536000; HttpOnly; Secure; SameSite=Lax',
  'ory_kratos_continuity=xyz; Path=/; Domain=example.com; Max-Age=600; HttpOnly; Secure; SameSite=Lax',
];

let build: ReturnType<typeof buildApp>;
let kratos: http.Server;
let app: Express;
const log = memoryLogger('info');

beforeAll(async () => {
  build = buildApp();
  kratos = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': KRATOS_COOKIES });
    res.end(LOGIN_FLOW);
  });
  await new Promise<void>((resolve) => kratos.listen(0, '127.0.0.1', resolve));
  const kratosUrl = `http://127.0.0.1:${(kratos.address() as AddressInfo).port}`;
  app = await testApp(
    build.assetsDir,
    {
      NODE_ENV: 'production',
      ENABLE_TEST_ROUTES: 'false',
      SESSION_SECRET: 'a-production-like-secret-of-more-than-32-characters',
      PUBLIC_URL: 'https://accounts.example.com',
      KRATOS_PUBLIC_URL: kratosUrl,
      KRATOS_ADMIN_URL: kratosUrl,
    },
    log.logger,
  );
});
afterAll(async () => {
  kratos?.closeAllConnections();
  await new Promise((resolve) => kratos?.close(resolve));
  build?.remove();
});

const setCookies = (answer: request.Response): string[] => ([] as string[]).concat(answer.headers['set-cookie'] ?? []);

describe('production-like set-up', () => {
  test('Kratos cookies are relayed with Secure, HttpOnly and SameSite intact, Domain removed', async () => {
    const answer = await request(app).get('/sign-in?flow=ea0c2f3a-8d9f-4a57-9d6c-0b8a4e3f2a11').set('X-Forwarded-Proto', 'https');
    const relayed = setCookies(answer).filter((cookie) => /^(csrf_token_|ory_kratos_continuity)/.test(cookie));
    expect(relayed).toHaveLength(2);
    for (const cookie of relayed) {
      expect(cookie).toMatch(/;\s*Secure/i);
      expect(cookie).toMatch(/;\s*HttpOnly/i);
      expect(cookie).toMatch(/;\s*SameSite=Lax/i);
      expect(cookie).toMatch(/;\s*Path=\//i);
      expect(cookie).not.toMatch(/domain=/i);
    }
  });

  test('start-up says, in one line, that cookies need HTTPS as seen through X-Forwarded-Proto', () => {
    const lines = log.lines().filter((line) => line.includes('X-Forwarded-Proto: https') && line.includes('production'));
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(lines[0]!).msg).toMatch(/Secure.*403/);
  });

  test('the first request that arrives as plain HTTP is warned about once, not on every request', async () => {
    const plainWarnings = () => log.lines().filter((line) => line.includes('arrived as plain HTTP'));
    expect(plainWarnings()).toHaveLength(0);
    await request(app).get('/healthz');
    await request(app).get('/healthz');
    expect(plainWarnings()).toHaveLength(1);
    expect(JSON.parse(plainWarnings()[0]!)).toMatchObject({ level: 40 });
  });
});
