// `npm run start:ory` as an operator runs it: the script itself, real Kratos and Hydra, the backend
// stand-in and the built app, wired by the script (moved to free ports through the same variables
// an operator would set). A person signs up, verifies with the mailed code, signs in, and the
// profile page greets them; the embedded Google signs a person in through real Kratos (a generic
// provider there); SIGTERM then stops everything.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../scripts/ory/process.ts';
import { REPO } from '../support/app.ts';
import { holdFixedPorts } from '../support/fixed-ports.ts';
import { signInAtProvider } from '../support/providers.ts';
import { Browser, signIn, uniqueEmail, useIdentities } from '../support/fixtures.ts';

let child: ChildProcess;
let output = '';
let appUrl = '';
let kratosAdmin = '';
let kratosPublic = '';
let backendUrl = '';
const dataDir = mkdtempSync(path.join(tmpdir(), 'accounts-start-ory-'));
let releasePorts: (() => void) | undefined;

beforeAll(async () => {
  // The embedded providers keep npm start's fixed ports here too.
  releasePorts = await holdFixedPorts();
  const [app, kratosPublicPort, kratosAdminPort, hydraPublic, hydraAdmin, backend] = await Promise.all(Array.from({ length: 6 }, freePort));
  appUrl = `http://localhost:${app}`;
  kratosAdmin = `http://localhost:${kratosAdminPort}`;
  child = spawn(process.execPath, ['scripts/start-ory.ts'], {
    cwd: REPO,
    env: {
      ...process.env,
      PORT: String(app),
      PUBLIC_URL: appUrl,
      KRATOS_PUBLIC_URL: (kratosPublic = `http://localhost:${kratosPublicPort}`),
      KRATOS_ADMIN_URL: kratosAdmin,
      HYDRA_PUBLIC_URL: `http://localhost:${hydraPublic}`,
      HYDRA_ADMIN_URL: `http://localhost:${hydraAdmin}`,
      BACKEND_URL: (backendUrl = `http://localhost:${backend}`),
      ORY_DATA_DIR: dataDir,
      // The sign-up below is HTTP, with no browser to tick the captcha: off here (npm start's browser
      // journey, test/e2e/npm-start.test.ts, signs up through the widget).
      RECAPTCHA_SITE_KEY: '',
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
}, 25 * 60_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
  releasePorts?.();
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
    // Kratos serves its SQLite file in write-ahead-log mode (scripts/ory/process.ts servedSqliteDsn): the
    // courier's writes stalled a user's far less often (figures there). The mode is kept in the file itself.
    const kratosFile = new DatabaseSync(path.join(dataDir, 'kratos', 'kratos.sqlite'), { readOnly: true });
    expect(kratosFile.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    kratosFile.close();

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

  it('signs in with the embedded Google through real Kratos: the provider buttons, 422 to the provider, back with an account', async () => {
    const cookies = new Map<string, string>();
    const call = async (url: string, init: { method?: string; json?: unknown; accept?: string } = {}) => {
      const response = await fetch(url, {
        method: init.method ?? 'GET',
        redirect: 'manual',
        headers: {
          accept: init.accept ?? 'application/json',
          cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; '),
          ...(init.json ? { 'content-type': 'application/json' } : {}),
        },
        body: init.json ? JSON.stringify(init.json) : undefined,
      });
      for (const line of response.headers.getSetCookie()) {
        const [pair = ''] = line.split(';');
        cookies.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
      }
      return response;
    };
    type Flow = { ui: { action: string; nodes: { attributes: { name?: string; value?: string } }[] } };
    const signInWithGoogle = async (email: string) => {
      const flow = (await (await call(`${kratosPublic}/self-service/login/browser`)).json()) as Flow;
      const field = (name: string) => flow.ui.nodes.filter((n) => n.attributes.name === name).map((n) => String(n.attributes.value));
      expect(field('provider').sort()).toEqual(['apple', 'dropbox', 'google', 'microsoft']);
      const submit = await call(flow.ui.action, { method: 'POST', json: { csrf_token: field('csrf_token')[0], method: 'oidc', provider: 'google' } });
      expect(submit.status).toBe(422);
      const { redirect_browser_to: authorizeUrl } = (await submit.json()) as { redirect_browser_to: string };
      // npm start's Google, on its port: Kratos found it by discovery at its issuer.
      expect(new URL(authorizeUrl).origin).toBe('http://localhost:4601');
      const back = await signInAtProvider(authorizeUrl, { email });
      // The provider sends the browser back: a navigation.
      const callback = await call(back.url, { accept: 'text/html' });
      expect(callback.status).toBe(303);
      expect(callback.headers.get('location')).toBe(`${appUrl}/`);
    };
    const email = uniqueEmail('start-ory-google');
    // The first time registers (login → registration), the second signs in.
    await signInWithGoogle(email);
    const [identity] = (await (await fetch(`${kratosAdmin}/admin/identities?credentials_identifier=${encodeURIComponent(email)}`)).json()) as {
      traits: Record<string, string>;
      verifiable_addresses: { verified: boolean }[];
    }[];
    expect(identity?.traits).toMatchObject({ email, loginService: 'GOOGLE' });
    expect(identity?.verifiable_addresses[0]?.verified).toBe(true);
    cookies.clear();
    await signInWithGoogle(email);
    const whoami = (await (await call(`${kratosPublic}/sessions/whoami`)).json()) as { authentication_methods: { method: string; provider?: string }[] };
    expect(whoami.authentication_methods).toEqual([expect.objectContaining({ method: 'oidc', provider: 'google' })]);
  });

  it('stops everything on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    await expect(fetch(`${appUrl}/healthz`)).rejects.toThrow();
  }, 20_000);
});
