import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { SignJWT, base64url } from 'jose';
import { makeKeys, mint, startTestBackend, ISSUER, type Keys, type TestBackend } from './helpers.ts';

describe('backend stand-in: bearer token verification', () => {
  let keys: Keys;
  let other: Keys;
  let backend: TestBackend;

  beforeAll(async () => {
    keys = await makeKeys();
    other = await makeKeys('other-key');
    backend = await startTestBackend({ jwks: keys.jwks });
  });
  afterAll(async () => {
    await backend.close();
  });

  const me = (token?: string) => {
    const r = request(backend.url).get('/api/user/get-current-user');
    return token === undefined ? r : r.set('Authorization', token);
  };

  it('accepts a valid token and creates the user on the first call, keyed by sub', async () => {
    const sub = randomUUID();
    const token = await mint(keys, { sub, email: 'Ada@Example.com' });
    const first = await me(`Bearer ${token}`).expect(200);
    expect(first.body).toMatchObject({ identityId: sub, email: 'ada@example.com', avatarRemoteId: null, state: 'active' });
    expect(first.body._id).toMatch(/^[a-f0-9]{24}$/);
    const again = await me(`Bearer ${await mint(keys, { sub, email: 'ada@example.com' })}`).expect(200);
    expect(again.body._id).toBe(first.body._id);
  });

  it('keeps the stored email in step with the token', async () => {
    const sub = randomUUID();
    await me(`Bearer ${await mint(keys, { sub, email: 'old@example.com' })}`).expect(200);
    const res = await me(`Bearer ${await mint(keys, { sub, email: 'new@example.com' })}`).expect(200);
    expect(res.body.email).toBe('new@example.com');
  });

  it('answers token_expired for an expired token', async () => {
    const token = await mint(keys, { now: Date.now() - 3_600_000, expIn: 60 });
    const res = await me(`Bearer ${token}`).expect(401);
    expect(res.body).toEqual({ code: 'token_expired', message: expect.any(String) });
  });

  it.each([
    ['no header', undefined],
    ['empty bearer', 'Bearer '],
    ['basic auth', 'Basic dXNlcjpwYXNz'],
    ['garbage', 'Bearer not-a-jwt'],
    ['garbage with dots', 'Bearer a.b.c'],
  ])('answers 401 unauthorized for %s', async (_name, header) => {
    const res = await me(header).expect(401);
    expect(res.body.code).toBe('unauthorized');
  });

  it('answers 401 unauthorized for a token signed by another key', async () => {
    const token = await mint(keys, { key: other.privateKey });
    expect((await me(`Bearer ${token}`).expect(401)).body.code).toBe('unauthorized');
  });

  it('answers 401 unauthorized for an unknown kid', async () => {
    const token = await mint(keys, { kid: 'nope' });
    expect((await me(`Bearer ${token}`).expect(401)).body.code).toBe('unauthorized');
  });

  it('answers 401 unauthorized for a wrong issuer or audience', async () => {
    expect((await me(`Bearer ${await mint(keys, { iss: 'http://evil.test' })}`).expect(401)).body.code).toBe('unauthorized');
    expect((await me(`Bearer ${await mint(keys, { aud: 'accounts' })}`).expect(401)).body.code).toBe('unauthorized');
  });

  it('answers 401 for a token not yet valid', async () => {
    const token = await mint(keys, { now: Date.now() + 3_600_000 });
    expect((await me(`Bearer ${token}`).expect(401)).body.code).toBe('unauthorized');
  });

  it('refuses alg none and HS256 tokens', async () => {
    const claims = base64url.encode(JSON.stringify({ sub: 'x', iss: ISSUER, aud: 'accounts-backend', exp: Math.floor(Date.now() / 1000) + 60 }));
    const none = `${base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${claims}.`;
    expect((await me(`Bearer ${none}`).expect(401)).body.code).toBe('unauthorized');
    const hs = await new SignJWT({ sub: 'x' })
      .setProtectedHeader({ alg: 'HS256', kid: keys.kid })
      .setIssuer(ISSUER)
      .setAudience('accounts-backend')
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(JSON.stringify(keys.jwks)));
    expect((await me(`Bearer ${hs}`).expect(401)).body.code).toBe('unauthorized');
  });

  it('answers 401 for a token without sub', async () => {
    const token = await new SignJWT({ email: 'x@example.com' })
      .setProtectedHeader({ alg: 'ES256', kid: keys.kid })
      .setIssuer(ISSUER)
      .setAudience('accounts-backend')
      .setExpirationTime('1h')
      .sign(keys.privateKey);
    expect((await me(`Bearer ${token}`).expect(401)).body.code).toBe('unauthorized');
  });
});

