// The bar of issue #16 item 13 under the exact `npm start` wiring: `npm run invite -- <address>` (the
// script itself, as an operator runs it) makes an invitation, its mail shows in the mailbox at
// http://localhost:4434/mailbox, and the invited person signs up from the mailed link and signs in.
// npm start runs the stand-ins, so this is stand-in only (test/support/npm-start.ts runs it).
import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { REPO } from '../../support/app.ts';
import { signIn, uniqueEmail } from '../../support/fixtures.ts';
import { Browser, hiddenValue } from '../../support/http.ts';
import { NPM_START, plainEnvironment, useNpmStart } from '../../support/npm-start.ts';
import { describeStandInOnly } from '../../support/stack.ts';

const APP = NPM_START.app;
const MAILBOX = `${NPM_START.identityAdmin}/mailbox`;
const PASSWORD = 'Harbor-Thistle-Amber-58';

describeStandInOnly('npm start runs the stand-ins')('npm run invite under npm start', () => {
  useNpmStart();
  const env = plainEnvironment();

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
