// main.ts runs the service alone from a config file (IDENTITY_CONFIG) and stops cleanly on SIGTERM.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const mainTs = fileURLToPath(new URL('../../../embedded/identity/main.ts', import.meta.url));

describe('main.ts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'identity-main-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the config file, serves both listeners and the mailbox, stops on SIGTERM', async () => {
    const cfg = join(dir, 'identity.yaml');
    writeFileSync(
      cfg,
      [
        'serve:',
        '  public: { host: 127.0.0.1, port: 0 }',
        '  admin: { host: 127.0.0.1, port: 0 }',
        'selfservice:',
        '  flows:',
        '    registration: { style: unified }',
        'hashers:',
        '  argon2: { memory: 64, iterations: 1 }',
      ].join('\n'),
    );
    const child = spawn(process.execPath, [mainTs], {
      env: { ...process.env, IDENTITY_CONFIG: cfg, IDENTITY_DATA_DIR: dir, APP_URL: 'http://app.local:3000' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const line = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d) => {
        out += String(d);
        if (out.includes('\n')) resolve(out);
      });
      child.on('exit', (code) => reject(new Error(`exited ${code}`)));
      setTimeout(() => reject(new Error('no output')), 15_000);
    });
    const [, publicUrl, adminUrl] = /public (\S+), admin (\S+),/.exec(line)!;
    const res = await fetch(`${publicUrl}/self-service/registration/browser`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(/^http:\/\/app\.local:3000\/sign-up\?flow=/);
    const flow = (await (await fetch(`${publicUrl}/self-service/registration/browser`, { headers: { accept: 'application/json' } })).json()) as any;
    expect(flow.ui.nodes.some((n: any) => n.attributes.name === 'password')).toBe(true); // unified style from the file
    expect((await fetch(`${adminUrl}/mailbox`)).status).toBe(200);
    const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });
});
