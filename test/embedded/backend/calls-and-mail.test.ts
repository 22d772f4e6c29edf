// The backend stand-in's record of calls (GET /api/admin/calls) and its invitation mail (issue #16, decision
// 150): what is kept of a call, who may read it, and an invitation that stays valid when its mail fails.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, makeKeys, mint, startTestBackend, type Keys, type TestBackend } from './helpers.ts';

type Posted = { authorization?: string; body: Record<string, string> };

let keys: Keys;
let backend: TestBackend;
let mailbox: http.Server;
const posted: Posted[] = [];
let failMail = false;

beforeAll(async () => {
  keys = await makeKeys();
  mailbox = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      posted.push({ authorization: req.headers.authorization, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, string> });
      res.writeHead(failMail ? 500 : 200).end();
    });
  });
  await new Promise<void>((resolve) => mailbox.listen(0, '127.0.0.1', resolve));
  backend = await startTestBackend({
    jwks: keys.jwks,
    adminApiKey: ADMIN_KEY,
    mailUrl: `http://127.0.0.1:${(mailbox.address() as AddressInfo).port}/mail`,
    mailApiKey: 'mail-key',
    invitationUrl: 'https://accounts.example/sign-up/invitation',
  });
});
afterAll(async () => {
  await backend?.close();
  await new Promise((resolve) => mailbox.close(resolve));
});

const admin = (path: string, init: RequestInit = {}) =>
  fetch(`${backend.url}/api/admin/${path}`, {
    ...init,
    headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
  });

describe('GET /api/admin/calls', () => {
  it('records method, path without the query, status and time of calls under auth/ and user/, nothing else', async () => {
    const token = await mint(keys, { sub: 'identity-calls', email: 'calls@example.com' });
    await fetch(`${backend.url}/api/auth/sign-up`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Cal' }),
    });
    await fetch(`${backend.url}/api/auth/get-canny-redirect-url?redirect=https%3A%2F%2Fsecret.example`, { headers: { authorization: `Bearer ${token}` } });
    await fetch(`${backend.url}/api/health`);
    const { calls } = (await (await admin('calls')).json()) as { calls: Record<string, unknown>[] };
    expect(calls.map((c) => `${String(c.method)} ${String(c.path)} ${String(c.status)}`)).toEqual([
      'POST auth/sign-up 201',
      'GET auth/get-canny-redirect-url 503',
    ]);
    expect(Object.keys(calls[0]!).sort()).toEqual(['at', 'method', 'path', 'status']);
    expect(JSON.stringify(calls)).not.toContain(token);
    const only = (await (await admin('calls?path=auth/sign-up')).json()) as { calls: unknown[] };
    expect(only.calls).toHaveLength(1);
    const users = (await (await admin('users?email=calls%40example.com')).json()) as { users: { name: string }[] };
    expect(users.users.map((u) => u.name)).toEqual(['Cal']);
  });

  it('needs the admin key', async () => {
    expect((await fetch(`${backend.url}/api/admin/calls`)).status).toBe(401);
    expect((await fetch(`${backend.url}/api/admin/users?email=a%40b.c`, { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
    expect((await admin('users?email=not-an-address')).status).toBe(400);
  });
});

describe('POST /api/admin/invitations with send', () => {
  it('mails the link to the invitation page in the courier shape, with the mail key', async () => {
    const answer = await admin('invitations', { method: 'POST', body: JSON.stringify({ email: 'Guest@Example.com', send: true, invitedBy: 'Olga' }) });
    expect(answer.status).toBe(201);
    const body = (await answer.json()) as { token: string; link: string; mailed: boolean };
    expect(body.mailed).toBe(true);
    expect(body.link).toBe(`https://accounts.example/sign-up/invitation?token=${body.token}`);
    const mail = posted.at(-1)!;
    expect(mail.authorization).toBe('Bearer mail-key');
    expect(mail.body).toMatchObject({ recipient: 'guest@example.com', template_type: 'invitation', subject: 'You are invited to create an account' });
    expect(mail.body.body).toContain(body.link);
    expect(mail.body.body).toContain('by Olga');
  });

  it('without send nothing is mailed; a failing mail service leaves the invitation valid', async () => {
    const before = posted.length;
    const quiet = (await (await admin('invitations', { method: 'POST', body: JSON.stringify({ email: 'quiet@example.com' }) })).json()) as { mailed: boolean };
    expect(quiet.mailed).toBe(false);
    expect(posted.length).toBe(before);

    failMail = true;
    const failed = (await (await admin('invitations', { method: 'POST', body: JSON.stringify({ email: 'late@example.com', send: true }) })).json()) as {
      token: string;
      mailed: boolean;
    };
    failMail = false;
    expect(failed.mailed).toBe(false);
    expect((await fetch(`${backend.url}/api/auth/invitation?token=${failed.token}`)).status).toBe(200);
    const outbox = (await (await admin('outbox')).json()) as { messages: { kind: string; email: string }[] };
    expect(outbox.messages.filter((m) => m.kind === 'invitation').map((m) => m.email)).toEqual(['late@example.com', 'guest@example.com']);
  });
});