describe('backend stand-in: remote JWKS from the identity public URL', () => {
  let keys: Keys;
  let jwksServer: Server;
  let identityUrl: string;
  let backend: TestBackend;
  let jwksHits = 0;

  beforeAll(async () => {
    keys = await makeKeys('remote-key');
    jwksServer = createServer((req, res) => {
      if (req.url === '/.well-known/jwks.json') {
        jwksHits++;
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(keys.jwks));
        return;
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => jwksServer.listen(0, '127.0.0.1', () => r()));
    identityUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}`;
    backend = await startTestBackend({ identityPublicUrl: identityUrl, issuer: identityUrl });
  });
  afterAll(async () => {
    await backend.close();
    await new Promise<void>((r) => {
      jwksServer.close(() => r());
      jwksServer.closeAllConnections();
    });
  });

  it('verifies tokens against the fetched key set', async () => {
    const token = await mint(keys, { iss: identityUrl, sub: 'remote-user' });
    const res = await request(backend.url).get('/api/user/get-current-user').set('Authorization', `Bearer ${token}`).expect(200);
    expect(res.body.identityId).toBe('remote-user');
    expect(jwksHits).toBeGreaterThan(0);
    const expired = await mint(keys, { iss: identityUrl, now: Date.now() - 7_200_000, expIn: 60 });
    const res2 = await request(backend.url).get('/api/user/get-current-user').set('Authorization', `Bearer ${expired}`).expect(401);
    expect(res2.body.code).toBe('token_expired');
  });

  it('trusts by default the identity public URL as issuer, with the trailing slash Kratos writes or without', async () => {
    const byDefault = await startTestBackend({ identityPublicUrl: identityUrl, issuer: undefined });
    try {
      const get = async (iss: string) =>
        (
          await request(byDefault.url)
            .get('/api/user/get-current-user')
            .set('Authorization', `Bearer ${await mint(keys, { iss, sub: 'remote-user' })}`)
        ).status;
      expect(await get(`${identityUrl}/`)).toBe(200);
      expect(await get(identityUrl)).toBe(200);
      expect(await get(`${identityUrl}/other`)).toBe(401);
      expect(await get(ISSUER)).toBe(401);
    } finally {
      await byDefault.close();
    }
  });

  it('refuses a token whose issuer is the default rather than the configured one', async () => {
    const token = await mint(keys, { iss: ISSUER });
    const res = await request(backend.url).get('/api/user/get-current-user').set('Authorization', `Bearer ${token}`).expect(401);
    expect(res.body.code).toBe('unauthorized');
  });
});

describe('backend stand-in: unreachable identity service', () => {
  it('answers 503 identity_unavailable (not a crash) when the key set cannot be fetched', async () => {
    const keys = await makeKeys();
    const backend = await startTestBackend({ identityPublicUrl: 'http://127.0.0.1:9', issuer: ISSUER });
    try {
      const res = await request(backend.url)
        .get('/api/user/get-current-user')
        .set('Authorization', `Bearer ${await mint(keys)}`);
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('identity_unavailable');
    } finally {
      await backend.close();
    }
  });
});
