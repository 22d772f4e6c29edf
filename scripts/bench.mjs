// `npm run bench` (or `node scripts/bench.mjs`): throughput and latency of the sign-in hot path.
//
// Starts the embedded identity service (child process, pinned to core 1 when taskset exists) and the
// BUILT app (dist/server.js, NODE_ENV=production, pinned to core 0), creates one login flow like a
// browser would, then runs autocannon (10 connections, from this process, itself moved to core 1)
// with a browser's headers (Accept-Encoding, Accept-Language) against:
//   1. GET  /sign-in?flow=<id>  — render a live flow: one Kratos call (getLoginFlow) + server render
//   2. POST /sign-in?flow=<id>  — a wrong password for an unknown address: rate-limit check, zod
//      validation, one Kratos submit (400 + flow), and the page re-rendered with the 400 message.
//      The app's rate limits (100 attempts per IP, 10 per e-mail) would otherwise answer 429 after a
//      few requests, so every request comes from its own X-Forwarded-For address (trusted from
//      loopback, TRUST_PROXY=loopback) and e-mail: the limiter still runs on every request.
// Each path is first warmed up (reported, not counted), then measured in several rounds; prints
// req/s, p50 and p99 of each round, their median, and the app's CPU time per request.
//   3. GET  /profile-settings?flow=<id> — a signed-in user (admin-made identity, signed in through our form)
// Options: --warmup=<s> (default 10), --runs=<n> (3), --duration=<s> (10 per round),
// --connections=<n> (10), --log=<level> (app LOG_LEVEL, default info), --only=get,post,profile (a list),
// --profile=<dir> (CPU profile of the app), --app=<bundle> (default dist/server.js),
// --node-flags="<flags>" (for the app only), --app-stdout=<file> (keep the app's output).
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Browser, formAction, hiddenValue } from '../test/support/http.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [name, ...value] = arg.replace(/^--/, '').split('=');
    return [name, value.join('=')];
  }),
);
const DURATION = Number(args.duration ?? 10);
const CONNECTIONS = Number(args.connections ?? 10);
const WARMUP = Number(args.warmup ?? 10);
const RUNS = Number(args.runs ?? 3);
const LABEL_WIDTH = 42;
const hasTaskset = spawnSync('taskset', ['--version']).status === 0;

// The app gets core 0 to itself: this process (autocannon) runs on core 1 with the identity service.
// Re-run under taskset once, so a plain `npm run bench` measures the same way.
if (hasTaskset && process.env.BENCH_PINNED !== '1') {
  const pinnedRun = spawnSync('taskset', ['-c', '1', process.execPath, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, BENCH_PINNED: '1' },
  });
  process.exit(pinnedRun.status ?? 1);
}
const children = [];

