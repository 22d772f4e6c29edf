// Admin API: the courier's stored messages in Kratos's shape (GET /admin/courier/messages[/{id}]).
import { errors } from '../errors.ts';
import { isUuid, json, type Ctx, type Reply } from '../http.ts';
import type { Service } from '../service.ts';

export async function listCourierMessages(svc: Service, ctx: Ctx): Promise<Reply> {
  const status = ctx.query.get('status');
  if (status && !['queued', 'processing', 'sent', 'abandoned'].includes(status)) throw errors.badRequest(`Invalid courier message status "${status}".`);
  let list = svc.store.listMessages(ctx.query.get('recipient') ?? undefined);
  if (status) list = list.filter((m) => m.status === status);
  const pageSize = Math.min(Math.max(Number(ctx.query.get('page_size') ?? 250) || 250, 1), 1000);
  const token = ctx.query.get('page_token');
  let start = 0;
  if (token) {
    const idx = list.findIndex((m) => m.id === token);
    start = idx >= 0 ? idx : list.length;
  }
  const headers: Record<string, string> = {};
  const next = list[start + pageSize];
  if (next) headers.Link = `<${svc.adminUrl}/admin/courier/messages?page_size=${pageSize}&page_token=${next.id}>; rel="next"`;
  // v1.3.1 lists messages without their dispatches (only GET /admin/courier/messages/{id} loads them).
  return json(
    200,
    list.slice(start, start + pageSize).map(({ dispatches: _d, ...m }) => m),
    headers,
  );
}

export async function getCourierMessage(svc: Service, ctx: Ctx): Promise<Reply> {
  if (!isUuid(ctx.params.id)) throw errors.badRequest('The message ID is not a valid UUID.');
  const m = svc.store.getMessage(ctx.params.id);
  if (!m) throw errors.notFound();
  return json(200, m);
}
