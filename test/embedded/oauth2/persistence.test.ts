// The OAuth2 stand-in keeps its state in SQLite: with a file database, clients, tokens and the signing
// key survive a restart (tokens issued before still introspect as active, the JWKS is the same), and
// main.ts runs it from the environment and stops on SIGTERM.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { startOAuth2Provider } from '../../../embedded/oauth2/index.ts';
import { createClient, exchangeCode, newBrowser, param, runFlow, UI } from './support.ts';

const dir = mkdtempSync(join(tmpdir(), 'oauth2-standin-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('persistence', () => {
  it('keeps clients, tokens and keys across a restart', async () => {
    const database = join(dir, 'oauth2.sqlite');
    const first = await startOAuth2Provider({ database, urls: UI });
    const client = await createClient(first);
    const { final } = await runFlow(first, newBrowser(first), client.id);
    const tokens = await exchangeCode(first, client, param(final.location, 'code'));
    const jwks = await (await fetch(`${first.publicUrl}/.well-known/jwks.json`)).json();
    await first.close();

    // New ports: fetch's pooled connections to the old ones are gone with the first process.
    const second = await startOAuth2Provider({ database, urls: UI });
    try {
      expect(await (await fetch(`${second.publicUrl}/.well-known/jwks.json`)).json()).toEqual(jwks);
      const introspection = await fetch(`${second.adminUrl}/admin/oauth2/introspect`, {
        method: 'POST',
        body: new URLSearchParams({ token: tokens.body.access_token }),
      });
      expect(await introspection.json()).toMatchObject({ active: true, client_id: client.id, sub: 'user-1' });
      expect((await fetch(`${second.adminUrl}/admin/clients/${client.id}`)).status).toBe(200);
    } finally {
      await second.close();
    }
  });

  it('runs from main.ts with the environment and stops on SIGTERM', async () => {
    const [publicPort, adminPort] = [await freePort(), await freePort()];
    const child = spawn(process.execPath, ['embedded/oauth2/main.ts'], {
      env: {
        ...process.env,
        OAUTH2_PUBLIC_PORT: String(publicPort),
        OAUTH2_ADMIN_PORT: String(adminPort),
        OAUTH2_DATABASE: ':memory:',
        APP_URL: 'http://app.test',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', () => output.includes('\n') && resolve());
      child.once('exit', (code) => reject(new Error(`main.ts exited (${code}): ${output}`)));
    });
    expect(output).toContain(`public http://localhost:${publicPort}`);
    const discovery = (await (await fetch(`http://127.0.0.1:${publicPort}/.well-known/openid-configuration`)).json()) as { issuer: string };
    expect(discovery.issuer).toBe(`http://localhost:${publicPort}/`);
    const health = await fetch(`http://127.0.0.1:${adminPort}/health/ready`);
    expect(health.status).toBe(200);
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
