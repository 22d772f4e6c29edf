// `npm run invite -- person@example.com [--by "Ada Admin"] [--days 7]`: an operator invites someone. The
// backend makes the invitation (POST /api/admin/invitations with its admin key) and mails the link to the
// app's invitation page; the command prints the link too, so it can be handed over another way.
//
// Reads BACKEND_URL and BACKEND_ADMIN_API_KEY (defaults: the local product's, as `npm start` runs it).
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { LOCAL_BACKEND_ADMIN_KEY, LOCAL_PRODUCT } from './local-product.ts';

export type InviteOptions = { backendUrl: string; adminKey: string; invitedBy?: string; expiresInDays?: number; timeoutMs?: number };
export type Invited = { email: string; link: string; expiresAt: string; mailed: boolean };

export class InviteError extends Error {}

export async function invite(email: string, options: InviteOptions): Promise<Invited> {
  const url = new URL('/api/admin/invitations', options.backendUrl);
  const body = {
    email,
    send: true,
    ...(options.invitedBy ? { invitedBy: options.invitedBy } : {}),
    ...(options.expiresInDays ? { expiresInSeconds: Math.round(options.expiresInDays * 86_400) } : {}),
  };
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${options.adminKey}` },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
  } catch (error) {
    throw new InviteError(`the backend at ${url.origin} could not be reached (${(error as Error).name})`);
  }
  const answer = (await response.json().catch(() => ({}))) as Partial<Invited> & { code?: string; message?: string };
  if (response.status !== 201) throw new InviteError(`the backend refused (${response.status} ${answer.code ?? ''}): ${answer.message ?? 'no reason given'}`);
  return { email: answer.email ?? email, link: String(answer.link), expiresAt: String(answer.expiresAt), mailed: Boolean(answer.mailed) };
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { by: { type: 'string' }, days: { type: 'string' } } });
  const days = values.days === undefined ? undefined : Number(values.days);
  if (positionals.length !== 1 || (days !== undefined && !(days > 0 && days <= 30))) {
    process.stderr.write('usage: npm run invite -- person@example.com [--by "Your Name"] [--days 1-30]\n');
    return 2;
  }
  try {
    const invited = await invite(positionals[0]!, {
      backendUrl: process.env.BACKEND_URL ?? LOCAL_PRODUCT.backendUrl,
      adminKey: process.env.BACKEND_ADMIN_API_KEY ?? LOCAL_BACKEND_ADMIN_KEY,
      invitedBy: values.by,
      expiresInDays: days,
    });
    const mailed = invited.mailed ? 'mailed' : 'NOT mailed (no mail service answered: hand the link over yourself)';
    process.stdout.write(`Invitation for ${invited.email} ${mailed}, valid until ${invited.expiresAt}:\n${invited.link}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`invite: ${(error as Error).message}\n`);
    return 1;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = await main();
