import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { connect } from 'node:net';
import { ADMIN_KEY, makeKeys, mint, startFakeAdmin, startTestBackend, type FakeAdmin, type Keys, type TestBackend } from './helpers.ts';

const ROUTES: [string, string][] = [
  ['POST', '/api/auth/forgot-password'],
  ['POST', '/api/auth/sign-up'],
  ['POST', '/api/auth/sign-out'],
  ['GET', '/api/auth/invitation'],
  ['POST', '/api/auth/sign-up-invitation'],
  ['GET', '/api/user/get-current-user'],
  ['GET', '/api/user/get-organization-team-owner'],
  ['POST', '/api/auth/force-log-out'],
  ['POST', '/api/user/update-identityId'],
  ['GET', '/api/auth/get-canny-redirect-url'],
  ['POST', '/api/auth/forget-last-access-account'],
  ['PATCH', '/api/user/upload-avatar'],
  ['PATCH', '/api/user/remove-avatar'],
  ['POST', '/api/user/delete-account'],
  ['PATCH', '/api/user/reactivate-account'],
  ['POST', '/api/user/confirm-link-account'],
  ['GET', '/api/user/user-location'],
  ['POST', '/api/admin/invitations'],
  ['GET', '/api/admin/outbox'],
  ['POST', '/api/admin/purge-deleted-accounts'],
];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

describe('backend stand-in: wrong methods, malformed input, unknown routes never give 5xx', () => {
  let keys: Keys;
  let admin: FakeAdmin;
  let backend: TestBackend;
  let auth: string;

  beforeAll(async () => {
    keys = await makeKeys();
    admin = await startFakeAdmin();
    backend = await startTestBackend({
      jwks: keys.jwks,
      identityAdminUrl: admin.url,
      identityAdminApiKey: ADMIN_KEY,
      cannyCompanyId: 'c',
      cannyPrivateKey: 'k',
    });
    const identity = admin.add('robust@example.com');
    auth = `Bearer ${await mint(keys, { sub: identity.id, email: 'robust@example.com' })}`;
  });
  afterAll(async () => {
    await backend.close();
    await admin.close();
  });

  const send = (method: string, path: string) => request(backend.url)[method.toLowerCase() as 'get'](path);

  it('answers 405 with Allow for every wrong method', async () => {
    for (const [method, path] of ROUTES) {
      for (const other of METHODS.filter((m) => m !== method && !(method === 'GET' && m === 'HEAD'))) {
        const res = await send(other, path).set('Authorization', auth);
        expect(res.status, `${other} ${path}`).toBe(405);
        expect(res.headers.allow, `${other} ${path}`).toContain(method);
        expect(res.body.code).toBe('method_not_allowed');
      }
    }
  });

  it('answers OPTIONS with 204 and Allow', async () => {
    const res = await request(backend.url).options('/api/auth/sign-up').expect(204);
    expect(res.headers.allow).toBe('POST, OPTIONS');
  });

  it('answers 404 JSON for unknown routes', async () => {
    for (const path of ['/api/nope', '/api', '/', '/api/user', '/api/user/get-current-user/extra', '/avatars/']) {
      const res = await request(backend.url).get(path);
      expect(res.status, path).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
  });

  it('answers 4xx for malformed JSON, wrong JSON shapes and oversized bodies on every JSON route', async () => {
    const jsonRoutes = ROUTES.filter(([m, p]) => m !== 'GET' && !p.endsWith('upload-avatar'));
    const bodies: [string, string][] = [
      ['application/json', '{bad json'],
      ['application/json', '[1,2,3]'],
      ['application/json', '"a string"'],
      ['application/json', 'null'],
      ['application/json', JSON.stringify({ email: { $gt: '' }, token: ['a'], password: 12345678, provider: null, identityId: 42, name: 'x'.repeat(10_000) })],
      ['application/json', JSON.stringify({ big: 'x'.repeat(100_000) })],
      ['text/plain', 'hello'],
      ['application/x-www-form-urlencoded', 'email=a%40b.co'],
    ];
    for (const [method, path] of jsonRoutes) {
      for (const [type, body] of bodies) {
        for (const withAuth of [true, false]) {
          const r = send(method, path).set('Content-Type', type);
          if (withAuth) r.set('Authorization', auth);
          const res = await r.send(body);
          expect(res.status, `${method} ${path} ${type} ${body.slice(0, 30)} auth=${withAuth}`).toBeGreaterThanOrEqual(200);
          expect(res.status, `${method} ${path} ${type} ${body.slice(0, 30)} auth=${withAuth}`).toBeLessThan(500);
          expect(typeof res.body).toBe('object');
        }
      }
    }
  });

  it('malformed JSON gets invalid_json, oversized JSON gets 413', async () => {
    const bad = await request(backend.url).post('/api/auth/forgot-password').set('Content-Type', 'application/json').send('{bad');
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('invalid_json');
    const big = await request(backend.url)
      .post('/api/auth/forgot-password')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ email: 'x'.repeat(100_000) }));
    expect(big.status).toBe(413);
    expect(big.body.code).toBe('payload_too_large');
  });

  it('bad tokens on every authenticated route are 401, never 5xx', async () => {
    const expired = `Bearer ${await mint(keys, { now: Date.now() - 7_200_000, expIn: 60 })}`;
    for (const [method, path] of ROUTES) {
      for (const header of ['Bearer x.y.z', 'Bearer', 'Token abc', expired, `Bearer ${'a'.repeat(5000)}.b.c`]) {
        const res = await send(method, path).set('Authorization', header);
        expect(res.status, `${method} ${path} ${header.slice(0, 20)}`).toBeLessThan(500);
        expect(res.status, `${method} ${path} ${header.slice(0, 20)}`).toBeGreaterThanOrEqual(200);
      }
    }
  });

  it('odd query strings do not crash', async () => {
    const paths = [
      '/api/auth/get-canny-redirect-url?redirect=%E0%A4%A',
      '/api/auth/get-canny-redirect-url?redirect[]=a&redirect[]=b',
      '/api/auth/get-canny-redirect-url?redirect[a]=b',
      '/api/auth/invitation?token[]=a',
      '/api/auth/invitation?token=%00',
      '/api/user/get-current-user?%',
    ];
    for (const p of paths) {
      const res = await request(backend.url).get(p).set('Authorization', auth);
      expect(res.status, p).toBeLessThan(500);
    }
  });

  it('survives a garbage HTTP request line', async () => {
    const url = new URL(backend.url);
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(Number(url.port), url.hostname, () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
      let data = '';
      socket.on('data', (c) => (data += c.toString()));
      socket.on('close', () => resolve(data));
      socket.on('error', () => resolve(data));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    await request(backend.url).get('/api/health').expect(200, { status: 'ok' });
  });
});
