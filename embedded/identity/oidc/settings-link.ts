// Settings `link` and `unlink` (strategy_settings.go, v1.3.1). Link: the provider must be configured and
// not linked yet, the session privileged (else session_refresh_required, the change parked), then the
// upstream redirect; the callback links the subject, unless another identity has it. Unlink: privileged
// session, never the last first factor, only a linked provider. Both together: a form error.
import { KratosError } from '../errors.ts';
import type { Flow } from '../flows.ts';
import { str, type Ctx, type Reply } from '../http.ts';
import { countFirstFactors } from '../identities.ts';
import { msg, reasonMessage } from '../messages.ts';
import type { Service } from '../service.ts';
import { currentSession, type Current } from '../sessions.ts';
import { isPrivileged, needsReauth, settingsSuccess } from '../settings.ts';
import { linkedProviders } from '../settings-nodes.ts';
import { configuredProviders, findProvider, linkedProviderIds } from './config.ts';
import { FormFailure, writeFlowError } from './flow-errors.ts';
import { linkCredentials, type OidcLink } from './linking.ts';
import type { Upstream } from './process.ts';
import { redirectUpstream } from './start.ts';

const formError = (reason: string): FormFailure => new FormFailure([reasonMessage(reason)]);

const CANNOT_LINK = 'can not link unknown or already existing OpenID Connect connection';

/** isLinkable: configured, and not linked to this identity yet. */
function linkable(svc: Service, identity: Current['identity'], id: string): boolean {
  return configuredProviders(svc).some((p) => p.id === id) && !linkedProviderIds(identity.credentials).includes(id);
}

async function initLink(svc: Service, ctx: Ctx, f: Flow, cur: Current, body: Record<string, unknown>, pending: Record<string, unknown>, link: string) {
  if (!linkable(svc, cur.identity, link)) return writeFlowError(svc, ctx, f, formError(CANNOT_LINK));
  if (!isPrivileged(svc, cur)) return needsReauth(svc, ctx, f, pending);
  try {
    const p = findProvider(svc, link);
    // The settings container carries the traits, not the transient payload (v1.3.1).
    return await redirectUpstream(svc, ctx, f, p, { traits: body.traits, upstream: body.upstream_parameters });
  } catch (e) {
    return writeFlowError(svc, ctx, f, e);
  }
}

function unlinkProvider(svc: Service, ctx: Ctx, f: Flow, cur: Current, pending: Record<string, unknown>, unlink: string): Reply {
  if (!isPrivileged(svc, cur)) return needsReauth(svc, ctx, f, pending);
  const identity = cur.identity;
  const cred = identity.credentials.oidc;
  if (!cred) return writeFlowError(svc, ctx, f, new KratosError(404, { reason: 'identity does not have credential type oidc' }));
  if (countFirstFactors(identity) < 2) {
    return writeFlowError(svc, ctx, f, formError('can not unlink OpenID Connect connection because it is the last remaining first factor credential'));
  }
  if (!linkedProviders(svc, identity).includes(unlink)) {
    return writeFlowError(svc, ctx, f, formError('can not unlink non-existing OpenID Connect connection'));
  }
  const kept = ((cred.config.providers ?? []) as OidcLink[]).filter((p) => p.provider !== unlink);
  // Kratos marshals the emptied list as null.
  cred.config = { ...cred.config, providers: kept.length ? kept : null };
  cred.identifiers = kept.map((p) => `${p.provider}:${p.subject}`);
  identity.updated_at = new Date(svc.clock.now()).toISOString();
  svc.store.saveIdentity(identity);
  return settingsSuccess(svc, ctx, f, cur, identity);
}

/** A submit the oidc strategy answers: `link` or `unlink`, and not the profile or password method. */
export function isOidcSettingsSubmit(body: Record<string, unknown>): boolean {
  const method = str(body.method);
  return method !== 'profile' && method !== 'password' && Boolean(str(body.link) || str(body.unlink));
}

/** The oidc strategy's part of a settings submit; undefined when it is not responsible (no link, no unlink). */
export async function settingsOidc(
  svc: Service,
  ctx: Ctx,
  f: Flow,
  cur: Current,
  body: Record<string, unknown>,
  pending: Record<string, unknown>,
): Promise<Reply | undefined> {
  const link = str(body.link) ?? '';
  const unlink = str(body.unlink) ?? '';
  if (!link && !unlink) return undefined;
  if (!svc.config.selfservice.methods.oidc.enabled) {
    throw new KratosError(404, {
      reason: 'This endpoint was disabled by system administrator. Please check your url or contact the system administrator to enable it.',
    });
  }
  if (link && unlink) return writeFlowError(svc, ctx, f, formError('it is not possible to link and unlink providers in the same request'));
  return link ? initLink(svc, ctx, f, cur, body, pending, link) : unlinkProvider(svc, ctx, f, cur, pending, unlink);
}

/** linkProvider, on the callback of a settings flow. */
export function linkFromCallback(svc: Service, ctx: Ctx, f: Flow, u: Upstream): Reply {
  // The callback's validateFlow has checked the session is there and is the flow's identity's.
  const cur = currentSession(svc, ctx)!;
  if (!isPrivileged(svc, cur)) return needsReauth(svc, ctx, f, { method: 'oidc', link: u.provider.id, flow: f.id });
  if (!linkable(svc, cur.identity, u.provider.id)) return writeFlowError(svc, ctx, f, formError(CANNOT_LINK));
  const identity = cur.identity;
  linkCredentials(svc, identity, {
    subject: u.claims.sub ?? '',
    provider: u.provider.id,
    initial_id_token: u.tokens?.id_token ?? '',
    initial_access_token: u.tokens?.access_token ?? '',
    initial_refresh_token: u.tokens?.refresh_token ?? '',
  });
  identity.updated_at = new Date(svc.clock.now()).toISOString();
  // Another identity has this subject: the settings hook's update fails as a duplicate (4000007).
  if (!svc.store.saveIdentity(identity)) return writeFlowError(svc, ctx, f, new FormFailure([msg(4000007)]));
  return settingsSuccess(svc, ctx, f, cur, identity);
}
