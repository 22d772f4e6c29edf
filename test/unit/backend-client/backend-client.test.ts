import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { UnsecuredJWT, decodeJwt } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../core/errors.ts';
import { TOKEN_FALLBACK_LIFETIME_MS, TOKEN_LIFETIME_MS, createBackendClient, expiryOf, isSignedOut } from '../../../server/backend-client.ts';

// One tiny server plays both sides: Kratos's whoami tokenizer and the user backend under /api.
type Seen = { method: string; path: string; authorization: string | undefined; body: string };
type ApiHandler = (req: http.IncomingMessage, res: http.ServerResponse, seen: Seen) => void;

const fake = {
  clock: 1_700_000_000_000,
  /** Token lifetime the tokenizer writes into `exp`, in seconds; null: no exp claim at all. */
  tokenTtlSeconds: 1680 as number | null,
  whoamiCalls: 0,
  whoamiStatus: 200,
  minted: 0,
  seen: [] as Seen[],
  api: (_req: http.IncomingMessage, res: http.ServerResponse) => json(res, 200, { ok: true }),
};
let api: ApiHandler = (req, res) => fake.api(req, res);
let server: http.Server;
let url = '';

function json(res: http.ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

function mintToken(sessionId: string): string {
  fake.minted += 1;
  const jwt = new UnsecuredJWT({ sid: sessionId, n: fake.minted }).setSubject(`identity-${sessionId}`).setIssuedAt(Math.floor(fake.clock / 1000));
  if (fake.tokenTtlSeconds !== null) jwt.setExpirationTime(Math.floor(fake.clock / 1000) + fake.tokenTtlSeconds);
  return jwt.encode();
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const target = new URL(req.url ?? '/', 'http://x');
    if (target.pathname === '/sessions/whoami') {
      fake.whoamiCalls += 1;
      const sid = /(?:^|;\s*)ory_kratos_session=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
      if (!sid || fake.whoamiStatus === 401) return json(res, 401, { error: { id: 'session_inactive', code: 401, message: 'no session' } });
      if (fake.whoamiStatus !== 200) return json(res, fake.whoamiStatus, { error: { code: fake.whoamiStatus, message: 'broken' } });
      const body: Record<string, unknown> = { id: sid, active: true, identity: { id: `identity-${sid}` } };
      if (target.searchParams.get('tokenize_as') === 'authorization') body.tokenized = mintToken(sid);
      return json(res, 200, body);
    }
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const seen = { method: req.method ?? '', path: target.pathname + target.search, authorization: req.headers.authorization, body };
      fake.seen.push(seen);
      api(req, res, seen);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  fake.clock = 1_700_000_000_000;
  fake.tokenTtlSeconds = 1680;
  fake.whoamiCalls = 0;
  fake.whoamiStatus = 200;
  fake.seen = [];
  api = (_req, res) => json(res, 200, { _id: 'u1', avatarRemoteId: null });
});

function client(overrides: Partial<Parameters<typeof createBackendClient>[0]> = {}) {
  return createBackendClient({ backendUrl: url, kratosPublicUrl: url, now: () => fake.clock, timeoutMs: 2000, ...overrides });
}

const alice = () => ({ cookie: 'ory_kratos_session=alice; other=1', sessionId: 'alice' });
const bearerOf = (seen: Seen) => seen.authorization?.replace(/^Bearer /, '') ?? '';

