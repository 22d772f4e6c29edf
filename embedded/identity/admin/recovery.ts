// Admin API (contract §16): recovery links and codes created for an identity.
import { durationMs, parseDuration } from '../config.ts';
import { errors, KratosError } from '../errors.ts';
import { isUuid, json, type Ctx, type Reply } from '../http.ts';
import { flowUiUrl, isReturnToAllowed } from '../flows.ts';
import { adminRecovery } from '../recovery.ts';
import type { Service } from '../service.ts';
import type { StoredIdentity } from '../store.ts';
import { objectBody } from './request.ts';

async function recoveryBody(svc: Service, ctx: Ctx): Promise<{ identity: StoredIdentity | undefined; expiresIn: number; body: Record<string, unknown> }> {
  const body = await objectBody(ctx);
  if (!isUuid(body.identity_id)) throw errors.badRequest('The identity_id must be a UUID.');
  let expiresIn = durationMs(svc.config.selfservice.methods.code.config.lifespan, 3600_000);
  if (body.expires_in !== undefined) {
    const d = parseDuration(String(body.expires_in));
    if (!Number.isFinite(d) || d <= 0) throw errors.badRequest(`Unable to parse "expires_in" duration: ${String(body.expires_in)}`);
    expiresIn = d;
  }
  return { identity: svc.store.getIdentity(body.identity_id), expiresIn, body };
}

export async function createRecoveryLink(svc: Service, ctx: Ctx): Promise<Reply> {
  const rt = ctx.query.get('return_to') ?? undefined;
  if (rt && !isReturnToAllowed(svc, rt)) throw errors.returnToForbidden(rt);
  const { identity, expiresIn } = await recoveryBody(svc, ctx);
  if (!identity) throw errors.badRequest('The requested identity id does not exist.');
  const { flow, secret, expiresAt } = adminRecovery(svc, ctx, identity, 'link', expiresIn, rt);
  return json(200, { recovery_link: `${svc.publicUrl}/self-service/recovery?flow=${flow.id}&token=${secret}`, expires_at: expiresAt });
}

export async function createRecoveryCode(svc: Service, ctx: Ctx): Promise<Reply> {
  const rt = ctx.query.get('return_to') ?? undefined;
  if (rt && !isReturnToAllowed(svc, rt)) throw errors.returnToForbidden(rt);
  const { identity, expiresIn, body } = await recoveryBody(svc, ctx);
  if (!identity) throw new KratosError(404, { reason: 'could not find identity', message: 'Unable to locate the resource' });
  if (body.flow_type !== undefined && body.flow_type !== 'browser' && body.flow_type !== 'api')
    throw errors.badRequest('flow_type must be "browser" or "api".');
  const { flow, secret, expiresAt } = adminRecovery(svc, ctx, identity, 'code', expiresIn, rt);
  return json(201, { recovery_link: flowUiUrl(svc, 'recovery', flow.id), recovery_code: secret, expires_at: expiresAt });
}
