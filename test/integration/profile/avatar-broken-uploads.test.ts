// Regression: a multipart avatar upload that ends before its closing boundary, or that the client
// abandons half-way, must be answered (4xx) or dropped, and must never throw outside the request
// (server/main.ts exits after 20 stray errors a minute).
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { makePng } from './images.ts';
import { startProfileStack, useProfileUsers, type ProfileStack, type SignedIn } from './profile-stack.ts';

let env: ProfileStack;
let u: SignedIn;
const stray: unknown[] = [];
const onStray = (error: unknown) => void stray.push(error);
/** Requests the app has received and not yet answered or seen abandoned. */
let appInFlight = 0;

beforeAll(async () => {
  env = await startProfileStack();
  env.stack.server.on('request', (_req, res) => {
    appInFlight += 1;
    res.on('close', () => void (appInFlight -= 1));
  });
  process.on('uncaughtException', onStray);
  process.on('unhandledRejection', onStray);
});
afterAll(async () => {
  process.off('uncaughtException', onStray);
  process.off('unhandledRejection', onStray);
  await env?.close();
});
const users = useProfileUsers(() => env);
beforeAll(async () => {
  u = await users.signedIn({ prefix: 'broken-upload' });
});

const BOUNDARY = 'brokenupload0123456789';
const part = (name: string, value: string) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const fileHead = (filename = 'a.png') =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: image/png\r\n\r\n`;

/** Sends a raw request over a socket; `declaredLength` defaults to the body's, `abortAfterMs` cuts the connection instead of reading the answer. */
function rawPost(
  body: Buffer,
  options: { json?: boolean; declaredLength?: number; abortAfterMs?: number } = {},
): Promise<{ status: number; text: string } | 'aborted'> {
  const { port, hostname } = new URL(env.appUrl);
  const flow = new URL(u.settingsAction, env.appUrl).search;
  const head =
    `POST /profile-settings/avatar${flow} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nCookie: ${u.browser.cookieHeader()}\r\n` +
    `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${options.declaredLength ?? body.length}\r\n` +
    `Accept: ${options.json ? 'application/json' : 'text/html'}\r\nConnection: close\r\n\r\n`;
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (error) =>
      (error as NodeJS.ErrnoException).code === 'ECONNRESET' || (error as NodeJS.ErrnoException).code === 'EPIPE' ? undefined : reject(error),
    );
    socket.on('close', () => {
      if (options.abortAfterMs !== undefined) return resolve('aborted');
      const text = Buffer.concat(chunks).toString('utf8');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text: text.slice(text.indexOf('\r\n\r\n') + 4) });
    });
    socket.write(head);
    socket.write(body);
    if (options.abortAfterMs !== undefined) setTimeout(() => socket.destroy(), options.abortAfterMs);
  });
}

const png = makePng({ width: 64, height: 64 });
const TRUNCATED: [string, (csrf: string) => Buffer][] = [
  ['inside the file data, after the signature', (csrf) => Buffer.concat([Buffer.from(part('_csrf', csrf) + fileHead()), png.subarray(0, 40)])],
  ['inside the file data, before the signature is complete', (csrf) => Buffer.concat([Buffer.from(part('_csrf', csrf) + fileHead()), png.subarray(0, 4)])],
  [
    'right after the file data, without the closing boundary',
    (csrf) => Buffer.concat([Buffer.from(part('_csrf', csrf) + fileHead()), png, Buffer.from('\r\n')]),
  ],
  ['inside the headers of the file part', (csrf) => Buffer.from(part('_csrf', csrf) + `--${BOUNDARY}\r\nContent-Disposition: form-da`)],
  ['after the CSRF field, with no file part', (csrf) => Buffer.from(part('_csrf', csrf))],
  ['inside the CSRF field', () => Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\nabc`)],
];

describe('truncated and abandoned avatar uploads', () => {
  test.each(TRUNCATED)('a body cut %s gets a clean 4xx (JSON and page)', async (_name, build) => {
    const body = build(u.csrf);
    for (const json of [true, false]) {
      const answer = await rawPost(body, { json });
      if (answer === 'aborted') throw new Error('unexpected abort');
      expect(answer.status, answer.text.slice(0, 200)).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
      if (json) expect(JSON.parse(answer.text)).toMatchObject({ code: expect.any(String), message: expect.any(String), meta: {} });
    }
    expect(stray).toEqual([]);
  });

  test('a truncated body without a CSRF token is refused (403), not thrown', async () => {
    const body = Buffer.concat([Buffer.from(fileHead()), png.subarray(0, 40)]);
    const answer = await rawPost(body, { json: true });
    expect(answer !== 'aborted' && answer.status).toBe(403);
    expect(stray).toEqual([]);
  });

  test('uploads abandoned half-way (before, during and after the file started streaming) throw nothing', async () => {
    const withCsrf = part('_csrf', u.csrf);
    const bodies = [
      Buffer.from(withCsrf),
      Buffer.concat([Buffer.from(withCsrf + fileHead()), png.subarray(0, 4)]),
      Buffer.concat([Buffer.from(withCsrf + fileHead()), png, Buffer.alloc(100_000)]),
    ];
    for (const body of bodies) {
      for (const wait of [0, 50]) expect(await rawPost(body, { declaredLength: body.length + 1_000_000, abortAfterMs: wait })).toBe('aborted');
    }
    // Until the app has noticed every closed socket and the cancelled backend upload has ended too.
    await vi.waitFor(() => expect({ app: appInFlight, backend: env.backendProxy.inFlight }).toEqual({ app: 0, backend: 0 }), { timeout: 5_000, interval: 10 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(stray).toEqual([]);
  });

  test('after more than twenty broken uploads the app still answers, and nothing escaped a request', async () => {
    const body = Buffer.concat([Buffer.from(part('_csrf', u.csrf) + fileHead()), png.subarray(0, 40)]);
    for (let i = 0; i < 25; i += 1) {
      const answer = await rawPost(body, { json: true });
      expect(answer !== 'aborted' && answer.status).toBe(400);
    }
    const page = await u.browser.get('/profile-settings', { accept: 'application/json' });
    expect(page.status).toBe(200);
    const upload = await fetch(`${env.appUrl}/healthz`);
    expect(upload.status).toBe(200);
    expect(stray).toEqual([]);
  });
});
