import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Socket } from 'socket.io';
import { liveSocket } from '../../../client/islands/socket.ts';
import { catalogueText } from '../../support/browser.ts';
import { useIdentities, type Browser } from '../../support/fixtures.ts';
import { hiddenValue } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';
import { openRaw, socketUrl, tokenOf, waitFor } from './socket-support.ts';

// The live-session channel against the real app, identity service and backend (spec §4): the
// handshake with the tokenizer's JWT, a refused token, emits queued before authentication, and
// force-reload to a user's room from the internal endpoint and from a sign-out.

const SECRET = 'force-reload-secret-for-tests-0123456789';
let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ env: { FORCE_RELOAD_SECRET: SECRET } });
});
afterAll(() => stack?.close());
const identities = useIdentities(() => stack.identity.adminUrl);

/** A signed-in browser and the island's client on it, the events it saw, and the server's view of its socket. */
async function connected(browser: Browser) {
  const seen: string[] = [];
  const client = liveSocket({ url: socketUrl(stack.appUrl), token: () => tokenOf(stack.appUrl, browser), onSignedOut: () => seen.push('signed-out') });
  client.on('authenticated', () => seen.push('authenticated'));
  client.on('force-reload', () => seen.push('force-reload'));
  return { client, seen };
}

function postForceReload(body: object, secret = SECRET) {
  return fetch(`${stack.appUrl}/internal/force-reload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('live session socket', () => {
  test('handshake: init with the token → authenticated → the user room; force-reload to it arrives', async () => {
    const user = await identities.signedIn(stack.appUrl);
    const { client, seen } = await connected(user.browser);
    try {
      await waitFor(() => seen.includes('authenticated'));
      await waitFor(async () => (await stack.liveSessions.io.in(`user:${user.id}`).fetchSockets()).length === 1);
      expect((await postForceReload({ identityId: user.id })).status).toBe(202);
      await waitFor(() => seen.includes('force-reload'));
    } finally {
      client.close();
    }
  });

  test('a bad or missing token is refused and the connection closed; no room is joined', async () => {
    for (const authorization of ['not-a-jwt', 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln', undefined]) {
      const raw = await openRaw(stack.appUrl);
      raw.send('40');
      await raw.next((frame) => frame.startsWith('40'));
      raw.send(`42${JSON.stringify(['init', authorization === undefined ? {} : { authorization }])}`);
      expect(await raw.next((frame) => frame.startsWith('42'))).toBe('42["unauthorized",{"code":"invalid_token"}]');
      await raw.closed;
    }
    expect((await stack.liveSessions.io.fetchSockets()).length).toBe(0);
  });

  test('an instance takes at most MAX_SOCKETS sockets: the next one is refused until one leaves', async () => {
    const small = await startStack({ env: { FORCE_RELOAD_SECRET: SECRET, MAX_SOCKETS: '1' } });
    try {
      const first = await openRaw(small.appUrl);
      await expect(openRaw(small.appUrl)).rejects.toThrow(/did not open/);
      first.close();
      await first.closed;
      await waitFor(() => small.liveSessions.io.engine.clientsCount === 0);
      const next = await openRaw(small.appUrl);
      next.close();
    } finally {
      await small.close();
    }
  });

  test('join before authentication is ignored; other events are never acted on', async () => {
    const raw = await openRaw(stack.appUrl);
    raw.send('40');
    await raw.next((frame) => frame.startsWith('40'));
    raw.send('42["join"]');
    raw.send('42["force-reload"]');
    await waitFor(async () => (await stack.liveSessions.io.fetchSockets()).length === 1);
    const [socket] = await stack.liveSessions.io.fetchSockets();
    expect([...socket!.rooms].filter((room) => room.startsWith('user:'))).toEqual([]);
    raw.close();
  });

  test('emits made before authentication are replayed once, in order, after it (and not again after a reconnect)', async () => {
    const user = await identities.signedIn(stack.appUrl);
    const received: unknown[] = [];
    const record = (socket: Socket) => socket.onAny((event: string, data: unknown) => event === 'hello' && received.push(data));
    stack.liveSessions.io.on('connection', record);
    const { client, seen } = await connected(user.browser);
    try {
      client.emit('hello', 1);
      client.emit('hello', 2);
      client.emit('hello', 3);
      await waitFor(() => received.length === 3);
      expect(received).toEqual([1, 2, 3]);
      // The server drops the connection: the client reconnects, authenticates again, replays nothing twice.
      stack.liveSessions.io.in(`user:${user.id}`).disconnectSockets(true);
      await waitFor(() => seen.filter((event) => event === 'authenticated').length === 2, 8_000);
      client.emit('hello', 4);
      await waitFor(() => received.length === 4);
      expect(received).toEqual([1, 2, 3, 4]);
    } finally {
      stack.liveSessions.io.off('connection', record);
      client.close();
    }
  });

  test("the backend's auth/force-log-out revokes the sessions and sends force-reload to the user's sockets", async () => {
    const user = await identities.signedIn(stack.appUrl);
    const { client, seen } = await connected(user.browser);
    try {
      await waitFor(async () => (await stack.liveSessions.io.in(`user:${user.id}`).fetchSockets()).length === 1);
      const token = await tokenOf(stack.appUrl, user.browser);
      const answer = await fetch(`${stack.backend.url}/api/auth/force-log-out`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
      expect(answer.status).toBe(200);
      await waitFor(() => seen.includes('force-reload'));
      expect(await tokenOf(stack.appUrl, user.browser)).toBeNull();
    } finally {
      client.close();
    }
  });

  test('the internal endpoint needs the secret and a target', async () => {
    expect((await postForceReload({ identityId: 'x' }, 'wrong-secret-wrong-secret-wrong-secret')).status).toBe(401);
    expect((await postForceReload({})).status).toBe(400);
    const refused = await fetch(`${stack.appUrl}/internal/force-reload`, { method: 'POST' });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ code: 'unauthorized', message: 'Please sign in to continue.', meta: {} });
  });

  test('the token endpoint answers 401 without a session, shaped as every error answer and translated', async () => {
    const answer = await fetch(`${stack.appUrl}/live-session/token`, { headers: { accept: 'application/json', 'accept-language': 'fr' } });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(await answer.json()).toEqual({ code: 'session_inactive', message: catalogueText('fr', 'errorMessage.unauthorized'), meta: {} });
  });

  test('signing out sends force-reload to the sockets of that browser session; the next token fetch finds it gone', async () => {
    const user = await identities.signedIn(stack.appUrl);
    const other = await identities.signedIn(stack.appUrl);
    const mine = await connected(user.browser);
    const theirs = await connected(other.browser);
    try {
      await waitFor(() => mine.seen.includes('authenticated') && theirs.seen.includes('authenticated'));
      await waitFor(async () => (await stack.liveSessions.io.in(`user:${user.id}`).fetchSockets()).length === 1);
      const page = await user.browser.follow('/logout');
      const out = await user.browser.post('/logout', { _csrf: hiddenValue(page.text, '_csrf') ?? '' });
      expect(out.status).toBe(303);
      await waitFor(() => mine.seen.includes('force-reload'));
      expect(theirs.seen).not.toContain('force-reload');
      expect(await tokenOf(stack.appUrl, user.browser)).toBeNull();
    } finally {
      mine.client.close();
      theirs.client.close();
    }
  });
});
