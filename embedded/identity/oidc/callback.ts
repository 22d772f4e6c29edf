// The callback the provider sends the browser to (Strategy.HandleCallback and ValidateCallback, v1.3.1):
// GET /self-service/methods/oidc/callback/{provider} (and /callback, for `pkce: force`). A POST there
// (Apple's form_post) is answered with a 302 to the same URL as a GET, the form fields in the query, so
// the browser brings its SameSite=Lax cookies. Failures before the flow is known go to the error UI;
// later ones are written into the flow (see flow-errors.ts).
import { resume } from '../continuity.ts';
import { forwardError } from '../error-ui.ts';
import { errors, KratosError } from '../errors.ts';
import { isExpired, loadFlow, returnUrl, type Flow } from '../flows.ts';
import { isUuid, redirect, str, type Ctx, type Reply } from '../http.ts';
import { goEncodeQuery } from '../request-url.ts';
import type { Service } from '../service.ts';
import { currentSession } from '../sessions.ts';
import { validateClaims } from './claims.ts';
import { CALLBACK_PATH, findProvider } from './config.ts';
import { exchangeCode } from './exchange.ts';
import { writeFlowError } from './flow-errors.ts';
import { processLogin, processRegistration, registrationError, type Upstream } from './process.ts';
import { linkFromCallback } from './settings-link.ts';
import { CONTINUITY_NAME, type AuthCodeContainer } from './start.ts';
import { decryptState } from './state.ts';

const bad = (reason: string): KratosError => new KratosError(400, { reason });

/** strategy.IsDisabled: the callback is gone while the oidc method is off. */
function disabled(): KratosError {
  return new KratosError(404, {
    reason: 'This endpoint was disabled by system administrator. Please check your url or contact the system administrator to enable it.',
  });
}

/** Kratos's 410 for an expired flow met here (NewFlowExpiredError; not tied to a replacement flow). */
function expired(svc: Service, f: Flow): KratosError {
  const minutes = (svc.clock.now() - new Date(f.expires_at).getTime()) / 60000;
  return new KratosError(410, {
    id: 'self_service_flow_expired',
    reason: `The self-service flow expired ${minutes.toFixed(2)} minutes ago, initialize a new one.`,
    message: 'self-service flow expired',
  });
}

/** validateFlow: the registration, login or settings flow of the state's flow id. */
function validateFlow(svc: Service, ctx: Ctx, id: string): Flow {
  if (!isUuid(id)) throw bad('The session cookie contains invalid values and the flow could not be executed. Please try again.');
  for (const kind of ['registration', 'login'] as const) {
    const f = loadFlow(svc, kind, id);
    if (f) {
      if (isExpired(svc, f)) throw expired(svc, f);
      return f;
    }
  }
  const f = loadFlow(svc, 'settings', id);
  if (!f) throw errors.notFound();
  const cur = currentSession(svc, ctx);
  if (!cur) throw errors.sessionInactive();
  if (isExpired(svc, f)) throw expired(svc, f);
  if (f.identity_id !== cur.identity.id) {
    throw new KratosError(403, {
      id: 'security_identity_mismatch',
      reason: 'The request was initiated by someone else and has been blocked for security reasons. Please go back and try again.',
    });
  }
  return f;
}

/** redirectToGET: 302 to the same path on the public URL, the posted fields set in the query. */
async function redirectToGet(svc: Service, ctx: Ctx): Promise<Reply> {
  // Only Apple's callback path is exempt from the anti-CSRF check (v1.3.1 IgnorePath …/callback/apple).
  const body = await ctx.body();
  if (ctx.params.provider !== 'apple') svc.csrf.verifyBody(ctx, body.csrf_token ?? str(ctx.req.headers['x-csrf-token']));
  const q = new URLSearchParams(ctx.query);
  for (const [k, v] of Object.entries(body)) if (typeof v === 'string') q.set(k, v);
  const query = goEncodeQuery(q);
  return redirect(302, `${svc.publicUrl}${ctx.path}${query ? `?${query}` : ''}`);
}

