// `npm run invite` (scripts/invite.ts, issue #16 item 13): the command's function makes an invitation at the
// backend, the backend mails it (to the identity stand-in's mailbox, as under `npm start`; on real Kratos to
// a mail catcher standing in for its mail sidecar, as under `start:ory`), and the invited person signs up
// from the mailed link. On the stand-in and on real Kratos.
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { startBackend, type RunningBackend } from '../../../embedded/backend/index.ts';
import { invite, InviteError } from '../../../scripts/invite.ts';
import { backendEnv, LOCAL_BACKEND_ADMIN_KEY, LOCAL_PRODUCT } from '../../../scripts/local-product.ts';
import { ROUTES } from '../../../core/routes.ts';
import { findIdentity, latestLink, signIn, uniqueEmail } from '../../support/fixtures.ts';
import { Browser, hiddenValue } from '../../support/http.ts';
import { onRealKratos } from '../../support/stack.ts';
import { startProfileStack, useProfileUsers, type ProfileStack } from '../profile/profile-stack.ts';

const KEY = 'invite-command-admin-key';
const PASSWORD = 'Lantern-Meadow-Copper-41';

type Mail = { recipient: string; template_type: string; subject: string; body: string };

/** What real Kratos's mail sidecar does for start:ory: takes the posted message and keeps it. */
async function startMailCatcher(): Promise<{ url: string; mails: Mail[]; close(): Promise<void> }> {
  const mails: Mail[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      mails.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Mail);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mail`;
  return { url, mails, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

let env: ProfileStack;
let backend: RunningBackend;
let catcher: Awaited<ReturnType<typeof startMailCatcher>> | undefined;
beforeAll(async () => {
  env = await startProfileStack();
  catcher = onRealKratos ? await startMailCatcher() : undefined;
  // A backend wired as `npm start` wires it: its admin key, the app's invitation page, a mail URL.
  backend = await startBackend({
    port: 0,
    database: ':memory:',
    identityPublicUrl: env.stack.identity.publicUrl,
    identityAdminUrl: env.identityAdminUrl,
    ...env.stack.tokenTrust,
    adminApiKey: KEY,
    invitationUrl: new URL(ROUTES.invitation, env.appUrl).href,
    mailUrl: catcher?.url ?? `${env.identityAdminUrl}/mailbox`,
  });
  env.backendProxy.target = backend.url;
});
afterAll(async () => {
  await env?.close();
  await backend?.close();
  await catcher?.close();
});
const { identities } = useProfileUsers(() => env);

/** The link of the newest invitation mailed to `email`. */
async function mailedLink(email: string): Promise<string> {
  if (!catcher) return latestLink(env.identityAdminUrl, email, 'invitation');
  return vi.waitFor(() => {
    const mail = catcher!.mails.filter((m) => m.recipient === email && m.template_type === 'invitation').at(-1);
    const link = /https?:\/\/\S+/.exec(mail?.body ?? '')?.[0];
    if (!link) throw new Error(`no invitation mailed to ${email}`);
    return link;
  });
}

describe('npm run invite', () => {
  test('the mail arrives, and the invited person signs up from its link', async () => {
    const email = uniqueEmail('invited-by-command');
    identities.track(email);
    const invited = await invite(email, { backendUrl: backend.url, adminKey: KEY, invitedBy: 'Olga Operator' });
    expect(invited).toMatchObject({ email, mailed: true });
    const link = await mailedLink(email);
    expect(link).toBe(invited.link);
    expect(link.startsWith(`${env.appUrl}${ROUTES.invitation}?token=`)).toBe(true);
    if (!catcher) {
      // Under npm start the mail is on the mailbox page beside the identity service's own.
      const page = await (await fetch(`${env.identityAdminUrl}/mailbox?to=${encodeURIComponent(email)}`)).text();
      expect(page).toContain('You are invited to create an account');
      expect(page).toContain('Olga Operator');
    }

    const browser = new Browser(env.appUrl);
    const opened = await browser.get(link.slice(env.appUrl.length));
    expect(opened.status).toBe(200);
    expect(opened.text).toContain(`You were invited to create an account with ${email}.`);
    const token = new URL(link).searchParams.get('token')!;
    const answer = await browser.post(ROUTES.invitation, {
      _csrf: hiddenValue(opened.text, '_csrf')!,
      token,
      name: 'Ines Invited',
      password: PASSWORD,
      terms: 'on',
    });
    expect(answer.status).toBe(303);
    expect(answer.location).toBe('/');
    expect(await findIdentity(env.identityAdminUrl, email)).toBeDefined();
    expect((await signIn(new Browser(env.appUrl), email, PASSWORD)).status).toBe(303);
  });

  test('a wrong admin key or an unreachable backend is a clear error', async () => {
    await expect(invite('someone@example.com', { backendUrl: backend.url, adminKey: 'wrong' })).rejects.toThrow(/refused \(401 unauthorized\)/);
    await expect(invite('not-an-address', { backendUrl: backend.url, adminKey: KEY })).rejects.toBeInstanceOf(InviteError);
    await expect(invite('someone@example.com', { backendUrl: 'http://127.0.0.1:9', adminKey: KEY, timeoutMs: 2_000 })).rejects.toThrow(/could not be reached/);
  });

  test('npm start wires the backend as this test does: the key the command sends, the mailbox, the invitation page', () => {
    const wired = backendEnv({ publicUrl: 'http://localhost:4433', adminUrl: 'http://localhost:4434', mailUrl: 'http://localhost:4434/mailbox' });
    expect(wired).toMatchObject({
      BACKEND_ADMIN_API_KEY: LOCAL_BACKEND_ADMIN_KEY,
      BACKEND_MAIL_URL: 'http://localhost:4434/mailbox',
      BACKEND_INVITATION_URL: new URL(ROUTES.invitation, LOCAL_PRODUCT.appUrl).href,
    });
  });

  test('the command line: usage without exactly one address', () => {
    const run = spawnSync('./node_modules/.bin/node', ['scripts/invite.ts'], { encoding: 'utf8', timeout: 30_000 });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('usage: npm run invite -- person@example.com');
  });
});
