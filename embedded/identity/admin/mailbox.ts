// GET /mailbox on the admin listener: the courier's messages as a readable page, for people trying the
// product locally without an SMTP server.
import { KratosError } from '../errors.ts';
import type { Ctx, Reply } from '../http.ts';
import type { Service } from '../service.ts';
import type { CourierMessage } from '../store.ts';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const linkify = (s: string) => esc(s).replace(/(https?:\/\/[^\s<]+)/g, '<a href="$1">$1</a>');

const text = (v: unknown, max: number) => (typeof v === 'string' && v.length > 0 && v.length <= max ? v : undefined);

/**
 * POST /mailbox: a message from another local stand-in (the backend's invitations), in the shape Kratos's
 * HTTP courier delivers ({ recipient, template_type, subject, body }), sent through this courier: it is
 * stored (and listed by /admin/courier/messages and the page) and, with an SMTP URL, sent. Not a Kratos API.
 */
async function deliver(svc: Service, ctx: Ctx): Promise<Reply> {
  const input = await ctx.body();
  const to = text(input.recipient, 320);
  const subject = text(input.subject, 200);
  const body = text(input.body, 20_000);
  const templateType = text(input.template_type, 64) ?? 'external';
  if (!to || !/^[^@\s]+@[^@\s]+$/.test(to) || !subject || !body) throw new KratosError(400, { reason: 'Send recipient, subject and body.' });
  const message = svc.courier.send({ to: to.toLowerCase(), subject, body, template_type: templateType });
  return { status: 200, body: { id: message.id } };
}

/** GET /mailbox: every stored e-mail, newest first, for people trying the product locally. POST: see deliver. */
export async function mailbox(svc: Service, ctx: Ctx): Promise<Reply> {
  if (ctx.method === 'POST') return deliver(svc, ctx);
  const to = ctx.query.get('to') ?? undefined;
  const list: CourierMessage[] = svc.store.listMessages(to).slice(0, 200);
  const items = list
    .map(
      (m) =>
        `<article><header><strong>${esc(m.subject)}</strong><br><small>to ${esc(m.recipient)} · ${esc(m.created_at)} · ${esc(m.template_type)} · ${esc(m.status)}</small></header><pre>${linkify(m.body)}</pre></article>`,
    )
    .join('\n');
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Mailbox · identity stand-in</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#222}article{border:1px solid #ddd;border-radius:8px;padding:1rem;margin:1rem 0}pre{white-space:pre-wrap;background:#f7f7f7;padding:.75rem;border-radius:6px}form{margin:1rem 0}</style></head>
<body><h1>Mailbox</h1><p>E-mails sent by the development identity service (not a production mail system).</p>
<form method="get"><input type="hidden" name="key" value="${esc(ctx.query.get('key') ?? '')}"><label>Recipient <input name="to" value="${esc(to ?? '')}"></label> <button>Filter</button></form>
${items || '<p>No messages yet.</p>'}</body></html>`;
  return { status: 200, html };
}
