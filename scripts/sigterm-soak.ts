// SIGTERM under load (issue 10 #13): starts the built app (dist/server.js, `npm run build` first),
// drives it at a steady rate over kept-alive connections, sends SIGTERM mid-load, keeps the load going
// until the process has exited, and counts what every request got. Only 127.0.0.1, bounded in count
// and time.
//
//   node scripts/sigterm-soak.ts [--rounds=3] [--rate=200] [--seconds=3] [--sockets=16] [--balancer]
//
// --balancer behaves like a load balancer: the app gets SHUTDOWN_DELAY_MS=1000, and the client polls
// /readyz every 100 ms and stops sending once it answers 503; then nothing should be refused either.
//
// A request fails when it is reset or cut on a connection the app had accepted (ECONNRESET on a
// kept-alive connection, "socket hang up", a truncated body) or answers 5xx. A new connection refused
// once the app has stopped listening (or reset from the kernel's accept queue as the listener closes)
// is counted apart as `refused`: the app never saw it, and a load balancer, which stopped sending when
// /readyz turned 503, retries those elsewhere.
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

export type RoundResult = { sent: number; ok: number; refused: number; failed: number; failures: string[]; exit: number | null };

const PATHS = ['/healthz', '/404', '/__test/slow?ms=40', '/favicon.ico'];

export type SoakOptions = { serverJs: string; assetsDir: string; rate: number; seconds: number; sockets: number; balancer?: boolean };

export async function soakRound(options: SoakOptions): Promise<RoundResult> {
  // A Kratos that is always well, so /readyz answers 200 until shutdown.
  const kratos = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}'));
  await new Promise<void>((resolve) => kratos.listen(0, '127.0.0.1', resolve));
  const kratosUrl = `http://127.0.0.1:${(kratos.address() as AddressInfo).port}`;
  const child = spawn(process.execPath, [options.serverJs], {
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      ENABLE_TEST_ROUTES: 'true',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      ASSETS_DIR: options.assetsDir,
      KRATOS_PUBLIC_URL: kratosUrl,
      KRATOS_ADMIN_URL: kratosUrl,
      SHUTDOWN_DELAY_MS: options.balancer ? '1000' : '0',
    },
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let stdout = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('app did not start')), 15_000);
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const match = /"port":(\d+)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.sockets });
  const result: RoundResult = { sent: 0, ok: 0, refused: 0, failed: 0, failures: [], exit: null };
  const pending: Promise<void>[] = [];
  let done = false;
  const one = (target: string) =>
    new Promise<void>((resolve) => {
      result.sent += 1;
      let answered = false;
      const req = http.get({ host: '127.0.0.1', port, path: target, agent }, (res) => {
        answered = true;
        const expected = Number(res.headers['content-length'] ?? -1);
        let length = 0;
        res.on('data', (chunk: Buffer) => (length += chunk.length));
        res.on('end', () => {
          const cut = expected >= 0 && length !== expected;
          const bad = (res.statusCode ?? 0) >= 500;
          if (cut || bad) {
            result.failed += 1;
            result.failures.push(`${target}: ${cut ? 'truncated' : res.statusCode}`);
          } else result.ok += 1;
          resolve();
        });
        res.on('error', (error) => {
          result.failed += 1;
          result.failures.push(`${target}: ${error.message}`);
          resolve();
        });
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        // A new connection refused, or reset from the kernel's accept queue as the listener closed:
        // the app never saw it. A reused (kept-alive) connection cut under a request is a failure.
        const neverAccepted = error.code === 'ECONNREFUSED' || (error.code === 'ECONNRESET' && !req.reusedSocket && !answered);
        if (neverAccepted) result.refused += 1;
        else {
          result.failed += 1;
          result.failures.push(`${target}: ${error.code ?? error.message}`);
        }
        resolve();
      });
    });
  const interval = 1000 / options.rate;
  const startedAt = Date.now();
  let index = 0;
  const limit = Date.now() + options.seconds * 1000 + 15_000; // hard bound on a round
  setTimeout(() => child.kill('SIGTERM'), options.seconds * 1000).unref();
  void exited.then(() => (done = true));
  const poller = options.balancer
    ? setInterval(() => {
        http
          .get({ host: '127.0.0.1', port, path: '/readyz', agent: false }, (res) => {
            if (res.statusCode === 503) done = true;
            res.resume();
          })
          .on('error', () => undefined);
      }, 100)
    : undefined;
  while (!done && Date.now() < limit) {
    const due = startedAt + index * interval;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(one(PATHS[index % PATHS.length]!));
    index += 1;
  }
  clearInterval(poller);
  if (Date.now() >= limit) child.kill('SIGKILL');
  result.exit = await exited;
  await Promise.all(pending);
  agent.destroy();
  kratos.closeAllConnections();
  kratos.close();
  return result;
}

async function main() {
  const args = Object.fromEntries(process.argv.slice(2).map((arg) => arg.replace(/^--/, '').split('=') as [string, string]));
  const rounds = Math.min(Number(args.rounds ?? 3), 10);
  const rate = Math.min(Number(args.rate ?? 200), 2_000);
  const seconds = Math.min(Number(args.seconds ?? 3), 30);
  const sockets = Math.min(Number(args.sockets ?? 16), 256);
  const balancer = 'balancer' in args;
  const root = path.resolve(import.meta.dirname, '..');
  let failedTotal = 0;
  for (let round = 1; round <= rounds; round += 1) {
    const result = await soakRound({
      serverJs: path.join(root, 'dist/server.js'),
      assetsDir: path.join(root, 'dist/public'),
      rate,
      seconds,
      sockets,
      balancer,
    });
    failedTotal += result.failed;
    process.stdout.write(
      `round ${round}: ${result.sent} sent, ${result.ok} ok, ${result.failed} failed, ${result.refused} refused after close, exit ${result.exit}` +
        (result.failures.length ? ` (${[...new Set(result.failures)].slice(0, 5).join('; ')})` : '') +
        '\n',
    );
  }
  process.exitCode = failedTotal === 0 ? 0 : 1;
}

if (import.meta.filename === process.argv[1]) await main();
