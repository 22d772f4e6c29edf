// Submitting `method=oidc` + `provider` on a login or registration flow (Strategy.Login / Register,
// v1.3.1), and the upstream redirect settings `link` shares: the encrypted state (with the PKCE verifier
// when the provider advertises S256, or always with `pkce: force`), the continuity container of 30
// minutes, then 422 browser_location_change_required for a JSON caller or 303 for a browser. With an
// `id_token` (google and apple only) there is no redirect: the token is verified and the sign-in or
// sign-up completes in this request.
import * as client from 'openid-client';
import type { OidcProvider } from '../config.ts';
import { pause } from '../continuity.ts';
import { errorJson } from '../error-ui.ts';
import { errors } from '../errors.ts';
import { saveFlow, type Flow } from '../flows.ts';
import { redirect, str, type Ctx, type Reply } from '../http.ts';
import type { Service } from '../service.ts';
import { authorizeUrl } from './authorize-url.ts';
import { findProvider } from './config.ts';
import { advertisesS256 } from './discovery.ts';
import { writeFlowError } from './flow-errors.ts';
import { verifyIdToken } from './id-token.ts';
import { processLogin, processRegistration } from './process.ts';
import { encryptState, newState } from './state.ts';

/** The continuity container's name (const.go) and lifespan (strategy_login.go). */
export const CONTINUITY_NAME = 'ory_kratos_oidc_auth_code_session';
export const CONTINUITY_LIFESPAN_MS = 30 * 60_000;

/** AuthCodeContainer: what the callback needs from the submit. */
export interface AuthCodeContainer {
  flow_id: string;
  state: string;
  traits?: unknown;
  transient_payload?: unknown;
}

/** The oidc strategy is responsible for a submit with a provider and method `oidc` (any case) or none. */
export function isOidcSubmit(body: Record<string, unknown>): boolean {
  const provider = str(body.provider);
  const method = str(body.method);
  return Boolean(provider) && (!method || method.toLowerCase() === 'oidc');
}

/** maybePKCE: a verifier unless `pkce: never`; with `auto` (the default) only when discovery lists S256. */
async function pkceVerifier(svc: Service, p: OidcProvider): Promise<string> {
  if (p.pkce === 'never') return '';
  if (p.pkce !== 'force' && !(await advertisesS256(svc, p))) return '';
  return client.randomPKCECodeVerifier();
}

/** flow.NewBrowserLocationChangeRequiredError for a JSON caller, a 303 for a browser. */
export function locationChange(ctx: Ctx, url: string): Reply {
  return ctx.isJSON ? errorJson(ctx, errors.locationChange(url)) : redirect(303, url);
}

export interface RedirectInput {
  traits?: unknown;
  transientPayload?: unknown;
  upstream?: unknown;
}

/** GenerateState, the continuity container, and the answer that sends the browser upstream. */
export async function redirectUpstream(svc: Service, ctx: Ctx, f: Flow, p: OidcProvider, input: RedirectInput): Promise<Reply> {
  const verifier = await pkceVerifier(svc, p);
  const state = encryptState(svc, newState(f.id, p.id, verifier));
  const container: AuthCodeContainer = { flow_id: f.id, state, traits: input.traits, transient_payload: input.transientPayload };
  pause(svc, ctx, CONTINUITY_NAME, container, CONTINUITY_LIFESPAN_MS);
  // Only the login flow is marked (and stored) as handled by oidc before it leaves.
  if (f.kind === 'login') {
    f.active = 'oidc';
    saveFlow(svc, f);
  }
  const url = await authorizeUrl(svc, p, { state, pkceVerifier: verifier, upstream: input.upstream, refresh: f.refresh === true });
  return locationChange(ctx, url);
}

/** POST /self-service/login and /self-service/registration with the oidc method. */
export async function startOidc(svc: Service, ctx: Ctx, f: Flow, body: Record<string, unknown>): Promise<Reply> {
  const providerId = str(body.provider) ?? '';
  if (body.transient_payload !== undefined) f.transient_payload = body.transient_payload;
  try {
    const p = findProvider(svc, providerId);
    const idToken = str(body.id_token);
    if (idToken) {
      const claims = await verifyIdToken(svc, p, idToken, str(body.id_token_nonce) ?? '');
      // The login's container carries the traits only; the flow itself carries the transient payload.
      const upstream = { provider: p, claims, container: { traits: body.traits, transient_payload: f.transient_payload }, idToken: true };
      return f.kind === 'login' ? await processLogin(svc, ctx, f, upstream) : await processRegistration(svc, ctx, f, upstream);
    }
    return await redirectUpstream(svc, ctx, f, p, { traits: body.traits, transientPayload: body.transient_payload, upstream: body.upstream_parameters });
  } catch (e) {
    return writeFlowError(svc, ctx, f, e);
  }
}
