// Issue 10 #2: a guest who has posted nothing gets no stored session (decision 080), and the memory
// store is bounded. Every request below used to store a 7-day session.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { startBackend } from '../../../embedded/backend/index.ts';
import { startIdentity } from '../../../embedded/identity/index.ts';
import { createApp } from '../../../server/app.ts';
import { loadConfig } from '../../../server/config.ts';
import { BoundedMemoryStore } from '../../../server/session.ts';
import { Browser, hiddenValue } from '../../support/http.ts';

const ADMIN_KEY = 'anonymous-sessions-admin-key';
let appUrl = '';
let backendUrl = '';
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  appUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const identity = await startIdentity({ publicPort: 0, adminPort: 0, database: ':memory:', appUrl, argon2: { memory: 1024, iterations: 1, parallelism: 1 } });
  const backend = await startBackend({
    port: 0,
    database: ':memory:',
    identityPublicUrl: identity.publicUrl,
    identityAdminUrl: identity.adminUrl,
    adminApiKey: ADMIN_KEY,
  });
  backendUrl = backend.url;
  const config = loadConfig({
    NODE_ENV: 'test',
    PUBLIC_URL: appUrl,
    KRATOS_PUBLIC_URL: identity.publicUrl,
    KRATOS_ADMIN_URL: identity.adminUrl,
    BACKEND_URL: backend.url,
    LOG_LEVEL: 'silent',
  });
  server.on('request', await createApp(config, pino({ level: 'silent' })));
  closers.push(
    async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    () => backend.close(),
    () => identity.close(),
  );
});
afterAll(async () => {
  for (const close of closers) await close();
});
afterEach(() => vi.restoreAllMocks());

async function invite(email: string): Promise<string> {
  const response = await fetch(`${backendUrl}/api/admin/invitations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` },
    body: JSON.stringify({ email }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { token: string }).token;
}

const FORGED_ACCOUNT = encodeURIComponent(JSON.stringify({ email: 'someone@example.com', name: 'Some One' }));
const N = 60;

describe('anonymous requests store no session', () => {
  test(`${N} rounds of /logout, /sign-in with a forged last_access_account and /sign-up/invitation?token=x leave the store empty`, async () => {
    const stored = vi.spyOn(BoundedMemoryStore.prototype, 'set');
    const requests: Array<[string, Record<string, string>]> = [
      ['/logout', {}],
      ['/logout', { cookie: 'ory_kratos_session=forged-value' }],
      ['/sign-in', { cookie: `last_access_account=${FORGED_ACCOUNT}` }],
      ['/sign-up/invitation?token=x', {}],
      ['/sign-up/invitation?token=x', { accept: 'application/json' }],
    ];
    let sessionCookies = 0;
    for (let round = 0; round < N; round += 1) {
      const answers = await Promise.all(
        requests.map(([path, headers]) => fetch(`${appUrl}${path}`, { redirect: 'manual', headers: { accept: 'text/html', ...headers } })),
      );
      for (const answer of answers) {
        expect(answer.status).toBeLessThan(500);
        sessionCookies += answer.headers.getSetCookie().filter((line) => line.startsWith('accounts.sid=')).length;
        await answer.arrayBuffer();
      }
    }
    expect(stored).not.toHaveBeenCalled();
    expect(sessionCookies).toBe(0);
  });

  test('the sign-in page with a well-formed remembered account still offers to forget it, without a session', async () => {
    const stored = vi.spyOn(BoundedMemoryStore.prototype, 'set');
    const browser = new Browser(appUrl);
    browser.cookies.set('last_access_account', FORGED_ACCOUNT);
    const page = await browser.follow('/sign-in');
    expect(page.status).toBe(200);
    expect(page.text).toContain('class="last-account"');
    expect(stored).not.toHaveBeenCalled();
    expect(browser.cookies.has('accounts.sid')).toBe(false);
  });

  test('a valid invitation earns the session its form needs (and only then)', async () => {
    const stored = vi.spyOn(BoundedMemoryStore.prototype, 'set');
    const token = await invite(`invited.${Date.now()}@example.com`);
    const browser = new Browser(appUrl);
    const page = await browser.get(`/sign-up/invitation?token=${encodeURIComponent(token)}`);
    expect(page.status).toBe(200);
    expect(hiddenValue(page.text, '_csrf')).toMatch(/^[0-9a-f]{64}$/);
    expect(stored).toHaveBeenCalledTimes(1);
    expect(browser.cookies.has('accounts.sid')).toBe(true);
  });
});

describe('invitation body (issue 10 #10)', () => {
  test('a JSON terms object such as {"toString":1} is a validation error, not a 500', async () => {
    const token = await invite(`terms.${Date.now()}@example.com`);
    const browser = new Browser(appUrl);
    const page = await browser.get(`/sign-up/invitation?token=${encodeURIComponent(token)}`);
    const csrf = hiddenValue(page.text, '_csrf')!;
    for (const terms of [{ toString: 1 }, { valueOf: 1, toString: null }, ['on'], 1]) {
      const answer = await browser.postJson('/sign-up/invitation', { _csrf: csrf, token, password: 'Saffron-Glacier-Tunnel-27', terms });
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.text)).toMatchObject({ code: 'validation_error', meta: { fields: { terms: expect.any(String) } } });
    }
  });
});

describe('the memory store is bounded', () => {
  test('past its size the least recently used session goes', async () => {
    const store = new BoundedMemoryStore({ max: 3 });
    const cookie = { originalMaxAge: 60_000, expires: new Date(Date.now() + 60_000) } as never;
    const get = (sid: string) => new Promise((resolve) => store.get(sid, (_error, session) => resolve(session)));
    for (const sid of ['a', 'b', 'c']) store.set(sid, { cookie });
    await get('a'); // a is used again: b is now the oldest
    store.set('d', { cookie });
    expect(store.size).toBe(3);
    expect(await get('b')).toBeNull();
    expect(await get('a')).not.toBeNull();
    expect(await get('d')).not.toBeNull();
  });
});
