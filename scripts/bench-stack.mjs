// The processes and requests of the server bench (scripts/bench.mjs): the embedded identity service and
// backend in one child pinned to core 1 (with the load generator), the BUILT app (dist/server.js,
// NODE_ENV=production, the production heap flags) pinned to core 0, and the requests a browser sends.
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { FORM_IDS } from '../core/form-ids.ts';
import { Browser, formAction, hiddenValue } from '../test/support/http.ts';
import { APP_ALLOCATOR_ENV } from './local-product.ts';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const hasTaskset = spawnSync('taskset', ['--version']).status === 0;
const children = [];

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

function start(core, commandArgs, env) {
  const [cmd, cmdArgs] = hasTaskset ? ['taskset', ['-c', String(core), process.execPath, ...commandArgs]] : [process.execPath, commandArgs];
  const child = spawn(cmd, cmdArgs, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return child;
}

export function stop(child) {
  if (child.exitCode !== null) return Promise.resolve();
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  // The app drains for up to SHUTDOWN_TIMEOUT_MS (10 s); past that, the bench does not wait for it.
  const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  return exited.finally(() => clearTimeout(killer));
}

export function stopAll() {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
}

/** Polls `url` until it answers 2xx, or throws after `timeoutMs`. */
export async function waitFor(url, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not become ready`);
}

// The stand-ins print their URLs as one JSON line once they listen.
const STAND_INS = `
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

/** The identity service and the backend, answering for the app at `appUrl`. */
export function startStandIns(appUrl) {
  const child = start(1, ['--input-type=module', '-e', STAND_INS], { APP_URL: appUrl });
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

/** The built app on core 0 with `nodeFlags`; its logs are produced (as in production) and dropped unless `stdoutFile`. */
export async function startApp({ port, standIns, nodeFlags, env = {}, logLevel = 'info', stdoutFile, bundle = 'dist/server.js' }) {
  const appUrl = `http://127.0.0.1:${port}`;
  const app = start(0, [...nodeFlags, bundle], {
    NODE_ENV: 'production',
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: appUrl,
    KRATOS_PUBLIC_URL: standIns.publicUrl,
    KRATOS_ADMIN_URL: standIns.adminUrl,
    BACKEND_URL: standIns.backendUrl,
    SESSION_SECRET: 'bench-only-secret-0123456789abcdef0123456789',
    LOG_LEVEL: logLevel,
    // Every POST comes from its own X-Forwarded-For address (see postOptions), trusted from loopback.
    TRUST_PROXY: 'loopback',
    // The allocator setting of npm start and the Docker image.
    ...APP_ALLOCATOR_ENV,
    ...env,
  });
  if (stdoutFile) app.stdout.pipe(createWriteStream(stdoutFile));
  else app.stdout.resume();
  await waitFor(`${appUrl}/readyz`);
  return { app, appUrl };
}

/** CPU time (user + system, ms) the process has used so far, from /proc (Linux); undefined elsewhere. */
export function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks of 10 ms
  } catch {
    return undefined;
  }
}

/** Resident memory, MB (VmRSS from /proc); NaN elsewhere. */
export function rssMb(pid) {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
  } catch {
    return Number.NaN;
  }
}

export function run(options) {
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

// What a phone's browser sends with every page request: compression and language negotiation are part of the work.
const PAGE_HEADERS = { accept: 'text/html,application/xhtml+xml', 'accept-encoding': 'gzip, deflate, br', 'accept-language': 'en-US,en;q=0.9' };
const PASSWORD = 'Violet-Harbour-Quartz-93';

async function createIdentity(adminUrl, email) {
  const created = await fetch(`${adminUrl}/admin/identities`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({
      schema_id: 'default',
      traits: { email, name: 'Ada' },
      credentials: { password: { config: { password: PASSWORD } } },
      verifiable_addresses: [{ value: email, verified: true, via: 'email', status: 'completed' }],
    }),
  });
  if (created.status !== 201) throw new Error(`identity: ${created.status} ${await created.text()}`);
}

