// What the admin handlers share: the identity named in the path, the JSON body, include_credential.
import { errors, KratosError } from '../errors.ts';
import { isUuid, type Ctx } from '../http.ts';
import type { Service } from '../service.ts';
import type { StoredIdentity } from '../store.ts';

export function includeList(ctx: Ctx): string[] {
  return ctx.query
    .getAll('include_credential')
    .flatMap((v) => v.split(','))
    .filter(Boolean);
}

export function loadIdentity(svc: Service, id: string | undefined): StoredIdentity {
  if (!isUuid(id)) throw errors.notFound();
  const i = svc.store.getIdentity(id);
  if (!i) throw errors.notFound();
  return i;
}

export async function objectBody(ctx: Ctx): Promise<Record<string, unknown>> {
  const ct = (ctx.req.headers['content-type'] ?? '').toLowerCase().split(';')[0]!.trim();
  if (ct && ct !== 'application/json') {
    throw new KratosError(415, { reason: `Unable to decode body because HTTP Request Content-Type "${ct}" is not supported.` });
  }
  return ctx.body();
}
