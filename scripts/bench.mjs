// `npm run bench` (or `node scripts/bench.mjs`): the server bars of issue #17, each PASS or FAIL against
// scripts/budgets.ts SERVER_BUDGETS (decided in scripts/bench-verdicts.ts); exit status 1 when one fails.
//
// Method: the built app (dist/server.js, NODE_ENV=production, the heap flags of npm start and the Docker
// image: scripts/local-product.ts APP_NODE_FLAGS) pinned to core 0; the identity and backend stand-ins and
// this load generator (autocannon) pinned to core 1 (scripts/bench-stack.mjs). Requests carry a browser's
// headers (Accept-Encoding, Accept-Language, cookies). A warm-up (printed, not counted) precedes the rounds.
// Parts (--only=a,b; default all but post):
//   sign-in  10 connections, --runs rounds of --duration s: GET /sign-in?flow=<id> req/s and p99 (medians)
//   post     10 connections: POST /sign-in, a wrong password (figures only, no bar)
//   profile  10 connections: GET /profile-settings?flow=<id> of a signed-in user, the app's CPU µs per request
//   c100     100 connections on GET /sign-in?flow=<id>, --runs rounds: p99
//   c1000    1,000 connections on GET /sign-in?flow=<id> for --duration s: socket errors, slowest answer,
//            statuses, and 503s sampled by fetch during the run for Retry-After (autocannon shows no headers)
//   soak     a FRESH app, 10 connections cycling sign-in / post / profile in 10 s slices for --soak s: RSS at the end
// Options: --warmup=<s> (10), --runs=<n> (3), --duration=<s> (10), --soak=<s> (300), --log=<level> (info),
// --profile=<dir> (CPU profile of the app), --app=<bundle> (dist/server.js), --node-flags="<flags>"
// (replace the heap flags), --app-stdout=<file>, --env=NAME=value,… (extra app environment, e.g.
// KRATOS_MAX_SOCKETS=32 to compare agent sizes).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { overloadAt1000, profileCpu, readmeLines, signInThroughput, soakRss, summaryTable, tailAt100 } from './bench-verdicts.ts';
import { cpuMs, freePort, hasTaskset, prepareRequests, root, rssMb, run, startApp, startStandIns, stop, stopAll } from './bench-stack.mjs';
import { APP_NODE_FLAGS } from './local-product.ts';

const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [name, ...value] = arg.replace(/^--/, '').split('=');
    return [name, value.join('=')];
  }),
);
const DURATION = Number(args.duration ?? 10);
const WARMUP = Number(args.warmup ?? 10);
const RUNS = Number(args.runs ?? 3);
const SOAK = Number(args.soak ?? 300);
const ALL_PARTS = ['sign-in', 'post', 'profile', 'c100', 'c1000', 'soak'];
const PARTS = args.only ? args.only.split(',') : ALL_PARTS.filter((part) => part !== 'post');
const unknown = PARTS.filter((part) => !ALL_PARTS.includes(part));
if (unknown.length) throw new Error(`unknown part(s) ${unknown.join(', ')}; parts: ${ALL_PARTS.join(', ')}`);
const NODE_FLAGS = args['node-flags'] !== undefined ? args['node-flags'].split(' ').filter(Boolean) : APP_NODE_FLAGS;
const APP_ENV = Object.fromEntries(
  (args.env ?? '')
    .split(',')
    .filter(Boolean)
    .map((pair) => [pair.split('=')[0], pair.split('=').slice(1).join('=')]),
);
const LABEL_WIDTH = 44;

// The app gets core 0 to itself: this process (autocannon) runs on core 1 with the stand-ins.
// Re-run under taskset once, so a plain `npm run bench` measures the same way.
if (hasTaskset && process.env.BENCH_PINNED !== '1') {
  const pinnedRun = spawnSync('taskset', ['-c', '1', process.execPath, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, BENCH_PINNED: '1' },
  });
  process.exit(pinnedRun.status ?? 1);
}
process.on('exit', stopAll);
process.on('SIGINT', () => process.exit(130));

const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** One autocannon run with the app's CPU time per request (what the app itself costs, whatever else runs). */
async function measure(appPid, options) {
  const before = cpuMs(appPid);
  const result = await run({ connections: 10, duration: DURATION, ...options });
  const after = cpuMs(appPid);
  const cpuUsPerRequest = before === undefined || after === undefined ? undefined : ((after - before) * 1000) / (result.requests.total || 1);
  return { result, round: { rps: result.requests.average, p99Ms: result.latency.p99, errors: result.errors + result.timeouts, cpuUsPerRequest } };
}

function report(name, { result, round }) {
  const statuses = Object.entries(result.statusCodeStats ?? {})
    .map(([code, { count }]) => `${code}×${count}`)
    .join(' ');
  const cpu = round.cpuUsPerRequest === undefined ? '' : `   app CPU ${round.cpuUsPerRequest.toFixed(0)} µs/req`;
  console.log(
    `${name.padEnd(LABEL_WIDTH)} ${round.rps.toFixed(0).padStart(6)} req/s   p50 ${String(result.latency.p50).padStart(4)} ms   p99 ${String(round.p99Ms).padStart(4)} ms   max ${String(result.latency.max).padStart(5)} ms   errors ${round.errors}   ${statuses}${cpu}`,
  );
}

async function rounds(appPid, name, options) {
  const measured = [];
  for (let index = 0; index < RUNS; index += 1) {
    const one = await measure(appPid, options);
    report(`${name} #${index + 1}`, one);
    measured.push(one.round);
  }
  return measured;
}

