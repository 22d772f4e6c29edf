// The product exactly as `npm start` runs it (scripts/start.ts, its own fixed ports and stand-ins) for
// the test files that must see what a person trying it sees. None of our address variables is passed
// on, so npm start's defaults apply; only the data goes to a temporary folder. The fixed ports are held
// (test/support/fixed-ports.ts) while it runs. Call `useNpmStart()` at the top of a file or describe.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, vi } from 'vitest';
import { REPO } from './app.ts';
import { holdFixedPorts } from './fixed-ports.ts';

/** npm start's own addresses (scripts/local-product.ts defaults). */
export const NPM_START = { app: 'http://localhost:3000', identityAdmin: 'http://localhost:4434', documentApp: 'http://localhost:4700' } as const;

/** Variables naming an address or a service the local product configures itself: never passed on. */
const OURS =
  /^(PORT|HOST|PUBLIC_URL|KRATOS_|HYDRA_|BACKEND_|OAUTH2_|IDENTITY_|DOCUMENT_APP|AVATAR_|OIDC_|GOOGLE_|GATEWAY_|ASSETS_DIR|RECAPTCHA_|CAPTCHA_|REDIS_URL|SOCKET_URL|FORCE_RELOAD|GTM_|LOG_SERVICE_URL|BRAND_)/;

/** The environment without our variables: what a person's shell running npm start has. */
export const plainEnvironment = (): Record<string, string | undefined> => Object.fromEntries(Object.entries(process.env).filter(([name]) => !OURS.test(name)));

export function useNpmStart(): { output(): string } {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'accounts-npm-start-'));
  let child: ChildProcess | undefined;
  let output = '';
  let releasePorts: (() => void) | undefined;

  beforeAll(async () => {
    releasePorts = await holdFixedPorts();
    child = spawn(process.execPath, ['scripts/start.ts'], {
      cwd: REPO,
      env: {
        ...plainEnvironment(),
        IDENTITY_DATA_DIR: dataDir,
        BACKEND_DATA_DIR: dataDir,
        OAUTH2_DATABASE: path.join(dataDir, 'oauth2.sqlite'),
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    await vi.waitFor(
      async () => {
        if (child!.exitCode !== null) throw new Error(`npm start exited (${child!.exitCode}):\n${output}`);
        expect((await fetch(`${NPM_START.app}/readyz`)).status).toBe(200);
      },
      { timeout: 60_000, interval: 200 },
    );
  }, 25 * 60_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    releasePorts?.();
    rmSync(dataDir, { recursive: true, force: true });
  }, 30_000);

  return { output: () => output };
}