function pinned(core, command, commandArgs) {
  return hasTaskset ? ['taskset', ['-c', String(core), command, ...commandArgs]] : [command, commandArgs];
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

function start(core, command, commandArgs, env) {
  const [cmd, cmdArgs] = pinned(core, command, commandArgs);
  const child = spawn(cmd, cmdArgs, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return child;
}

function cleanup() {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
}
process.on('exit', cleanup);
process.on('SIGINT', () => process.exit(130));

async function waitFor(url, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not become ready`);
}

// The identity service prints its URLs as one JSON line once it listens.
const IDENTITY_MAIN = `
  import { startIdentity } from './embedded/identity/index.ts';
  import { startBackend } from './embedded/backend/index.ts';
  const identity = await startIdentity({
    publicPort: 0, adminPort: 0, database: ':memory:', appUrl: process.env.APP_URL,
    argon2: { memory: 1024, iterations: 1, parallelism: 1 },
  });
  const backend = await startBackend({ port: 0, database: ':memory:', identityPublicUrl: identity.publicUrl, identityAdminUrl: identity.adminUrl });
  console.log(JSON.stringify({ publicUrl: identity.publicUrl, adminUrl: identity.adminUrl, backendUrl: backend.url }));
  process.on('SIGTERM', async () => { await identity.close(); process.exit(0); });
`;

function startIdentity(appUrl) {
  const child = start(1, process.execPath, ['--input-type=module', '-e', IDENTITY_MAIN], { APP_URL: appUrl });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const line = out.split('\n').find((candidate) => candidate.startsWith('{'));
      if (line) resolve(JSON.parse(line));
    });
    child.on('exit', (code) => reject(new Error(`identity exited with ${code}`)));
  });
}

function run(options) {
  return new Promise((resolve, reject) => {
    autocannon({ connections: CONNECTIONS, duration: DURATION, ...options }, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

/** CPU time (user + system, ms) the process has used so far, from /proc (Linux); undefined elsewhere. */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks of 10 ms
  } catch {
    return undefined;
  }
}

/**
 * Runs one measurement and adds the app's CPU time per request: on a shared, busy machine req/s and
 * latency depend on what else runs, while CPU per request shows what the app itself costs (and
 * 1000 / (ms per request) is the rate one dedicated core could sustain).
 */
async function measure(appPid, options) {
  const before = cpuMs(appPid);
  const result = await run(options);
  const after = cpuMs(appPid);
  const total = result.requests.total || 1;
  result.cpuPerRequestMs = before === undefined || after === undefined ? undefined : (after - before) / total;
  return result;
}

function report(name, result) {
  const statuses = Object.entries(result.statusCodeStats ?? {})
    .map(([code, { count }]) => `${code}×${count}`)
    .join(' ');
  console.log(
    `${name.padEnd(LABEL_WIDTH)} ${result.requests.average.toFixed(0).padStart(6)} req/s   p50 ${String(result.latency.p50).padStart(4)} ms   p99 ${String(result.latency.p99).padStart(4)} ms   errors ${result.errors + result.timeouts}   statuses ${statuses}`,
  );
  if (result.cpuPerRequestMs !== undefined) {
    console.log(
      `${''.padEnd(LABEL_WIDTH)} app CPU ${(result.cpuPerRequestMs * 1000).toFixed(0)} µs/request → ≈${(1000 / result.cpuPerRequestMs).toFixed(0)} req/s on one free core`,
    );
  }
}

/** The median of each figure across the rounds. */
function reportMedian(name, rounds) {
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const rps = median(rounds.map((r) => r.requests.average));
  const p50 = median(rounds.map((r) => r.latency.p50));
  const p99 = median(rounds.map((r) => r.latency.p99));
  console.log(
    `${`${name}, median`.padEnd(LABEL_WIDTH)} ${rps.toFixed(0).padStart(6)} req/s   p50 ${String(p50).padStart(4)} ms   p99 ${String(p99).padStart(4)} ms   (of ${rounds.length} rounds)`,
  );
}

/**
 * A signed-in browser on its settings page: an identity made through the admin API, signed in through
 * our form; returns the options of GET /profile-settings?flow=<id> with its cookies.
 */
async function profileOptions(appUrl, adminUrl) {
  const email = `bench.${process.pid}@example.com`;
  const password = 'Violet-Harbour-Quartz-93';
  const created = await fetch(`${adminUrl}/admin/identities`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({
      schema_id: 'default',
      traits: { email, name: 'Ada' },
      credentials: { password: { config: { password } } },
      verifiable_addresses: [{ value: email, verified: true, via: 'email', status: 'completed' }],
    }),
  });
  if (created.status !== 201) throw new Error(`identity: ${created.status} ${await created.text()}`);
  const browser = new Browser(appUrl);
  const signInPage = await browser.follow('/sign-in');
  const action = formAction(signInPage.text, 'sign-in-form');
  const csrf = hiddenValue(signInPage.text, 'csrf_token');
  const signedIn = await browser.post(action, { csrf_token: csrf, identifier: email, password, method: 'password' });
  if (signedIn.status !== 303) throw new Error(`sign-in: ${signedIn.status}`);
  const settings = await browser.follow('/profile-settings');
  const flow =
    new URL(settings.url, appUrl).searchParams.get('flow') ?? new URL(formAction(settings.text, 'profile-form') ?? '', appUrl).searchParams.get('flow');
  if (settings.status !== 200 || !flow) throw new Error(`profile-settings: ${settings.status}, flow ${flow}`);
  const headers = {
    cookie: browser.cookieHeader(),
    accept: 'text/html,application/xhtml+xml',
    'accept-encoding': 'gzip, deflate, br',
    'accept-language': 'en-US,en;q=0.9',
  };
  return { url: `${appUrl}/profile-settings?flow=${flow}`, headers };
}

async function main() {
  if (!existsSync(path.join(root, 'dist/server.js'))) {
    const build = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
    if (build.status !== 0) throw new Error('build failed');
  }
  const port = await freePort();
  const appUrl = `http://127.0.0.1:${port}`;
  const identity = await startIdentity(appUrl);
  // --profile=<dir>: write the app's CPU profile there (open it in Chrome DevTools).
  const profile = args.profile ? [`--cpu-prof`, `--cpu-prof-dir=${path.resolve(args.profile)}`] : [];
  // --node-flags="--a --b": extra V8/Node flags for the app only (to try GC or JIT settings).
  const nodeFlags = args['node-flags'] ? args['node-flags'].split(' ').filter(Boolean) : [];
  const app = start(0, process.execPath, [...profile, ...nodeFlags, args.app ?? 'dist/server.js'], {
    NODE_ENV: 'production',
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: appUrl,
    KRATOS_PUBLIC_URL: identity.publicUrl,
    KRATOS_ADMIN_URL: identity.adminUrl,
    BACKEND_URL: identity.backendUrl,
    SESSION_SECRET: 'bench-only-secret-0123456789abcdef0123456789',
    LOG_LEVEL: args.log ?? 'info',
    TRUST_PROXY: 'loopback',
  });
  // Logs are produced (as in production) and dropped; --app-stdout=<file> keeps them (with --trace-gc, say).
  if (args['app-stdout']) app.stdout.pipe(createWriteStream(args['app-stdout']));
  else app.stdout.resume();
  await waitFor(`${appUrl}/readyz`);

  // One browser: its CSRF cookie and one login flow.
  const first = await fetch(`${appUrl}/sign-in`, { redirect: 'manual' });
  const cookie = first.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ');
  const flowPath = first.headers.get('location');
  const page = await (await fetch(`${appUrl}${flowPath}`, { headers: { cookie } })).text();
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(page)?.[1];
  if (!csrf) throw new Error('no CSRF token on the sign-in page');

  // What a phone's browser sends with every page request: compression and language negotiation are
  // part of the measured work.
  const browserHeaders = { cookie, accept: 'text/html,application/xhtml+xml', 'accept-encoding': 'gzip, deflate, br', 'accept-language': 'en-US,en;q=0.9' };

  const getOptions = { url: `${appUrl}${flowPath}`, headers: browserHeaders };
  let n = 0;
  const postOptions = {
    url: `${appUrl}${flowPath}`,
    method: 'POST',
    headers: { ...browserHeaders, 'content-type': 'application/x-www-form-urlencoded' },
    setupClient(client) {
      client.setRequest({}); // the per-request variation below replaces headers and body
    },
    requests: [
      {
        setupRequest(request) {
          n += 1;
          const ip = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
          const body = new URLSearchParams({
            csrf_token: csrf,
            identifier: `bench${n}@example.com`,
            password: 'Wrong-Password-42',
            method: 'password',
          }).toString();
          return {
            ...request,
            method: 'POST',
            body,
            headers: { ...request.headers, ...browserHeaders, 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': ip },
          };
        },
      },
    ],
  };
  const only = args.only ? args.only.split(',') : ['get', 'post', 'profile'];
  const paths = [
    ...(only.includes('get') ? [{ name: 'GET  /sign-in?flow=<id>', options: getOptions }] : []),
    ...(only.includes('post') ? [{ name: 'POST /sign-in (wrong password)', options: postOptions }] : []),
    ...(only.includes('profile') ? [{ name: 'GET  /profile-settings?flow=<id>', options: await profileOptions(appUrl, identity.adminUrl) }] : []),
  ];

  console.log(
    `app ${appUrl} (core 0${hasTaskset ? '' : ', taskset missing: not pinned'}), identity ${identity.publicUrl}, ` +
      `${CONNECTIONS} connections, warm-up ${WARMUP}s per path, then ${RUNS} × ${DURATION}s per path`,
  );
  // A fresh process spends its first seconds compiling hot functions (on the same core) and growing
  // its heap: the figures of that phase say little about a server that runs for days, so each path
  // is warmed up first. The warm-up is printed too, so the cold figures stay visible.
  for (const { name, options } of paths) report(`${name} (warm-up)`, await measure(app.pid, { ...options, duration: WARMUP }));
  console.log(`load average before: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
  for (const { name, options } of paths) {
    const rounds = [];
    for (let round = 0; round < RUNS; round += 1) {
      const result = await measure(app.pid, options);
      report(name, result);
      rounds.push(result);
    }
    if (RUNS > 1) reportMedian(name, rounds);
  }
}

main()
  .catch((error) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(cleanup);