describe('token cache', () => {
  it('asks the tokenizer once per session and reuses the token until it expires', async () => {
    const backend = client();
    await backend.getCurrentUser(alice());
    await backend.getCurrentUser(alice());
    await backend.getCurrentUser({ cookie: 'ory_kratos_session=alice', sessionId: 'alice' });
    expect(fake.whoamiCalls).toBe(1);
    expect(fake.seen).toHaveLength(3);
    expect(new Set(fake.seen.map(bearerOf)).size).toBe(1);
    expect(decodeJwt(bearerOf(fake.seen[0]!)).sid).toBe('alice');
    expect(backend.storedTokens).toBe(1);
  });

  it('keeps one token per session, never lending one session’s token to another', async () => {
    const backend = client();
    await backend.getCurrentUser(alice());
    await backend.getCurrentUser({ cookie: 'ory_kratos_session=bob', sessionId: 'bob' });
    expect(fake.whoamiCalls).toBe(2);
    expect(decodeJwt(bearerOf(fake.seen[0]!)).sid).toBe('alice');
    expect(decodeJwt(bearerOf(fake.seen[1]!)).sid).toBe('bob');
  });

  it('learns the session id from the tokenizer when the caller did not know it', async () => {
    const backend = client();
    const caller: { cookie: string; sessionId?: string } = { cookie: 'ory_kratos_session=carol' };
    await backend.getCurrentUser(caller);
    expect(caller.sessionId).toBe('carol');
    await backend.getCurrentUser(caller);
    expect(fake.whoamiCalls).toBe(1);
  });

  it('shares one tokenizer call between concurrent requests of a session', async () => {
    const backend = client();
    await Promise.all([backend.getCurrentUser(alice()), backend.getCurrentUser(alice()), backend.getCurrentUser(alice())]);
    expect(fake.whoamiCalls).toBe(1);
  });

  it('is bounded: the least recently used session is dropped first', async () => {
    const backend = client({ cacheSize: 2 });
    const as = (sid: string) => ({ cookie: `ory_kratos_session=${sid}`, sessionId: sid });
    await backend.getCurrentUser(as('s1'));
    await backend.getCurrentUser(as('s2'));
    await backend.getCurrentUser(as('s1')); // s1 is now the most recently used
    await backend.getCurrentUser(as('s3')); // evicts s2
    expect(backend.storedTokens).toBe(2);
    expect(fake.whoamiCalls).toBe(3);
    await backend.getCurrentUser(as('s1'));
    expect(fake.whoamiCalls).toBe(3);
    await backend.getCurrentUser(as('s2'));
    expect(fake.whoamiCalls).toBe(4);
  });

  it('drops the session’s token after sign-out, force log-out and account deletion', async () => {
    api = (_req, res) => json(res, 200, { ok: true });
    const backend = client();
    for (const end of [
      (c: ReturnType<typeof alice>) => backend.signOut(c),
      (c: ReturnType<typeof alice>) => backend.forceLogOut(c),
      (c: ReturnType<typeof alice>) => backend.deleteAccount(c),
    ]) {
      await backend.getCurrentUser(alice());
      expect(backend.storedTokens).toBe(1);
      await end(alice());
      expect(backend.storedTokens).toBe(0);
    }
  });

  it('forgets a session on request (sign-out)', async () => {
    const backend = client();
    await backend.getCurrentUser(alice());
    backend.forgetSession('alice');
    expect(backend.storedTokens).toBe(0);
    await backend.getCurrentUser(alice());
    expect(fake.whoamiCalls).toBe(2);
  });
});

describe('regeneration', () => {
  it('regenerates after the 1,680,000 ms lifetime', async () => {
    fake.tokenTtlSeconds = 3600; // the token itself would live longer: the spec's lifetime caps it
    const backend = client();
    await backend.getCurrentUser(alice());
    fake.clock += TOKEN_LIFETIME_MS - 60_000;
    await backend.getCurrentUser(alice());
    expect(fake.whoamiCalls).toBe(1);
    fake.clock += 60_000;
    await backend.getCurrentUser(alice());
    expect(fake.whoamiCalls).toBe(2);
    expect(bearerOf(fake.seen[2]!)).not.toBe(bearerOf(fake.seen[0]!));
  });

  it('regenerates when the token’s own exp comes first', async () => {
    fake.tokenTtlSeconds = 60;
    const backend = client();
    await backend.getCurrentUser(alice());
    fake.clock += 30_000;
    await backend.getCurrentUser(alice());
    expect(fake.whoamiCalls).toBe(1);
    fake.clock += 30_000;
    await backend.getCurrentUser(alice());
    expect(fake.whoamiCalls).toBe(2);
  });

  it('falls back to 120,000 ms when the token has no exp', async () => {
    fake.tokenTtlSeconds = null;
    expect(expiryOf(mintToken('x'), 5)).toBe(5 + TOKEN_FALLBACK_LIFETIME_MS);
    const backend = client();
    await backend.getCurrentUser(alice());
    fake.clock += 100_000;
    await backend.getCurrentUser(alice());
    expect(fake.whoamiCalls).toBe(1);
    fake.clock += 20_000;
    await backend.getCurrentUser(alice());
    expect(fake.whoamiCalls).toBe(2);
  });

  it('treats a token it cannot read as having no exp', () => {
    expect(expiryOf('not-a-jwt', 1000)).toBe(1000 + TOKEN_FALLBACK_LIFETIME_MS);
  });
});

