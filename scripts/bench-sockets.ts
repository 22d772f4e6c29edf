// `npm run bench:sockets`: the live-session socket's two budgets (issue #14), measured on built app
// processes (dist/server.js, the production flags) with a key set of our own standing in for the
// identity service's tokenizer (ES256 tokens, one user each):
//   1. idle: 10,000 authenticated sockets that joined their rooms, on ONE instance: its extra RSS
//      (budget 200 MB);
//   2. fan-out: 1,000 sockets spread over TWO instances sharing a redis-server, a force-reload to each
//      user sent in a burst through either instance: send → arrival latency, p50/p99/max (budget p99 1 s).
// Options: --sockets 10000 --fanout 1000. Needs /usr/bin/redis-server for the second part.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import WebSocket from 'ws';
import { redisServerMissing, startRedisServer } from './redis-server.ts';

const { values } = parseArgs({ options: { sockets: { type: 'string', default: '10000' }, fanout: { type: 'string', default: '1000' } } });
const IDLE_SOCKETS = Number(values.sockets);
const FANOUT_SOCKETS = Number(values.fanout);
const SECRET = 'bench-sockets-force-reload-secret-0123456789';
const ISSUER = 'http://bench.identity.invalid/';
const AUDIENCE = 'accounts-backend';
/**
 * The production image caps V8's old space at 128 MB (README "Memory soak"), sized for pages alone; an
 * instance that also holds 10,000 idle sockets (about 11 KB of heap each) needs room for them:
 * 128 MB + 10,000 × 16 KB ≈ 290 MB, rounded up. A 2 MB young generation keeps the connection bursts'
 * short-lived garbage from growing RSS (README "Live sessions": the figures with and without it).
 * BENCH_NODE_FLAGS overrides them.
 */
const SOCKET_NODE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? '--max-old-space-size=320 --max-semi-space-size=2').split(' ');

const { publicKey, privateKey } = await generateKeyPair('ES256');
const jwk = { ...(await exportJWK(publicKey)), kid: 'bench', alg: 'ES256', use: 'sig' };
const jwks = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })));
await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
const jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/.well-known/jwks.json`;

const tokenFor = (user: string, session: string) =>
  new SignJWT({ sid: session })
    .setProtectedHeader({ alg: 'ES256', kid: 'bench' })
    .setSubject(user)
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(privateKey);

type App = { url: string; child: ChildProcess; rssMb(): number; stop(): Promise<void> };

function startApp(env: Record<string, string>): Promise<App> {
  const child = spawn(process.execPath, [...SOCKET_NODE_FLAGS, 'dist/server.js'], {
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      SESSION_SECRET: 'bench-sockets-session-secret-0123456789abcdef',
      HOST: '127.0.0.1',
      PORT: '0',
      PUBLIC_URL: 'http://127.0.0.1',
      LOG_LEVEL: 'warn',
      TRUST_PROXY: 'loopback',
      MAX_CONNECTIONS: String(IDLE_SOCKETS + 1_000),
      TOKEN_JWKS_URL: jwksUrl,
      TOKEN_ISSUER: ISSUER,
      FORCE_RELOAD_SECRET: SECRET,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const port = /"port":(\d+)[^\n]*accounts listening/.exec(out)?.[1];
      if (port && out !== '') {
        out = '';
        resolve({
          url: `http://127.0.0.1:${port}`,
          child,
          rssMb: () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) / 1024,
          async stop() {
            child.kill('SIGKILL');
            await exited;
          },
        });
      }
    });
    // The production log level hides "listening": ask for info lines until the port is known.
    child.on('exit', (code) => reject(new Error(`app exited (${code})`)));
  });
}

type Client = { ws: WebSocket; user: string; forceReloadAt?: number };

/** Connects one socket and resolves once it is authenticated and has joined its rooms. */
async function connect(url: string, user: string, session: string, onForceReload: (client: Client) => void): Promise<Client> {
  const token = await tokenFor(user, session);
  const ws = new WebSocket(`${url.replace('http', 'ws')}/socket.io/?EIO=4&transport=websocket`);
  const client: Client = { ws, user };
  await new Promise<void>((resolve, reject) => {
    ws.on('error', reject);
    ws.on('message', (raw) => {
      const frame = String(raw);
      if (frame[0] === '0') ws.send('40');
      else if (frame === '2') ws.send('3');
      else if (frame.startsWith('40')) ws.send(`42${JSON.stringify(['init', { authorization: token }])}`);
      else if (frame === '42["authenticated"]') {
        ws.send('42["join"]');
        // The join has no answer: give the server a moment to take it before counting the socket.
        setTimeout(resolve, 5);
      } else if (frame === '42["force-reload"]') onForceReload(client);
    });
  });
  return client;
}

/** `count` sockets spread over `urls` in turn; socket n belongs to userOf(n), each with its own session. */
async function connectMany(urls: string[], count: number, onForceReload: (client: Client) => void, userOf = (n: number) => `user-${n}`): Promise<Client[]> {
  const clients: Client[] = [];
  const BATCH = 250;
  for (let start = 0; start < count; start += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, count - start) }, (_, i) => start + i);
    clients.push(...(await Promise.all(batch.map((n) => connect(urls[n % urls.length]!, userOf(n), `session-${n}`, onForceReload)))));
  }
  return clients;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 3_000));
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

