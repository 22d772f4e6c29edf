// Test fixtures of the profile tests: the standard stack, with two transparent proxies the tests can
// watch and steer — one in front of the identity service (to count tokenizer calls) and one in front
// of a backend stand-in started with an admin key and Canny settings (to count calls, read the bearer
// tokens, and answer `token_expired` on demand). The app only sees URLs, as in production.
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { startBackend, type BackendOptions, type RunningBackend } from '../../../embedded/backend/index.ts';
import type { StartIdentityOptions } from '../../../embedded/identity/index.ts';
import { startStack, type Stack } from '../../support/stack.ts';

export type Seen = { method: string; path: string; authorization?: string };

export type Proxy = {
  url: string;
  target: string;
  seen: Seen[];
  /** Answer this many of the next backend calls (under /api/user or /api/auth) with 401 token_expired. */
  expireNext: number;
  /** Likewise with 401 unauthorized: the backend refuses the token itself (a key or audience mismatch). */
  refuseNext: number;
  close(): Promise<void>;
};

export async function startProxy(): Promise<Proxy> {
  const proxy: Proxy = { url: '', target: '', seen: [], expireNext: 0, refuseNext: 0, close: async () => {} };
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    proxy.seen.push({ method: req.method ?? 'GET', path, authorization: req.headers.authorization });
    if (proxy.expireNext > 0 && /^\/api\/(user|auth)\//.test(path) && req.headers.authorization) {
      proxy.expireNext -= 1;
      req.resume();
      res.writeHead(401, { 'Content-Type': 'application/json', Connection: 'close' });
      return void res.end(JSON.stringify({ code: 'token_expired', message: 'The authorization token has expired' }));
    }
    if (proxy.refuseNext > 0 && /^\/api\/(user|auth)\//.test(path) && req.headers.authorization) {
      proxy.refuseNext -= 1;
      req.resume();
      res.writeHead(401, { 'Content-Type': 'application/json', Connection: 'close' });
      return void res.end(JSON.stringify({ code: 'unauthorized', message: 'The request could not be authorized' }));
    }
    const target = new URL(path, proxy.target);
    const upstream = http.request(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return proxy;
}

export const ADMIN_KEY = 'profile-tests-admin-key';
export const CANNY_COMPANY_ID = 'company-123';
export const CANNY_PRIVATE_KEY = 'canny-private-key-for-tests-0123456789';

export type ProfileStack = {
  stack: Stack;
  appUrl: string;
  identityAdminUrl: string;
  /** The backend stand-in the app talks to (through backendProxy). */
  backend: RunningBackend;
  backendProxy: Proxy;
  identityProxy: Proxy;
  /** Tokenizer calls seen so far (whoami?tokenize_as=authorization). */
  tokenizerCalls(): number;
  /** Bearer tokens the backend received so far, in order. */
  bearerTokens(): string[];
  /** Creates an invitation through the backend's admin route. */
  invite(email: string, expiresInSeconds?: number): Promise<string>;
  close(): Promise<void>;
};

export async function startProfileStack(
  options: { identityConfig?: StartIdentityOptions['config']; backend?: Partial<BackendOptions>; env?: Record<string, string> } = {},
): Promise<ProfileStack> {
  const backendProxy = await startProxy();
  const identityProxy = await startProxy();
  const stack = await startStack({
    identityConfig: options.identityConfig,
    env: { BACKEND_URL: backendProxy.url, KRATOS_PUBLIC_URL: identityProxy.url, ...options.env },
  });
  identityProxy.target = stack.identity.publicUrl;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'profile-tests-'));
  const backend = await startBackend({
    port: 0,
    database: ':memory:',
    dataDir,
    identityPublicUrl: stack.identity.publicUrl,
    identityAdminUrl: stack.identity.adminUrl,
    adminApiKey: ADMIN_KEY,
    cannyCompanyId: CANNY_COMPANY_ID,
    cannyPrivateKey: CANNY_PRIVATE_KEY,
    // Avatar addresses point at the proxy, the origin the app knows (and allows in its CSP).
    publicUrl: backendProxy.url,
    ...options.backend,
  });
  backendProxy.target = backend.url;
  return {
    stack,
    appUrl: stack.appUrl,
    identityAdminUrl: stack.identity.adminUrl,
    backend,
    backendProxy,
    identityProxy,
    tokenizerCalls: () => identityProxy.seen.filter((s) => s.path.startsWith('/sessions/whoami') && s.path.includes('tokenize_as=authorization')).length,
    bearerTokens: () => backendProxy.seen.map((s) => s.authorization?.replace(/^Bearer /, '') ?? '').filter(Boolean),
    async invite(email, expiresInSeconds) {
      const response = await fetch(`${backend.url}/api/admin/invitations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` },
        body: JSON.stringify({ email, ...(expiresInSeconds ? { expiresInSeconds } : {}) }),
      });
      if (response.status !== 201) throw new Error(`invite: ${response.status} ${await response.text()}`);
      return ((await response.json()) as { token: string }).token;
    },
    async close() {
      await stack.close();
      await backend.close();
      await backendProxy.close();
      await identityProxy.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Reads an identity through the identity admin API. */
export async function getIdentity(adminUrl: string, id: string): Promise<{ id: string; state: string; traits: Record<string, unknown>; metadata_admin?: unknown; metadata_public?: unknown; verifiable_addresses?: { value: string; verified: boolean }[] }> {
  const response = await fetch(`${adminUrl}/admin/identities/${id}`, { headers: { accept: 'application/json' } });
  if (response.status !== 200) throw new Error(`getIdentity: ${response.status}`);
  return (await response.json()) as never;
}

/** A multipart body with the given parts, in order (our CSRF field first, like the page's form). */
export function multipart(parts: { name: string; value?: string; filename?: string; type?: string; data?: Buffer }[]) {
  const boundary = `----profiletest${Math.random().toString(16).slice(2)}`;
  const pieces: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.filename !== undefined) head += `; filename="${part.filename}"\r\nContent-Type: ${part.type ?? 'application/octet-stream'}`;
    pieces.push(Buffer.from(`${head}\r\n\r\n`), part.data ?? Buffer.from(part.value ?? ''), Buffer.from('\r\n'));
  }
  pieces.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(pieces), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Posts a raw multipart body with the browser's cookies (the test Browser only sends forms and JSON). */
export async function postMultipart(
  baseUrl: string,
  cookie: string,
  path: string,
  parts: Parameters<typeof multipart>[0],
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string; location?: string; json(): unknown }> {
  const { body, contentType } = multipart(parts);
  const response = await fetch(new URL(path, baseUrl), {
    method: 'POST',
    headers: { cookie, 'content-type': contentType, accept: 'text/html', ...headers },
    body,
    redirect: 'manual',
  });
  const text = await response.text();
  return { status: response.status, text, location: response.headers.get('location') ?? undefined, json: () => JSON.parse(text) };
}