/** 1,000 connections, while fetch samples answers for their Retry-After (autocannon shows no headers). */
async function overload(appPid, options) {
  let sampling = true;
  let refusalsWithoutRetryAfter = 0;
  let refusalsSampled = 0;
  const sampler = (async () => {
    while (sampling) {
      const answer = await fetch(options.url, { headers: options.headers }).catch(() => undefined);
      if (answer?.status === 503) {
        refusalsSampled += 1;
        if (!answer.headers.get('retry-after')) refusalsWithoutRetryAfter += 1;
      }
      await answer?.arrayBuffer().catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  // autocannon's own timeout (10 s) is above the 2 s bar: a slow answer counts as slow, not as an error.
  const one = await measure(appPid, { ...options, connections: 1_000, timeout: 10 });
  sampling = false;
  await sampler;
  report('c1000 GET /sign-in?flow=', one);
  console.log(`${''.padEnd(LABEL_WIDTH)} 503s sampled by fetch: ${refusalsSampled}, without Retry-After: ${refusalsWithoutRetryAfter}`);
  const statuses = Object.fromEntries(Object.entries(one.result.statusCodeStats ?? {}).map(([code, { count }]) => [code, count]));
  return { errors: one.result.errors, timeouts: one.result.timeouts, maxLatencyMs: one.result.latency.max, statuses, refusalsWithoutRetryAfter };
}

/** A fresh app under 10 connections for SOAK seconds, cycling the three requests in 10 s slices. */
async function soak(standIns) {
  const port = await freePort();
  const { app, appUrl } = await startApp({
    port,
    standIns,
    nodeFlags: NODE_FLAGS,
    env: APP_ENV,
    logLevel: args.log ?? 'info',
    bundle: args.app,
    stdoutFile: args['app-stdout'],
  });
  const requests = await prepareRequests(appUrl, standIns.adminUrl);
  const started = Date.now();
  console.log(`soak: fresh app ${appUrl}, RSS ${rssMb(app.pid).toFixed(0)} MB at start, ${SOAK} s of load`);
  let peak = 0;
  for (let slice = 0; Date.now() - started < SOAK * 1000; slice += 1) {
    const options = [requests.signIn, requests.post, requests.profile][slice % 3];
    await run({ connections: 10, duration: Math.min(10, Math.max(1, Math.ceil(SOAK - (Date.now() - started) / 1000))), ...options });
    peak = Math.max(peak, rssMb(app.pid));
    if (slice % 6 === 5) console.log(`soak: ${((Date.now() - started) / 1000).toFixed(0)} s, RSS ${rssMb(app.pid).toFixed(0)} MB`);
  }
  const rss = rssMb(app.pid);
  console.log(`soak: RSS ${rss.toFixed(0)} MB at the end (peak ${peak.toFixed(0)} MB)`);
  await stop(app);
  return rss;
}

async function main() {
  if (!existsSync(path.join(root, 'dist/server.js'))) {
    const build = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
    if (build.status !== 0) throw new Error('build failed');
  }
  const loadBefore = loadAverage();
  const port = await freePort();
  const standIns = await startStandIns(`http://127.0.0.1:${port}`);
  const verdicts = [];
  console.log(
    `parts ${PARTS.join(', ')}; app on core 0${hasTaskset ? '' : ' (taskset missing: not pinned)'} with ${NODE_FLAGS.join(' ') || 'no flags'}` +
      `${Object.keys(APP_ENV).length ? `, ${JSON.stringify(APP_ENV)}` : ''}; warm-up ${WARMUP} s, ${RUNS} × ${DURATION} s; load average ${loadBefore}`,
  );
  if (PARTS.some((part) => part !== 'soak')) {
    const profile = args.profile ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(args.profile)}`] : [];
    const appOptions = { port, standIns, nodeFlags: [...profile, ...NODE_FLAGS], env: APP_ENV, logLevel: args.log, stdoutFile: args['app-stdout'] };
    const { app, appUrl } = await startApp({ ...appOptions, bundle: args.app });
    const requests = await prepareRequests(appUrl, standIns.adminUrl);
    // A fresh process spends its first seconds compiling hot functions and growing its heap: warm up first.
    report('warm-up GET /sign-in?flow=', await measure(app.pid, { ...requests.signIn, duration: WARMUP }));
    if (PARTS.includes('profile')) report('warm-up GET /profile-settings?flow=', await measure(app.pid, { ...requests.profile, duration: WARMUP }));
    if (PARTS.includes('sign-in')) verdicts.push(signInThroughput(await rounds(app.pid, 'GET /sign-in?flow=', requests.signIn)));
    if (PARTS.includes('post')) await rounds(app.pid, 'POST /sign-in (wrong password)', requests.post);
    if (PARTS.includes('profile')) verdicts.push(profileCpu(await rounds(app.pid, 'GET /profile-settings?flow=', requests.profile)));
    if (PARTS.includes('c100')) verdicts.push(tailAt100(await rounds(app.pid, 'c100 GET /sign-in?flow=', { ...requests.signIn, connections: 100 })));
    if (PARTS.includes('c1000')) verdicts.push(overloadAt1000(await overload(app.pid, requests.signIn)));
    await stop(app);
  }
  if (PARTS.includes('soak')) verdicts.push(soakRss(await soak(standIns), SOAK));
  if (verdicts.length === 0) return;

  console.log(`\n${summaryTable(verdicts)}\n`);
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  console.log(
    readmeLines(verdicts, { cores: os.cpus().length, cpu, load: loadBefore, date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC' }),
  );
  if (verdicts.some((verdict) => !verdict.pass)) process.exitCode = 1;
}

main()
  .catch((error) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(stopAll);