describe('forced refresh', () => {
  it('avatar removal, avatar upload and the Canny URL each mint a new token', async () => {
    api = (_req, res, seen) => json(res, 200, seen.path.includes('canny') ? { redirectUrl: 'https://canny.io/x' } : { avatarRemoteId: null });
    const backend = client();
    await backend.getCurrentUser(alice());
    await backend.removeAvatar(alice());
    const body = new Blob(['--b\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nx\r\n--b--\r\n']).stream();
    await backend.uploadAvatar(alice(), { body, contentType: 'multipart/form-data; boundary=b' });
    await backend.getCannyRedirectUrl(alice(), 'https://feedback.canny.io/board');
    expect(fake.whoamiCalls).toBe(4);
    expect(new Set(fake.seen.map(bearerOf)).size).toBe(4);
    // The forced token replaces the stored one: the next ordinary call reuses it.
    await backend.getCurrentUser(alice());
    expect(fake.whoamiCalls).toBe(4);
    expect(bearerOf(fake.seen[4]!)).toBe(bearerOf(fake.seen[3]!));
    expect(fake.seen[3]!.path).toBe('/api/auth/get-canny-redirect-url?redirect=https%3A%2F%2Ffeedback.canny.io%2Fboard');
    expect(fake.seen[2]!.body).toContain('filename="a.png"');
  });
});

