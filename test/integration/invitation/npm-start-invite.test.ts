// The bar of issue #16 item 13 under the exact `npm start` wiring: `npm run invite -- <address>` (the
// script itself, as an operator runs it) makes an invitation, its mail shows in the mailbox at
// http://localhost:4434/mailbox, and the invited person signs up from the mailed link and signs in.
// npm start runs the stand-ins, so this is stand-in only; on fixed ports, held like test/e2e/npm-start.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { REPO } from '../../support/app.ts';
import { holdFixedPorts } from '../../support/fixed-ports.ts';
import { signIn, uniqueEmail } from '../../support/fixtures.ts';
import { Browser, hiddenValue } from '../../support/http.ts';
import { describeStandInOnly } from '../../support/stack.ts';

const APP = 'http://localhost:3000';
const MAILBOX = 'http://localhost:4434/mailbox';
/** Variables naming an address: unset, so npm start's own defaults apply (as test/e2e/npm-start.test.ts does). */
const ADDRESS_VARIABLES = /^(PORT|HOST|PUBLIC_URL|KRATOS_|HYDRA_|BACKEND_|OAUTH2_|IDENTITY_|DOCUMENT_APP|AVATAR_|OIDC_|GOOGLE_|GATEWAY_|ASSETS_DIR)/;
const PASSWORD = 'Harbor-Thistle-Amber-58';

describeStandInOnly('npm start runs the stand-ins')('npm run invite under npm start', () => {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !ADDRESS_VARIABLES.test(name)));
  const dataDir = mkdtempSync(path.join(tmpdir(), 'accounts-invite-'));
  let child: ChildProcess | undefined;
  let output = '';
  let releasePorts: (() => void) | undefined;

  beforeAll(async () => {
    releasePorts = await holdFixedPorts();
    child = spawn(process.execPath, ['scripts/start.ts'], {
      cwd: REPO,
      env: { ...env, IDENTITY_DATA_DIR: dataDir, BACKEND_DATA_DIR: dataDir, OAUTH2_DATABASE: path.join(dataDir, 'oauth2.sqlite'), LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    await vi.waitFor(
      async () => {
        if (child!.exitCode !== null) throw new Error(`npm start exited (${child!.exitCode}):\n${output}`);
        expect((await fetch(`${APP}/readyz`)).status).toBe(200);
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
  });

  it('the mail shows in the mailbox, and the invited person signs up from its link', async () => {
    const email = uniqueEmail('npm-invite');
    const run = spawnSync(process.execPath, ['scripts/invite.ts', email, '--by', 'Olga Operator'], { cwd: REPO, env, encoding: 'utf8', timeout: 30_000 });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain(`Invitation for ${email} mailed`);

    const page = await (await fetch(`${MAILBOX}?to=${encodeURIComponent(email)}`)).text();
    expect(page).toContain('You are invited to create an account');
    expect(page).toContain('Olga Operator');
    const link = /http:\/\/localhost:3000\/sign-up\/invitation\?token=[A-Za-z0-9_-]+/.exec(page)![0];
    expect(run.stdout).toContain(link);

    const browser = new Browser(APP);
    const opened = await browser.get(link.slice(APP.length));
    expect(opened.status).toBe(200);
    const token = new URL(link).searchParams.get('token')!;
    const answer = await browser.post('/sign-up/invitation', {
      _csrf: hiddenValue(opened.text, '_csrf')!,
      token,
      name: 'Ines Invited',
      password: PASSWORD,
      terms: 'on',
    });
    expect(answer.status).toBe(303);
    expect((await signIn(new Browser(APP), email, PASSWORD)).status).toBe(303);
  }, 60_000);
});
