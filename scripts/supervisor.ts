// Runs the product's processes as one: children started with their own environment, and when one
// exits or the supervisor gets SIGTERM/SIGINT, everything stops (children get SIGTERM and 11 s to
// drain, then the supervisor exits). Used by `npm start` and `npm run start:ory`.
import { spawn, type ChildProcess } from 'node:child_process';

export type Supervisor = {
  /** Starts `node <args>` (this very Node) with the environment plus `extraEnv`. */
  start(name: string, args: string[], extraEnv: Record<string, string>): void;
  /** Also runs `cleanup` when everything stops (servers this process started itself). */
  onStop(cleanup: () => Promise<void>): void;
  stop(code?: number): void;
};

export function createSupervisor(): Supervisor {
  const children: ChildProcess[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  let stopping = false;

  const stop = (code = 0) => {
    if (stopping) return;
    stopping = true;
    for (const child of children) child.kill('SIGTERM');
    setTimeout(() => process.exit(code), 11_000).unref();
    const exited = children.map((c) => new Promise((resolve) => (c.exitCode !== null ? resolve(null) : c.on('exit', resolve))));
    Promise.all(exited)
      .then(() => Promise.allSettled(cleanups.map((cleanup) => cleanup())))
      .then(() => process.exit(code));
  };
  process.on('SIGTERM', () => stop(0));
  process.on('SIGINT', () => stop(0));

  return {
    start(name, args, extraEnv) {
      const child = spawn(process.execPath, args, { env: { ...process.env, ...extraEnv }, stdio: 'inherit' });
      child.on('exit', (code, signal) => {
        if (!stopping) {
          process.stderr.write(`${name} exited (${signal ?? code}); stopping everything\n`);
          stop(code ?? 1);
        }
      });
      children.push(child);
    },
    onStop(cleanup) {
      cleanups.push(cleanup);
    },
    stop,
  };
}