/**
 * The autocannon options of the measured requests, for one browser each:
 *   signIn   GET  /sign-in?flow=<id>: one Kratos call (getLoginFlow) and the server render;
 *   post     POST /sign-in?flow=<id>, a wrong password for an unknown address: rate-limit check, validation,
 *            one Kratos submit (400 + flow) and the page again. The app's rate limits (per IP and per e-mail)
 *            would answer 429 after a few, so each request has its own X-Forwarded-For and e-mail;
 *   profile  GET  /profile-settings?flow=<id> of a signed-in user (admin-made identity, signed in by our form).
 */
export async function prepareRequests(appUrl, adminUrl) {
  const guest = new Browser(appUrl);
  const signInPage = await guest.follow('/sign-in');
  const flowPath = new URL(signInPage.url, appUrl);
  if (!flowPath.searchParams.get('flow')) flowPath.search = new URL(formAction(signInPage.text, FORM_IDS.signIn) ?? '', appUrl).search;
  const csrf = hiddenValue(signInPage.text, 'csrf_token');
  if (!csrf || !flowPath.searchParams.get('flow')) throw new Error(`no sign-in form (status ${signInPage.status})`);
  const signInUrl = `${appUrl}${flowPath.pathname}${flowPath.search}`;
  const guestHeaders = { ...PAGE_HEADERS, cookie: guest.cookieHeader() };

  let n = 0;
  const post = {
    url: signInUrl,
    method: 'POST',
    headers: { ...guestHeaders, 'content-type': 'application/x-www-form-urlencoded' },
    setupClient: (client) => client.setRequest({}), // the per-request variation below replaces headers and body
    requests: [
      {
        setupRequest(request) {
          n += 1;
          const body = new URLSearchParams({ csrf_token: csrf, identifier: `bench${n}@example.com`, password: 'Wrong-Password-42', method: 'password' });
          const ip = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
          const headers = { ...request.headers, ...guestHeaders, 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': ip };
          return { ...request, method: 'POST', body: body.toString(), headers };
        },
      },
    ],
  };

  const email = `bench.${process.pid}.${Date.now().toString(36)}@example.com`;
  await createIdentity(adminUrl, email);
  const user = new Browser(appUrl);
  const userSignIn = await user.follow('/sign-in');
  const signedIn = await user.post(formAction(userSignIn.text, FORM_IDS.signIn), {
    csrf_token: hiddenValue(userSignIn.text, 'csrf_token'),
    identifier: email,
    password: PASSWORD,
    method: 'password',
  });
  if (signedIn.status !== 303) throw new Error(`sign-in: ${signedIn.status}`);
  const settings = await user.follow('/profile-settings');
  const flow =
    new URL(settings.url, appUrl).searchParams.get('flow') ?? new URL(formAction(settings.text, FORM_IDS.profileName) ?? '', appUrl).searchParams.get('flow');
  if (settings.status !== 200 || !flow) throw new Error(`profile-settings: ${settings.status}, flow ${flow}`);
  // As a browser over HTTPS (production serves it behind a proxy saying X-Forwarded-Proto: https; TRUST_PROXY
  // trusts loopback): the app's Secure session cookie is set, and the measured GETs reuse that session instead
  // of each starting and storing a new one (a plain-HTTP artefact no browser pays).
  const https = { 'x-forwarded-proto': 'https' };
  await user.get(`/profile-settings?flow=${flow}`, https);
  if (!user.cookieHeader().includes('accounts.sid=')) throw new Error('profile-settings: no session cookie');

  return {
    signIn: { url: signInUrl, headers: guestHeaders },
    post,
    profile: { url: `${appUrl}/profile-settings?flow=${flow}`, headers: { ...PAGE_HEADERS, ...https, cookie: user.cookieHeader() } },
  };
}
