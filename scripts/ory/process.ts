// What starting a real Ory server needs, whichever it is: free ports, a migrated SQLite database, the
// child process with its log kept for the error message, and the wait until it answers /health/ready.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A port nothing listens on, for a server that cannot take port 0 and say which it got (Kratos and
 * Hydra need their own URLs in their configuration). Taken at random below the kernel's ephemeral range,
 * so no port-0 listener of a parallel test can be handed it between this check and the server's bind.
 */
export async function freePort(): Promise<number> {
  const [low] = readFileSafe('/proc/sys/net/ipv4/ip_local_port_range')?.split(/\s+/).map(Number) ?? [32768];
  const top = Math.max(20_000, (low ?? 32768) - 1);
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const port = 10_000 + Math.floor(Math.random() * (top - 10_000));
    const server = http.createServer();
    const free = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (free) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      return port;
    }
  }
  throw new Error('no free port found for an Ory server');
}

function readFileSafe(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

export const sqliteDsn = (file: string) => `sqlite://${file}?_fk=true&mode=rwc`;

/**
 * The DSN a serving Kratos opens its SQLite file with: write-ahead logging, so a write no longer waits for
 * readers to finish. Measured with one client creating an identity, sending a verification code, reading
 * it from the admin API and submitting a wrong one, in a loop for 45 s, twice each: with the courier
 * (`--watch-courier`) the rollback journal stalled 3 and 4 calls for the driver's 5 s busy timeout (the
 * courier logging `database is locked`) in ~4,000 calls; WAL stalled 1 and 1 in 10,000–12,000; without
 * the courier neither stalled (slowest 37–51 ms). CI runs had failed, most likely on such stalls, which the
 * app answered as 503 at its own 5 s deadline; the app's test stacks also run without the courier (kratos.ts
 * `courier`).
 * Migrations run without WAL (migratedDatabase copies the template file alone, and a WAL file beside it
 * would be left behind); Kratos switches the copy over when it opens it.
 */
export const servedSqliteDsn = (file: string) => `${sqliteDsn(file)}&_journal_mode=WAL`;

/**
 * The environment of an Ory process: only what any program needs. Kratos and Hydra read every
 * variable named like a configuration key (LOG_LEVEL, DSN, SERVE_PUBLIC_PORT, …) over their
 * configuration file, so the app's own variables must not reach them.
 */
function oryEnv(extra: Record<string, string> = {}): Record<string, string> {
  const keep = ['PATH', 'HOME', 'TMPDIR', 'TZ', 'LANG'];
  return { ...Object.fromEntries(keep.flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : []))), ...extra };
}

// Migrating an empty database takes seconds (Kratos: ~5 s); each process migrates once into a template
// file per binary and every server it starts begins from a copy.
const templateRoot = join(tmpdir(), `accounts-ory-templates-${process.pid}`);
process.once('exit', () => rmSync(templateRoot, { recursive: true, force: true }));

/** Copies a migrated, empty database to `target` (`migrate` is the binary's migrate command line). */
export function migratedDatabase(binary: string, name: string, migrate: string[], configFile: string, target: string): void {
  const template = join(templateRoot, `${name}.sqlite`);
  if (!existsSync(template)) {
    mkdirSync(templateRoot, { recursive: true });
    const result = spawnSync(binary, [...migrate, '-c', configFile], { env: oryEnv({ DSN: sqliteDsn(template) }), encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${name} migrate failed: ${result.stderr || result.stdout}`);
  }
  copyFileSync(template, target);
}

/** A running Ory process: `errors()` is every error-level line it has logged (kept to explain a failed test). */
export type OryProcess = { stop(): Promise<void>; errors(): string[] };

/** Error and fatal lines (Ory logs JSON, or logfmt in dev), kept apart from the 20 kB tail so a long run cannot push them out. */
const ERROR_LINE = /"level":"(error|fatal)"|\blevel=(error|fatal)\b/;
const MAX_ERROR_LINES = 200;

/**
 * Starts `binary args` and waits until every `readyUrls` answers 2xx. Its output is kept (the last 20 kB) and
 * shown when it fails to start; `inherit` passes it through instead (start:ory).
 */
export async function startOryProcess(
  name: string,
  binary: string,
  args: string[],
  options: { cwd: string; readyUrls: string[]; stdio?: 'inherit' | 'pipe'; timeoutMs?: number },
): Promise<OryProcess> {
  const child = spawn(binary, args, { cwd: options.cwd, env: oryEnv(), stdio: options.stdio === 'inherit' ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
  let log = '';
  let partial = '';
  const errorLines: string[] = [];
  const keep = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    log = (log + text).slice(-20_000);
    const lines = (partial + text).split('\n');
    partial = lines.pop()!.slice(-20_000);
    for (const line of lines) if (ERROR_LINE.test(line)) errorLines.push(line.slice(0, 2_000));
    errorLines.splice(0, errorLines.length - MAX_ERROR_LINES);
  };
  const errors = () => [...errorLines];
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };

  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}) before it was ready:\n${log}`);
    // Every listener must answer, and the child must still be alive once they do: a port taken by
    // someone else after all would otherwise pass for ours while our server has exited.
    const answers = await Promise.all(
      options.readyUrls.map((url) =>
        fetch(url, { signal: AbortSignal.timeout(1_000) }).then(
          (r) => r.ok,
          () => false,
        ),
      ),
    );
    if (answers.every(Boolean) && child.exitCode === null) return { stop, errors };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await stop();
  throw new Error(`${name} was not ready within ${options.timeoutMs ?? 30_000} ms:\n${log}`);
}
