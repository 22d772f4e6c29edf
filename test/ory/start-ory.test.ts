// `npm run start:ory` as an operator runs it: the script itself, real Kratos and Hydra, the backend
// stand-in and the built app, wired by the script (moved to free ports through the same variables
// an operator would set). A person signs up, verifies with the mailed code, signs in, and the
// profile page greets them; SIGTERM then stops everything.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../scripts/ory/process.ts';
import { REPO } from '../support/app.ts';
import { Browser, signIn, uniqueEmail, useIdentities } from '../support/fixtures.ts';

let child: ChildProcess;
let output = '';
let appUrl = '';
let kratosAdmin = '';
let backendUrl = '';
const dataDir = mkdtempSync(path.join(tmpdir(), 'accounts-start-ory-'));

beforeAll(async () => {
  const [app, kratosPublic, kratosAdminPort, hydraPublic, hydraAdmin, backend] = await Promise.all(Array.from({ length: 6 }, freePort));
  appUrl = `http://localhost:${app}`;
  kratosAdmin = `http://localhost:${kratosAdminPort}`;
  child = spawn(process.execPath, ['scripts/start-ory.ts'], {
    cwd: REPO,
    env: {
      ...process.env,
      PORT: String(app),
      PUBLIC_URL: appUrl,
      KRATOS_PUBLIC_URL: `http://localhost:${kratosPublic}`,
      KRATOS_ADMIN_URL: kratosAdmin,
      HYDRA_PUBLIC_URL: `http://localhost:${hydraPublic}`,
      HYDRA_ADMIN_URL: `http://localhost:${hydraAdmin}`,
      BACKEND_URL: (backendUrl = `http://localhost:${backend}`),
      ORY_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  await vi.waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`start:ory exited (${child.exitCode}):\n${output}`);
      const ready = await fetch(`${appUrl}/readyz`);
      expect(ready.status).toBe(200);
    },
    { timeout: 60_000, interval: 200 },
  );
}, 90_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGKILL');
  }
  rmSync(dataDir, { recursive: true, force: true });
});

const identities = useIdentities(() => kratosAdmin);

describe('npm run start:ory', () => {
  it('serves the product on real Kratos: sign up, verify with the mailed code, sign in, see the profile', async () => {
    const email = uniqueEmail('start-ory');
    const signedUp = await identities.signUp(appUrl, { email, name: 'Grace', verify: true });
    expect(signedUp.verified).toBe(true);
    // The script prints each mail once the courier delivered it (real Kratos has no mailbox page).
    await vi.waitFor(() => expect(output).toContain(`mail to ${email}`), { timeout: 10_000, interval: 100 });

    const browser = new Browser(appUrl);
    const answer = await signIn(browser, email);
    expect(answer.status).toBe(303);
    const profile = await browser.follow('/profile-settings');
    expect(profile.status).toBe(200);
    expect(profile.text).toContain('Grace');
    expect(profile.text).toContain(email);
    // The backend stand-in listens where the app was told it is, and trusts real Kratos's session JWTs.
    const json = await browser.get(profile.url, { accept: 'application/json' });
    expect(JSON.parse(json.text).user).toMatchObject({ email, name: 'Grace', state: 'active' });
    expect((await fetch(`${backendUrl}/api/openapi.json`)).status).toBe(200);
  });

  it('stops everything on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    await expect(fetch(`${appUrl}/healthz`)).rejects.toThrow();
  }, 20_000);
});
