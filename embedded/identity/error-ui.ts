// Errors that are not written into a flow (Kratos's errorx.Manager.Forward): a JSON caller gets the
// error itself; a browser is sent to the error UI with the id of the stored error, whatever its status.
import { randomUUID } from 'node:crypto';
import type { KratosError } from './errors.ts';
import { redirect, type Ctx, type Reply } from './http.ts';
import type { Service } from './service.ts';

/** A time as Go's encoding/json writes it (RFC 3339, fraction without trailing zeros; none when whole). */
export function goTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.?0+Z$/, 'Z');
}

/**
 * Stores a browser-flow error for the error UI, in v1.3.1's field order (id, error, created_at,
 * updated_at); the herodot error alone, without the request id or the extra members of the JSON answer.
 */
export function storeBrowserError(svc: Service, e: KratosError): string {
  const id = randomUUID();
  // Kratos's store stamps rows at microsecond precision; the clock here has milliseconds.
  const now = goTime(svc.clock.now());
  svc.store.saveError(id, { id, error: e.toGeneric(undefined, true), created_at: now, updated_at: now });
  return id;
}

/** The JSON answer of an error (herodot's WriteError). */
export function errorJson(ctx: Ctx, e: KratosError): Reply {
  return { status: e.code, body: e.body(ctx.requestId), headers: { 'Content-Type': 'application/json', 'Ory-Error-Id': e.id ?? '' } };
}

/** errorx.Manager.Forward: JSON for JSON callers, else the error UI. */
export function forwardError(svc: Service, ctx: Ctx, e: KratosError): Reply {
  if (ctx.isJSON) return errorJson(ctx, e);
  const u = new URL(svc.config.selfservice.flows.error.ui_url);
  u.searchParams.set('id', storeBrowserError(svc, e));
  return redirect(303, u.toString());
}
