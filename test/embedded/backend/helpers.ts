// Shared helpers for the backend stand-in tests: an ES256 key pair, token minting,
// and a fake identity admin API that records what the backend asked of it.
import { exportJWK, generateKeyPair, SignJWT, type JSONWebKeySet, type JWTPayload } from 'jose';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { startBackend, type BackendOptions } from '../../../embedded/backend/index.ts';

export const ISSUER = 'http://identity.test:4433';
export const AUDIENCE = 'accounts-backend';
export const ADMIN_KEY = 'test-admin-key';

export interface Keys {
  privateKey: CryptoKey;
  jwks: JSONWebKeySet;
  kid: string;
}

export async function makeKeys(kid = 'test-key-1'): Promise<Keys> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(publicKey);
  return { privateKey, jwks: { keys: [{ ...jwk, kid, alg: 'ES256', use: 'sig' }] }, kid };
}

export interface MintOptions {
  sub?: string;
  email?: string;
  iss?: string;
  aud?: string;
  /** seconds relative to `now` */
  expIn?: number;
  now?: number;
  extra?: JWTPayload;
  key?: CryptoKey;
  kid?: string;
}

export async function mint(keys: Keys, o: MintOptions = {}): Promise<string> {
  const nowSec = Math.floor((o.now ?? Date.now()) / 1000);
  const payload: JWTPayload = { email: o.email ?? 'ada@example.com', sid: randomUUID(), ...o.extra };
  return new SignJWT(payload)
    .setProtectedHeader({ alg: 'ES256', kid: o.kid ?? keys.kid })
    .setIssuer(o.iss ?? ISSUER)
    .setAudience(o.aud ?? AUDIENCE)
    .setSubject(o.sub ?? randomUUID())
    .setIssuedAt(nowSec)
    .setNotBefore(nowSec)
    .setExpirationTime(nowSec + (o.expIn ?? 1680))
    .setJti(randomUUID())
    .sign(o.key ?? keys.privateKey);
}

export interface RecordedCall {
  method: string;
  path: string;
  auth: string | undefined;
  body: unknown;
}

export interface FakeIdentity {
  id: string;
  state: string;
  traits: Record<string, unknown>;
  verifiable_addresses: { value: string; verified: boolean; via: string; status: string }[];
}

export interface FakeAdmin {
  url: string;
  calls: RecordedCall[];
  identities: Map<string, FakeIdentity>;
  add(email: string, opts?: { id?: string; verified?: boolean }): FakeIdentity;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(text ? JSON.parse(text) : undefined);
      } catch {
        resolve(text);
      }
    });
  });
}

/** A small stand-in for the identity admin API (Kratos §16 shapes), requiring the admin key. */
export async function startFakeAdmin(apiKey = ADMIN_KEY): Promise<FakeAdmin> {
  const calls: RecordedCall[] = [];
  const identities = new Map<string, FakeIdentity>();
  const add = (email: string, opts: { id?: string; verified?: boolean } = {}) => {
    const identity: FakeIdentity = {
      id: opts.id ?? randomUUID(),
      state: 'active',
      traits: { email },
      verifiable_addresses: [{ value: email, verified: opts.verified ?? true, via: 'email', status: opts.verified === false ? 'pending' : 'completed' }],
    };
    identities.set(identity.id, identity);
    return identity;
  };
  let base = '';
  const server: Server = createServer(async (req, res) => {
    const body = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://x');
    calls.push({ method: req.method ?? '', path: url.pathname + url.search, auth: req.headers.authorization, body });
    const send = (status: number, json?: unknown) => {
      res.writeHead(status, json === undefined ? {} : { 'Content-Type': 'application/json' });
      res.end(json === undefined ? undefined : JSON.stringify(json));
    };
    if (req.headers.authorization !== `Bearer ${apiKey}`) return send(401, { error: { code: 401, message: 'unauthorized' } });
    const m = /^\/admin\/identities\/([^/]+)(\/sessions)?$/.exec(url.pathname);
    if (url.pathname === '/admin/identities' && req.method === 'GET') {
      const wanted = url.searchParams.get('credentials_identifier')?.toLowerCase();
      return send(
        200,
        [...identities.values()].filter((i) => i.traits.email === wanted),
      );
    }
    if (url.pathname === '/admin/identities' && req.method === 'POST') {
      const b = body as { traits: { email: string }; verifiable_addresses?: FakeIdentity['verifiable_addresses'] };
      if ([...identities.values()].some((i) => i.traits.email === b.traits.email)) {
        return send(409, {
          error: { code: 409, status: 'Conflict', reason: 'This identity conflicts with another identity that already exists.', message: 'conflict' },
        });
      }
      const identity = add(b.traits.email);
      identity.traits = b.traits;
      return send(201, identity);
    }
    if (url.pathname === '/admin/recovery/link' && req.method === 'POST') {
      const b = body as { identity_id: string };
      if (!identities.has(b.identity_id)) return send(400, { error: { code: 400, message: 'The requested identity id does not exist.' } });
      return send(200, {
        recovery_link: `${base}/self-service/recovery?flow=${randomUUID()}&token=tok`,
        expires_at: new Date(Date.now() + 300_000).toISOString(),
      });
    }
    if (m) {
      const identity = identities.get(decodeURIComponent(m[1]!));
      if (m[2]) return send(identity ? 204 : 404);
      if (!identity) return send(404, { error: { code: 404, message: 'Unable to locate the resource' } });
      if (req.method === 'GET') return send(200, identity);
      if (req.method === 'DELETE') {
        identities.delete(identity.id);
        return send(204);
      }
      if (req.method === 'PATCH') {
        for (const op of body as { op: string; path: string; value?: unknown }[]) {
          const key = op.path.replace('/traits/', '');
          if (op.op === 'remove') delete identity.traits[key];
          else identity.traits[key] = op.value;
        }
        return send(200, identity);
      }
    }
    send(404, { error: { code: 404, message: 'not found' } });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    calls,
    identities,
    add,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

export interface TestBackend {
  url: string;
  dataDir: string;
  close(): Promise<void>;
}

export async function startTestBackend(options: BackendOptions): Promise<TestBackend> {
  const dataDir = mkdtempSync(join(tmpdir(), 'backend-test-'));
  const backend = await startBackend({
    port: 0,
    database: ':memory:',
    dataDir,
    identityPublicUrl: ISSUER,
    issuer: ISSUER,
    audience: AUDIENCE,
    ...options,
  });
  return {
    url: backend.url,
    dataDir,
    async close() {
      await backend.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
