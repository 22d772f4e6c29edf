import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('backend stand-in: main.ts runs standalone from environment variables', () => {
  it('starts, answers, and stops cleanly on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'backend-main-'));
    const child = spawn(process.execPath, ['embedded/backend/main.ts'], {
      cwd: join(import.meta.dirname, '../../..'),
      env: {
        ...process.env,
        BACKEND_PORT: '0',
        BACKEND_DATA_DIR: dataDir,
        IDENTITY_PUBLIC_URL: 'http://127.0.0.1:9',
        IDENTITY_ADMIN_URL: 'http://127.0.0.1:9',
        BACKEND_LOCATION_COUNTRY_HEADER: 'x-geo-country',
        BACKEND_PURGE_INTERVAL_MS: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString();
          const m = /listening on (http:\/\/[^\s]+)/.exec(out);
          if (m) resolve(m[1]!);
        });
        child.on('exit', (code) => reject(new Error(`exited ${code}`)));
        setTimeout(() => reject(new Error('no start within 10 s')), 10_000);
      });
      expect(await (await fetch(`${url}/api/health`)).json()).toEqual({ status: 'ok' });
      const loc = await fetch(`${url}/api/user/user-location`, { headers: { 'x-geo-country': 'fr' } });
      expect(await loc.json()).toEqual({ countryCode: 'FR', regionName: 'unknown' });
      expect(existsSync(join(dataDir, 'backend.sqlite'))).toBe(true);
      const exitCode = await new Promise<number | null>((resolve) => {
        child.on('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      });
      expect(exitCode).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