/** A failure once the flow is known: a registration flow loses its form to the "Continue" button. */
function flowError(svc: Service, ctx: Ctx, f: Flow, providerId: string, e: unknown): Reply {
  return f.kind === 'registration' ? registrationError(svc, ctx, f, providerId, e) : writeFlowError(svc, ctx, f, e);
}

export async function oidcCallback(svc: Service, ctx: Ctx): Promise<Reply> {
  if (!svc.config.selfservice.methods.oidc.enabled && ctx.method === 'GET') return forwardError(svc, ctx, disabled());
  if (ctx.method === 'POST') return redirectToGet(svc, ctx);
  const q = ctx.query;
  const code = q.get('code') || q.get('authCode') || '';
  const stateParam = q.get('state') ?? '';
  const errorParam = q.get('error') ?? '';
  if (!stateParam)
    return forwardError(svc, ctx, bad('Unable to complete OpenID Connect flow because the OpenID Provider did not return the state query parameter.'));
  const state = decryptState(svc, stateParam);
  if (!state) return forwardError(svc, ctx, bad('Unable to complete OpenID Connect flow because the state parameter is invalid.'));
  const fromUrl = ctx.params.provider ?? '';
  if (fromUrl && state.providerId && state.providerId !== fromUrl) {
    return forwardError(svc, ctx, bad('Unable to complete OpenID Connect flow: provider mismatch between internal state and URL.'));
  }
  const providerId = state.providerId || fromUrl;
  if (!providerId) return forwardError(svc, ctx, bad('Unable to complete OpenID Connect flow: provider could not be retrieved from state nor URL.'));
  let f: Flow;
  let container: AuthCodeContainer;
  try {
    f = validateFlow(svc, ctx, state.flowId);
    // The container stays usable for another minute (WithExpireInsteadOfDelete), so a repeated callback is told apart below.
    container = resume<AuthCodeContainer>(svc, ctx, CONTINUITY_NAME, { expireInMs: 60_000 }).payload;
  } catch (e) {
    return forwardError(svc, ctx, e instanceof KratosError ? e : new KratosError(500, {}));
  }
  if (stateParam !== container.state) {
    return forwardError(
      svc,
      ctx,
      bad('Unable to complete OpenID Connect flow because the query state parameter does not match the state parameter from the session cookie.'),
    );
  }
  if (errorParam) {
    const reason = `Unable to complete OpenID Connect flow because the OpenID Provider returned error "${errorParam}": ${q.get('error_description') ?? ''}`;
    return flowError(svc, ctx, f, providerId, bad(reason));
  }
  if (!code)
    return flowError(
      svc,
      ctx,
      f,
      providerId,
      bad('Unable to complete OpenID Connect flow because the OpenID Provider did not return the code query parameter.'),
    );
  // alreadyAuthenticated: a signed-in browser just goes on (not for settings or a refresh).
  if (f.kind !== 'settings' && !f.refresh && currentSession(svc, ctx)) return redirect(303, returnUrl(svc, f));
  let u: Upstream;
  try {
    const p = findProvider(svc, providerId);
    const { claims, tokens } = await exchangeCode(svc, p, q, stateParam, state.pkceVerifier);
    const invalid = validateClaims(claims);
    if (invalid) throw invalid;
    u = { provider: p, claims, tokens, container: { traits: container.traits, transient_payload: container.transient_payload } };
  } catch (e) {
    return flowError(svc, ctx, f, providerId, e);
  }
  f.active = 'oidc';
  if (container.transient_payload !== undefined) f.transient_payload = container.transient_payload;
  if (f.kind === 'login') return processLogin(svc, ctx, f, u);
  if (f.kind === 'registration') return processRegistration(svc, ctx, f, u);
  return linkFromCallback(svc, ctx, f, u);
}

export const CALLBACK_ROUTES = { provider: `${CALLBACK_PATH}/:provider`, generic: CALLBACK_PATH } as const;