describe('token_expired retries', () => {
  it('retries with a fresh token and succeeds', async () => {
    let expiredAnswers = 1;
    api = (_req, res) => {
      if (expiredAnswers-- > 0) return json(res, 401, { code: 'token_expired', message: 'The authorization token has expired' });
      json(res, 200, { _id: 'u1' });
    };
    const backend = client();
    const user = await backend.getCurrentUser(alice());
    expect(user).toEqual({ _id: 'u1' });
    expect(fake.seen).toHaveLength(2);
    expect(fake.whoamiCalls).toBe(2);
    expect(bearerOf(fake.seen[1]!)).not.toBe(bearerOf(fake.seen[0]!));
  });

  it('retries at most twice, then fails with token_expired', async () => {
    api = (_req, res) => json(res, 401, { code: 'token_expired', message: 'The authorization token has expired' });
    const backend = client();
    const error = await backend.getCurrentUser(alice()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('token_expired');
    expect((error as AppError).status).toBe(401);
    expect(fake.seen).toHaveLength(3);
    expect(fake.whoamiCalls).toBe(3);
    expect(new Set(fake.seen.map(bearerOf)).size).toBe(3);
    // Nothing stale stays behind.
    expect(backend.storedTokens).toBe(0);
  });

  it('does not replay a streamed body', async () => {
    api = (_req, res) => json(res, 401, { code: 'token_expired', message: 'expired' });
    const backend = client();
    const body = new Blob(['x']).stream();
    const error = await backend.uploadAvatar(alice(), { body, contentType: 'multipart/form-data; boundary=b' }).catch((e: unknown) => e);
    expect((error as AppError).code).toBe('token_expired');
    expect(fake.seen).toHaveLength(1);
  });
});

describe('other errors', () => {
  it.each([
    [401, { code: 'unauthorized', message: 'The request could not be authorized' }],
    [403, { code: 'account_pending_deletion', message: 'reactivate first', meta: { deletionScheduledAt: '2030-01-01T00:00:00.000Z' } }],
    [413, { code: 'limit_file_size', message: 'too big', meta: { maxBytes: 5_242_880 } }],
    [500, { code: 'internal_error', message: 'Something went wrong' }],
  ])('fail at once with the spec error shape (%i)', async (status, body) => {
    api = (_req, res) => json(res, status, body);
    const backend = client();
    const error = (await backend.getCurrentUser(alice()).catch((e: unknown) => e)) as AppError;
    expect(error).toBeInstanceOf(AppError);
    expect(error.status).toBe(status);
    expect(error.toJSON()).toEqual({ meta: {}, ...body });
    // A refusal by the backend is never mistaken for a signed-out browser.
    expect(isSignedOut(error)).toBe(false);
    expect(fake.seen).toHaveLength(1);
    expect(fake.whoamiCalls).toBe(1);
  });

  it('maps an answer without the error shape to a generic code', async () => {
    api = (_req, res) => {
      res.writeHead(502, { 'Content-Type': 'text/html' });
      res.end('<h1>Bad gateway</h1>');
    };
    const error = (await client()
      .getCurrentUser(alice())
      .catch((e: unknown) => e)) as AppError;
    expect(error.toJSON()).toEqual({ code: 'unknown_error', message: 'The user service answered 502', meta: {} });
    expect(error.status).toBe(502);
  });

  it('fails as signed out without calling the backend when there is no session', async () => {
    const error = (await client()
      .getCurrentUser({ cookie: '' })
      .catch((e: unknown) => e)) as AppError;
    expect(error.status).toBe(401);
    expect(error.code).toBe('session_inactive');
    expect(isSignedOut(error)).toBe(true);
    expect(fake.seen).toHaveLength(0);
  });

  it('reports an identity service failure as 503, not as signed out', async () => {
    fake.whoamiStatus = 500;
    const error = (await client()
      .getCurrentUser(alice())
      .catch((e: unknown) => e)) as AppError;
    expect(error.status).toBe(503);
    expect(error.code).toBe('identity_unavailable');
  });

  it('forgets the last-used account by e-mail without a token (signed-out sign-in page)', async () => {
    api = (_req, res) => json(res, 200, { ok: true });
    await client().forgetLastAccessAccountByEmail('ada@example.com');
    expect(fake.seen[0]).toMatchObject({ method: 'POST', path: '/api/auth/forget-last-access-account', authorization: undefined });
    expect(JSON.parse(fake.seen[0]!.body)).toEqual({ email: 'ada@example.com' });
    expect(fake.whoamiCalls).toBe(0);
  });

  it('sends no token on anonymous calls', async () => {
    api = (_req, res) => json(res, 200, { email: 'invitee@example.com', expiresAt: null });
    const invitation = await client().getInvitation('tok en/1');
    expect(invitation.email).toBe('invitee@example.com');
    expect(fake.seen[0]!.authorization).toBeUndefined();
    expect(fake.seen[0]!.path).toBe('/api/auth/invitation?token=tok+en%2F1');
    expect(fake.whoamiCalls).toBe(0);
  });
});

describe('timeouts', () => {
  it('gives up on a silent backend after the timeout', async () => {
    api = () => {}; // never answers
    const backend = client({ timeoutMs: 200 });
    const started = Date.now();
    const error = (await backend.getCurrentUser(alice()).catch((e: unknown) => e)) as AppError;
    expect(error).toBeInstanceOf(AppError);
    expect(error.status).toBe(504);
    expect(error.code).toBe('backend_timeout');
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('counts the body in the deadline: a backend trickling its answer gets the same 504', async () => {
    let timer: NodeJS.Timeout | undefined;
    api = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"_id":');
      timer = setInterval(() => res.write(' '), 50); // one byte at a time, never the end
      res.on('close', () => clearInterval(timer));
    };
    const backend = client({ timeoutMs: 300 });
    const error = (await backend.getCurrentUser(alice()).catch((e: unknown) => e)) as AppError;
    clearInterval(timer);
    expect(error).toBeInstanceOf(AppError);
    expect(error.status).toBe(504);
    expect(error.code).toBe('backend_timeout');
  });

  it('reports an unreachable backend as 503', async () => {
    const backend = createBackendClient({ backendUrl: 'http://127.0.0.1:9', kratosPublicUrl: url, timeoutMs: 2000 });
    const error = (await backend.getCurrentUser(alice()).catch((e: unknown) => e)) as AppError;
    expect(error.status).toBe(503);
    expect(error.code).toBe('backend_unavailable');
  });
});
