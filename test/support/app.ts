import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { Express } from 'express';
import { inject } from 'vitest';
import type { Logger } from 'pino';
import { createApp } from '../../server/app.ts';
import { loadConfig } from '../../server/config.ts';
import { createLogger } from '../../server/logger.ts';

export const REPO = path.resolve(import.meta.dirname, '../..');

/** The run's one build (test/support/global-build.ts), when running under vitest with it. */
export function sharedBuildDir(): string | undefined {
  try {
    return inject('appBuildDir');
  } catch {
    return undefined; // not inside a vitest run with the global build
  }
}

/**
 * The built app (islands, stylesheet, server bundle) in a temporary directory, so tests never race
 * another process over dist/. Under vitest the run's one shared build is used (global-build.ts): tests
 * only read it, and `remove()` leaves it to the run. Elsewhere a fresh build is made. The bundle keeps
 * its packages external; a node_modules link beside it lets it resolve them.
 */
export function buildApp(): { dir: string; serverJs: string; assetsDir: string; remove(): void } {
  const shared = sharedBuildDir();
  if (shared) return { dir: shared, serverJs: path.join(shared, 'server.js'), assetsDir: path.join(shared, 'public'), remove: () => {} };
  const dir = mkdtempSync(path.join(tmpdir(), 'accounts-build-'));
  execFileSync(process.execPath, ['scripts/build.mjs', '--outdir', dir], { cwd: REPO, stdio: 'pipe' });
  symlinkSync(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return {
    dir,
    serverJs: path.join(dir, 'server.js'),
    assetsDir: path.join(dir, 'public'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Collects a logger's JSON lines in memory, to assert on what would have been logged. */
export function memoryLogger(level = 'info'): { logger: Logger; lines: () => string[]; text: () => string } {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  const text = () => chunks.join('');
  return { logger: createLogger(level, sink), text, lines: () => text().split('\n').filter(Boolean) };
}

export function testConfig(assetsDir: string, env: Record<string, string> = {}) {
  return loadConfig({
    NODE_ENV: 'test',
    ASSETS_DIR: assetsDir,
    LOCALES_DIR: path.join(REPO, 'locales'),
    LOG_LEVEL: 'silent',
    ENABLE_TEST_ROUTES: 'true',
    ...env,
  });
}

export async function testApp(assetsDir: string, env: Record<string, string> = {}, logger: Logger = createLogger('silent')): Promise<Express> {
  return createApp(testConfig(assetsDir, env), logger);
}

export type RunningServer = {
  url: string;
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
};

/** Output and exit of a process that is expected to refuse to start. */
export function runToExit(
  file: string,
  env: Record<string, string>,
  options: { cwd?: string; timeoutMs?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file], { cwd: options.cwd ?? REPO, env: { PATH: PATH_WITH_THIS_NODE, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`process did not exit within ${options.timeoutMs ?? 10_000} ms; stderr: ${stderr}`));
    }, options.timeoutMs ?? 10_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Starts `node <serverJs>` on an ephemeral port and resolves once it logs that it listens. Only the
 * given variables (and PATH) reach it, as in a container.
 */
export function startServer(serverJs: string, env: Record<string, string>, cwd = REPO): Promise<RunningServer> {
  return startProcess(process.execPath, [serverJs], env, cwd);
}

/** PATH with this Node (24) first, for children that run `node` by name. */
export const PATH_WITH_THIS_NODE = `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`;

/** Starts any command that ends up running the app, and waits for its "accounts listening" line. */
export function startProcess(command: string, args: string[], env: Record<string, string>, cwd = REPO): Promise<RunningServer> {
  const child = spawn(command, args, {
    cwd,
    env: { PATH: PATH_WITH_THIS_NODE, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
  });
  let stdout = '';
  let stderr = '';
  let listening = false;
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start; stderr: ${stderr}`)), 15_000);
    child.stdout!.on('data', (chunk) => {
      stdout += chunk;
      const match = /"port":(\d+)[^\n]*"msg":"accounts listening"/.exec(stdout);
      if (!match || listening) return;
      listening = true;
      clearTimeout(timer);
      resolve({
        url: `http://127.0.0.1:${match[1]}`,
        child,
        stdout: () => stdout,
        stderr: () => stderr,
        exited,
        async stop() {
          if (child.exitCode === null && child.signalCode === null) {
            child.kill('SIGKILL');
            await exited;
          }
        },
      });
    });
    exited.then(({ code }) => {
      clearTimeout(timer);
      if (!listening) reject(new Error(`server exited (${code}) before listening; stderr: ${stderr}`));
    });
  });
}

/** Script and style tags of an HTML document, with their nonce attribute if any. */
export function tagsOf(html: string, name: 'script' | 'style'): Array<{ tag: string; nonce: string | undefined }> {
  return [...html.matchAll(new RegExp(`<${name}\\b[^>]*>`, 'gi'))].map(([tag]) => ({
    tag,
    nonce: /\snonce="([^"]*)"/.exec(tag)?.[1],
  }));
}

export function cspNonceOf(header: string | undefined): string | undefined {
  return /script-src[^;]*'nonce-([^']+)'/.exec(header ?? '')?.[1];
}
