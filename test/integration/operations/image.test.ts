import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { PATH_WITH_THIS_NODE, REPO, startProcess, type RunningServer } from '../../support/app.ts';

// The container image, without Docker: the Dockerfile's steps (scripts/image-steps.sh) run into a
// temporary directory, and the result is started as production exactly as the image's CMD would.

const STEPS = path.join(REPO, 'scripts/image-steps.sh');
const work = mkdtempSync(path.join(tmpdir(), 'accounts-image-'));
const appDir = path.join(work, 'app');
let server: RunningServer | undefined;
let kratos: http.Server | undefined;

afterAll(async () => {
  await server?.stop();
  kratos?.close();
  rmSync(work, { recursive: true, force: true });
});

const run = promisify(execFile);
// npm may reuse its cache (warm after the main install); it still fetches what is missing.
const stepEnv = { ...process.env, PATH: PATH_WITH_THIS_NODE, NPM_CONFIG_PREFER_OFFLINE: 'true', NPM_CONFIG_UPDATE_NOTIFIER: 'false' };

function dockerfileInstruction(name: string): string[] {
  const text = readFileSync(path.join(REPO, 'Dockerfile'), 'utf8').replace(/\\\n\s*/g, ' ');
  const line = text.split('\n').find((entry) => entry.startsWith(`${name} `));
  if (!line) throw new Error(`Dockerfile has no ${name}`);
  return JSON.parse(line.slice(line.indexOf('[')));
}

describe('image steps outside Docker', () => {
  it('build and assemble give a runtime directory with production dependencies only', async () => {
    await run(STEPS, ['build', path.join(work, 'dist')], { cwd: REPO, env: stepEnv });
    await run(STEPS, ['assemble', appDir, path.join(work, 'dist')], { cwd: REPO, env: stepEnv, maxBuffer: 16 * 1024 * 1024 });
    for (const needed of [
      'dist/server.js',
      'dist/public/manifest.json',
      'locales/en/common.json',
      'node_modules/express',
      'node_modules/react-dom',
      'node_modules/connect-redis',
    ]) {
      expect(existsSync(path.join(appDir, needed)), needed).toBe(true);
    }
    for (const devOnly of ['vitest', 'esbuild', 'playwright', 'supertest', 'node', 'pino-pretty', 'autocannon', '@types/express']) {
      expect(existsSync(path.join(appDir, 'node_modules', devOnly)), devOnly).toBe(false);
    }
    expect(existsSync(path.join(appDir, 'embedded'))).toBe(false);
  }, 120_000);

  it('starts as production with the required variables, passes the HEALTHCHECK, and exits 0 on SIGTERM', async () => {
    expect(dockerfileInstruction('CMD')).toEqual(['node', 'dist/server.js']);
    expect(readFileSync(STEPS, 'utf8')).toContain('exec node dist/server.js');

    // Readiness needs the identity service: a stand-in that answers Kratos's /health/ready.
    kratos = http.createServer((_req, res) => res.end('{"status":"ok"}'));
    await new Promise<void>((resolve) => kratos!.listen(0, '127.0.0.1', resolve));
    const kratosUrl = `http://127.0.0.1:${(kratos.address() as AddressInfo).port}`;
    server = await startProcess(
      STEPS,
      ['start'],
      {
        NODE_ENV: 'production',
        SESSION_SECRET: 'image-test-secret-that-is-long-enough-0123',
        PUBLIC_URL: 'https://accounts.example.com',
        KRATOS_PUBLIC_URL: kratosUrl,
      },
      appDir,
    );
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    const page = await fetch(`${server.url}/missing`, { headers: { 'Accept-Language': 'fr' } });
    expect(page.status).toBe(404);
    expect(await page.text()).toContain('Page introuvable');
    expect(page.headers.get('content-security-policy')).toContain("'strict-dynamic'");
    expect(page.headers.get('content-security-policy')).toContain('upgrade-insecure-requests');
    // Test hooks do not exist in production.
    expect((await fetch(`${server.url}/__test/crash`)).status).toBe(404);

    // The Dockerfile's HEALTHCHECK command, as Docker would run it inside the container.
    const [command, ...args] = dockerfileInstruction('HEALTHCHECK');
    expect(command).toBe('node');
    const port = new URL(server.url).port;
    const probe = () =>
      run(process.execPath, args, { env: { PATH: PATH_WITH_THIS_NODE, PORT: port } }).then(
        () => 0,
        (error: { code?: number }) => error.code ?? 1,
      );
    expect(await probe()).toBe(0);

    const signalledAt = Date.now();
    server.child.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalledAt).toBeLessThan(5_000);
    expect(await probe()).toBe(1); // and it does fail when nothing answers
  }, 60_000);
});
