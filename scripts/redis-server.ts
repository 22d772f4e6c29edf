// A throw-away Redis for the cluster script, the scale-out tests and the socket benchmark: Debian's
// redis-server on a free loopback port, nothing written to disk (no RDB, no AOF).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { freePort } from './ory/process.ts';

export const REDIS_SERVER = process.env.REDIS_SERVER_BIN ?? '/usr/bin/redis-server';

/** Why Redis-backed suites cannot run here, or undefined when they can. */
export function redisServerMissing(): string | undefined {
  return existsSync(REDIS_SERVER) ? undefined : `${REDIS_SERVER} is not installed (Debian: apt-get install redis-server)`;
}

export type RunningRedis = { url: string; port: number; child: ChildProcess; stop(): Promise<void> };

/** Starts redis-server and resolves once it accepts connections (10 s at most). */
export async function startRedisServer(options: { port?: number } = {}): Promise<RunningRedis> {
  const port = options.port ?? (await freePort());
  const child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  // Never outlive the process that started it (a test worker that is torn down, a script that fails).
  const killChild = () => child.kill('SIGKILL');
  process.once('exit', killChild);
  const exited = new Promise<void>((resolve) =>
    child.on('exit', () => {
      process.off('exit', killChild);
      resolve();
    }),
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${output}`)), 10_000);
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited (${code}): ${output}`));
    });
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
