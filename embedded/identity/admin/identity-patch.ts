// Admin API: PATCH /admin/identities/{id} with a JSON Patch (RFC 6902), applied by the rfc6902 library to
// the identity's patchable document; the result then goes through the same checks as a PUT.
import { applyPatch, type Operation } from 'rfc6902';
import { errors } from '../errors.ts';
import { json, readJsonAny, type Ctx, type Reply } from '../http.ts';
import { adminIdentity } from '../identities.ts';
import { nowIso, type Service } from '../service.ts';
import { applyBody } from './identities.ts';
import { loadIdentity } from './request.ts';

const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'constructor', 'prototype']);

function pointerSegments(path: unknown): string[] {
  if (typeof path !== 'string' || (path !== '' && !path.startsWith('/'))) throw errors.badRequest(`Invalid JSON pointer "${String(path)}".`);
  return path === ''
    ? []
    : path
        .slice(1)
        .split('/')
        .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Checks what the library leaves to us: the operations' shape and the paths Kratos refuses to patch. */
function checkOperation(op: unknown): Operation {
  if (typeof op !== 'object' || op === null || Array.isArray(op)) throw errors.badRequest('Invalid JSON patch operation.');
  const o = op as Record<string, unknown>;
  const parts = pointerSegments(o.path);
  const from = o.op === 'copy' || o.op === 'move' ? pointerSegments(o.from) : [];
  if ([...parts, ...from].some((p) => FORBIDDEN_SEGMENTS.has(p))) throw errors.badRequest('Invalid JSON pointer.');
  if (parts[0] === 'id' || (parts[0] === 'credentials' && (parts[1] === 'oidc' || parts[1] === 'saml'))) {
    throw errors.badRequest(`patch includes denied path: ${String(o.path)}`);
  }
  if (parts.length === 0 && o.op !== 'test') throw errors.badRequest('Cannot replace the whole document.');
  return o as unknown as Operation;
}

function applyJsonPatch(doc: Record<string, unknown>, ops: unknown): void {
  if (!Array.isArray(ops)) throw errors.badRequest('The JSON patch must be an array of operations.');
  // One operation at a time: RFC 6902 stops at the first failing operation.
  for (const raw of ops) {
    const op = checkOperation(raw);
    const [failure] = applyPatch(doc, [op]);
    if (!failure) continue;
    if (failure.name === 'TestError') throw errors.badRequest(`The test operation on "${op.path}" failed.`);
    if ('path' in failure) throw errors.badRequest(`The path "${failure.path}" does not exist.`);
    throw errors.badRequest(`Unsupported or incomplete JSON patch operation "${String(op.op)}".`);
  }
}

export async function patchIdentity(svc: Service, ctx: Ctx): Promise<Reply> {
  const i = loadIdentity(svc, ctx.params.id);
  const ops = await readJsonAny(ctx.req);
  const doc: Record<string, unknown> = {
    schema_id: i.schema_id,
    state: i.state,
    traits: structuredClone(i.traits),
    metadata_public: i.metadata_public ?? null,
    metadata_admin: i.metadata_admin ?? null,
    external_id: i.external_id,
    verifiable_addresses: structuredClone(i.verifiable_addresses),
    recovery_addresses: structuredClone(i.recovery_addresses),
  };
  applyJsonPatch(doc, ops);
  const body: Record<string, unknown> = { ...doc };
  if (body.external_id === undefined) delete body.external_id;
  await applyBody(svc, i, body, false);
  i.updated_at = nowIso(svc);
  if (!svc.store.saveIdentity(i)) throw errors.conflict('This identity conflicts with another identity that already exists.');
  return json(200, adminIdentity(svc, i));
}