// ── 1. idle sockets on one instance ──────────────────────────────────────────────────────────────
{
  const app = await startApp({ LOG_LEVEL: 'info' });
  // Warm the process up first (the key set fetched, the code paths compiled) with a few sockets.
  const warm = await connectMany([app.url], 50, () => {});
  for (const client of warm) client.ws.close();
  await settle();
  const before = app.rssMb();
  const started = Date.now();
  const clients = await connectMany([app.url], IDLE_SOCKETS, () => {});
  const connectSeconds = (Date.now() - started) / 1000;
  // V8's memory reducer collects the connection burst's garbage once the process idles: RSS is read
  // every second for 15 s, and the last reading (the idle sockets' cost) is reported with the peak.
  let peak = 0;
  let after = 0;
  for (let second = 0; second < 15; second += 1) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    after = app.rssMb();
    peak = Math.max(peak, after);
  }
  process.stdout.write(
    `idle: ${clients.length} authenticated sockets on one instance: RSS ${before.toFixed(0)} MB → ${after.toFixed(0)} MB after 15 s idle (peak ${peak.toFixed(0)} MB while connecting), extra ${(after - before).toFixed(0)} MB (budget 200 MB); connected in ${connectSeconds.toFixed(1)} s\n`,
  );
  for (const client of clients) client.ws.terminate();
  await app.stop();
}

// ── 2. force-reload to 1,000 sockets across two instances ────────────────────────────────────────
const missing = redisServerMissing();
if (missing) {
  process.stdout.write(`fan-out: skipped, ${missing}\n`);
} else {
  const redis = await startRedisServer();
  const apps = [await startApp({ LOG_LEVEL: 'info', REDIS_URL: redis.url }), await startApp({ LOG_LEVEL: 'info', REDIS_URL: redis.url })];
  const agent = new http.Agent({ keepAlive: true, maxSockets: 50 });
  const post = (url: string, body: string) =>
    new Promise<void>((resolve, reject) => {
      const request = http.request(
        `${url}/internal/force-reload`,
        { method: 'POST', agent, headers: { authorization: `Bearer ${SECRET}`, 'content-type': 'application/json' } },
        (answer) => {
          answer.resume();
          answer.on('end', () => (answer.statusCode === 202 ? resolve() : reject(new Error(`force-reload: ${answer.statusCode}`))));
        },
      );
      request.on('error', reject);
      request.end(body);
    });
  const report = (label: string, latencies: number[], expected: number) => {
    const sorted = [...latencies].sort((a, b) => a - b);
    process.stdout.write(
      `${label}: ${sorted.length}/${expected} arrived: p50 ${percentile(sorted, 50).toFixed(0)} ms, p99 ${percentile(sorted, 99).toFixed(0)} ms, max ${sorted[sorted.length - 1]!.toFixed(0)} ms (budget p99 1000 ms)\n`,
    );
  };
  const waitForAll = async (latencies: number[], count: number) => {
    const deadline = Date.now() + 10_000;
    while (latencies.length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  };

  // a. One force-reload to 1,000 sockets of one user (1,000 pages open), half on each instance, sent
  //    through instance B: half arrive from B itself, half cross Redis to A.
  {
    let sentAt = 0;
    const latencies: number[] = [];
    const clients = await connectMany(
      apps.map((app) => app.url),
      FANOUT_SOCKETS,
      () => latencies.push(performance.now() - sentAt),
      () => 'fanout-user',
    );
    await settle();
    sentAt = performance.now();
    await post(apps[1]!.url, JSON.stringify({ identityId: 'fanout-user' }));
    await waitForAll(latencies, clients.length);
    report(`fan-out: one force-reload to ${clients.length} sockets over two instances (sent on B)`, latencies, clients.length);
    for (const client of clients) client.ws.terminate();
  }

  // b. A burst: 1,000 users, one socket each, a force-reload to every one at once, each through the
  //    instance its socket is NOT on (so every one crosses Redis); 50 requests in flight.
  {
    const sentAt = new Map<string, number>();
    const latencies: number[] = [];
    const clients = await connectMany(
      apps.map((app) => app.url),
      FANOUT_SOCKETS,
      (client) => {
        const sent = sentAt.get(client.user);
        if (sent !== undefined && client.forceReloadAt === undefined) {
          client.forceReloadAt = performance.now();
          latencies.push(client.forceReloadAt - sent);
        }
      },
    );
    await settle();
    await Promise.all(
      clients.map((client, n) => {
        sentAt.set(client.user, performance.now());
        return post(apps[(n + 1) % apps.length]!.url, JSON.stringify({ identityId: client.user }));
      }),
    );
    await waitForAll(latencies, clients.length);
    report(
      `burst: ${clients.length} force-reloads to ${clients.length} users at once, each through the other instance (latency from each request's send)`,
      latencies,
      clients.length,
    );
    for (const client of clients) client.ws.terminate();
  }
  agent.destroy();
  for (const app of apps) await app.stop();
  await redis.stop();
}
jwks.close();
process.exit(0);
