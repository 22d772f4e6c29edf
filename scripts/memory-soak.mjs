// Memory soak (issue 10 #2, decision 080): anonymous requests must not grow the app's memory.
//
//   node scripts/memory-soak.mjs [--requests=300000] [--warmup=30000] [--connections=20] [--node-flags="<replaces APP_NODE_FLAGS>"]
//
// It holds RSS GROWTH (no leak); `npm run bench -- --only=soak` holds RSS after five minutes to issue #17's bar.
//
// Starts the embedded identity service and backend (one child, in-memory SQLite) and the built app
// (dist/server.js, NODE_ENV=production), all on 127.0.0.1, then sends anonymous requests in turn to
//   GET /logout                          (no session cookie)
//   GET /sign-in                         with a forged, well-formed `last_access_account` cookie
//   GET /sign-up/invitation?token=x      (a token the backend refuses)
// and prints the app's resident memory (VmRSS from /proc) before, after the warm-up and at the end,
// plus how many answers set our session cookie (must be 0). Exit status 1 when RSS grew by 20 MB or
// more after the warm-up, or when any answer set a session cookie. Local only, bounded in count.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { APP_ALLOCATOR_ENV, APP_NODE_FLAGS } from './local-product.ts';
import { freePort, rssMb, waitFor } from './bench-stack.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = Object.fromEntries(
  process.argv
    .slice(2)
    .map((arg) => /^--([^=]+)=(.*)$/.exec(arg))
    .filter(Boolean)
    .map((match) => [match[1], match[2]]),
);
const TOTAL = Math.min(Number(args.requests ?? 300_000), 1_000_000);
const WARMUP = Math.min(Number(args.warmup ?? 30_000), TOTAL);
const CONNECTIONS = Math.min(Number(args.connections ?? 20), 100);
const LIMIT_MB = 20;
const children = [];

function start(args, env) {
  const child = spawn(process.execPath, args, { cwd: root, env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return child;
}

function stopAll() {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
}
process.on('exit', stopAll);
process.on('SIGINT', () => process.exit(130));
process.on('SIGTERM', () => process.exit(143));

const STAND_INS = `
  import { startIdentity } from './embedded/identity/index.ts';
  import { startBackend } from './embedded/backend/index.ts';
  const identity = await startIdentity({
    publicPort: 0, adminPort: 0, database: ':memory:', appUrl: process.env.APP_URL,
    argon2: { memory: 1024, iterations: 1, parallelism: 1 },
  });
  const backend = await startBackend({ port: 0, database: ':memory:', identityPublicUrl: identity.publicUrl, identityAdminUrl: identity.adminUrl });
  console.log(JSON.stringify({ publicUrl: identity.publicUrl, adminUrl: identity.adminUrl, backendUrl: backend.url }));
`;

function startStandIns(appUrl) {
  const child = start(['--input-type=module', '-e', STAND_INS], { APP_URL: appUrl });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const line = out.split('\n').find((candidate) => candidate.startsWith('{'));
      if (line) resolve(JSON.parse(line));
    });
    child.on('exit', (code) => reject(new Error(`stand-ins exited with ${code}`)));
  });
}

const FORGED_ACCOUNT = encodeURIComponent(JSON.stringify({ email: 'someone@example.com', name: 'Some One' }));

/**
 * As a browser over HTTPS behind a proxy (TRUST_PROXY=loopback): in production the session cookie is
 * `Secure` (`__Host-`), so over plain HTTP the app would never set it and the cookie check below could not fail.
 */
const OVER_HTTPS = { 'x-forwarded-proto': 'https' };

function soak(appUrl, amount, counters) {
  const headers = { accept: 'text/html', 'accept-encoding': 'gzip', 'accept-language': 'en', ...OVER_HTTPS };
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: appUrl,
        connections: CONNECTIONS,
        amount,
        requests: [
          { method: 'GET', path: '/logout', headers },
          { method: 'GET', path: '/sign-in', headers: { ...headers, cookie: `last_access_account=${FORGED_ACCOUNT}` } },
          { method: 'GET', path: '/sign-up/invitation?token=x', headers },
        ],
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
    instance.on('response', (_client, status, _bytes, _time) => {
      counters[status] = (counters[status] ?? 0) + 1;
    });
    instance.on('reqError', () => (counters.errors = (counters.errors ?? 0) + 1));
  });
}

/** Set-Cookie of our session on any of the three answers, checked once with fetch (autocannon does not expose headers). */
async function sessionCookiesSet(appUrl) {
  let count = 0;
  for (const [pathName, cookie] of [
    ['/logout', ''],
    ['/sign-in', `last_access_account=${FORGED_ACCOUNT}`],
    ['/sign-up/invitation?token=x', ''],
  ]) {
    const answer = await fetch(`${appUrl}${pathName}`, { redirect: 'manual', headers: { accept: 'text/html', ...OVER_HTTPS, ...(cookie ? { cookie } : {}) } });
    count += answer.headers.getSetCookie().filter((line) => /accounts\.sid=/.test(line)).length;
    await answer.arrayBuffer();
  }
  return count;
}

async function main() {
  if (!existsSync(path.join(root, 'dist/server.js'))) {
    const build = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
    if (build.status !== 0) throw new Error('build failed');
  }
  const port = await freePort();
  const appUrl = `http://127.0.0.1:${port}`;
  const standIns = await startStandIns(appUrl);
  // The app runs with npm start's and the image's heap flags; --node-flags="…" replaces them (to tell garbage from retained memory).
  const nodeFlags = args['node-flags'] !== undefined ? args['node-flags'].split(' ').filter(Boolean) : APP_NODE_FLAGS;
  const app = start([...nodeFlags, 'dist/server.js'], {
    ...APP_ALLOCATOR_ENV,
    NODE_ENV: 'production',
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: appUrl,
    KRATOS_PUBLIC_URL: standIns.publicUrl,
    KRATOS_ADMIN_URL: standIns.adminUrl,
    BACKEND_URL: standIns.backendUrl,
    SESSION_SECRET: 'memory-soak-only-secret-0123456789abcdef',
    LOG_LEVEL: 'silent',
    TRUST_PROXY: 'loopback',
  });
  app.stdout.resume();
  await waitFor(`${appUrl}/healthz`);

  const counters = {};
  const before = rssMb(app.pid);
  console.log(`app ${appUrl}: RSS ${before.toFixed(1)} MB at start; ${WARMUP} warm-up requests, then ${TOTAL - WARMUP} more, ${CONNECTIONS} connections`);
  await soak(appUrl, WARMUP, counters);
  const warm = rssMb(app.pid);
  console.log(`after warm-up (${WARMUP}):  RSS ${warm.toFixed(1)} MB`);
  const started = Date.now();
  await soak(appUrl, TOTAL - WARMUP, counters);
  const after = rssMb(app.pid);
  const cookies = await sessionCookiesSet(appUrl);
  console.log(`after ${TOTAL} requests:  RSS ${after.toFixed(1)} MB (${((TOTAL - WARMUP) / ((Date.now() - started) / 1000)).toFixed(0)} req/s)`);
  console.log(`statuses ${JSON.stringify(counters)}; session cookies set: ${cookies}`);
  const growth = after - warm;
  console.log(`RSS growth after warm-up: ${growth.toFixed(1)} MB (limit ${LIMIT_MB} MB); since start: ${(after - before).toFixed(1)} MB`);
  stopAll();
  process.exit(growth < LIMIT_MB && cookies === 0 ? 0 : 1);
}

main().catch((error) => {
  console.error(error);
  stopAll();
  process.exit(1);
});
