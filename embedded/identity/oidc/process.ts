// What the provider's answer does to the flow (v1.3.1 processLogin / processRegistration): a known
// `<provider>:<subject>` signs in; an unknown one on a login flow becomes a new registration flow in the
// same request; a known one on a registration flow becomes a new login flow; a new identity is made from
// the mapped claims, and a duplicate e-mail turns into the account-linking login flow.
import { KratosError } from '../errors.ts';
import { saveFlow, serializeFlow, type Flow } from '../flows.ts';
import { json, negotiate, redirect, type Ctx, type Reply } from '../http.ts';
import { newIdentity } from '../identities.ts';
import { completeLogin } from '../login-complete.ts';
import { loginNodes } from '../login.ts';
import { msg } from '../messages.ts';
import { csrfNode, input, traitNodes } from '../nodes.ts';
import { completeRegistration } from '../registration-complete.ts';
import { createRegistrationFlow } from '../registration.ts';
import { takeOverReturnTo } from '../request-url.ts';
import { normalizeTraits, validateTraits } from '../schema.ts';
import type { Service } from '../service.ts';
import type { StoredIdentity } from '../store.ts';
import type { Claims } from './claims.ts';
import type { OidcProvider } from '../config.ts';
import type { UpstreamTokens } from './exchange.ts';
import { FormFailure, writeFlowError } from './flow-errors.ts';
import { applyAccountLinkingUi, registrationToLogin, type DuplicateCredentials, type OidcLink } from './linking.ts';
import { mapClaims, mergeTraits } from './mappers.ts';

export interface Upstream {
  provider: OidcProvider;
  claims: Claims;
  /** The code exchange's tokens; none for an id_token submit. */
  tokens?: UpstreamTokens;
  container: { traits?: unknown; transient_payload?: unknown };
  idToken?: boolean;
}

const identifierOf = (u: Upstream): string => `${u.provider.id}:${u.claims.sub}`;

function linkOf(u: Upstream): OidcLink {
  return {
    subject: u.claims.sub ?? '',
    provider: u.provider.id,
    initial_id_token: u.tokens?.id_token ?? '',
    initial_access_token: u.tokens?.access_token ?? '',
    initial_refresh_token: u.tokens?.refresh_token ?? '',
  };
}

/** handleError for a registration flow (not a duplicate): the form is only csrf_token, "Continue" and, with traits, the trait inputs. */
export function registrationError(svc: Service, ctx: Ctx, rf: Flow, providerId: string, e: unknown, traits?: Record<string, unknown>): Reply {
  rf.ui.nodes = [
    csrfNode(),
    input('provider', 'submit', 'oidc', { value: providerId, label: msg(1040003) }),
    ...(traits ? traitNodes(svc.schema, 'oidc', traits) : []),
  ];
  return writeFlowError(svc, ctx, rf, e);
}

export async function processLogin(svc: Service, ctx: Ctx, lf: Flow, u: Upstream): Promise<Reply> {
  lf.active = 'oidc';
  const identity = svc.store.findIdentityByIdentifier('oidc', identifierOf(u));
  if (!identity) {
    // Not registered yet: a new registration flow, completed in this request.
    if (!svc.config.selfservice.flows.registration.enabled) {
      return writeFlowError(
        svc,
        ctx,
        lf,
        new KratosError(400, {
          id: 'self_service_flow_disabled',
          reason: 'Registration is not allowed because it was disabled.',
          message: 'registration flow disabled',
        }),
      );
    }
    // NewRegistrationFlow stores it as made; what is set afterwards is stored only if an error is written into it.
    const rf = createRegistrationFlow(svc, ctx);
    rf.type = lf.type;
    rf.request_url = takeOverReturnTo(lf.request_url, rf.request_url);
    // registration.WithFlowOAuth2LoginChallenge: the sign-up answers the login flow's OAuth2 challenge.
    if (lf.oauth2_login_challenge) rf.oauth2_login_challenge = lf.oauth2_login_challenge;
    saveFlow(svc, rf);
    rf.transient_payload = lf.transient_payload;
    return processRegistration(svc, ctx, rf, u);
  }
  const links = (identity.credentials.oidc?.config.providers ?? []) as OidcLink[];
  if (!links.some((l) => l.subject === u.claims.sub && l.provider === u.provider.id)) {
    return writeFlowError(svc, ctx, lf, new KratosError(500, { reason: 'Unable to find matching OpenID Connect Credentials.' }));
  }
  try {
    return await completeLogin(svc, ctx, lf, identity, { method: 'oidc', provider: u.provider.id, storedNodes: lf.ui.nodes });
  } catch (e) {
    return writeFlowError(svc, ctx, lf, e);
  }
}

/** The identifier of the new identity another identity already has (ConflictingIdentity). */
function conflictingIdentifier(svc: Service, i: StoredIdentity): string {
  for (const [type, c] of Object.entries(i.credentials)) {
    for (const id of c.identifiers) if (svc.store.findIdentityByIdentifier(type, id)) return id;
  }
  return '';
}

/** handleError's duplicate branch: the account-linking login flow, 303 to it (200 with it for a JSON Accept). */
function accountLinking(svc: Service, ctx: Ctx, rf: Flow, i: StoredIdentity, u: Upstream): Reply {
  const dup: DuplicateCredentials = {
    credentials_type: 'oidc',
    credentials_config: { providers: [linkOf(u)] },
    duplicate_identifier: conflictingIdentifier(svc, i),
    used_provider: u.provider.id,
  };
  rf.internal.duplicate_credentials = dup;
  // schema.NewDuplicateCredentialsError (no login hints): 4000007, replaced below by 1010016.
  rf.ui.messages = [...(rf.ui.messages ?? []), msg(4000007)];
  const lf = registrationToLogin(svc, ctx, rf, loginNodes(svc));
  applyAccountLinkingUi(svc, lf, dup);
  saveFlow(svc, lf);
  const base = lf.type === 'api' ? svc.config.selfservice.default_browser_return_url : svc.config.selfservice.flows.login.ui_url;
  const u2 = new URL(base);
  u2.searchParams.set('flow', lf.id);
  u2.searchParams.set('no_org_ui', 'true');
  // x.AcceptToRedirectOrJSON: the Accept header alone decides.
  const wantsJson = negotiate(ctx.req.headers.accept, ['text/html', 'application/json'], 'text/html') === 'application/json';
  return wantsJson ? json(200, serializeFlow(svc, ctx, lf)) : redirect(303, u2.toString());
}

export async function processRegistration(svc: Service, ctx: Ctx, rf: Flow, u: Upstream): Promise<Reply> {
  rf.active = 'oidc';
  if (u.container.transient_payload !== undefined) rf.transient_payload = u.container.transient_payload;
  if (svc.store.findIdentityByIdentifier('oidc', identifierOf(u))) {
    // Already registered: a new login flow signs in instead. v1.3.1's registrationToLogin does not
    // carry the OAuth2 challenge over (later Kratos does), so that sign-in accepts none.
    const lf = registrationToLogin(svc, ctx, rf, loginNodes(svc));
    saveFlow(svc, lf);
    return processLogin(svc, ctx, lf, u);
  }
  const mapped = mapClaims(svc.schema, u.provider, u.claims);
  const traits = mergeTraits(mapped.traits, u.container.traits);
  const errs = validateTraits(svc.schema, traits, { identityValidator: true });
  if (errs) return registrationError(svc, ctx, rf, u.provider.id, new FormFailure(errs.general, errs.fields), traits);
  const identity = newIdentity(svc, normalizeTraits(svc.schema, traits));
  const verifiedAt = new Date(Math.round(svc.clock.now() / 1000) * 1000).toISOString();
  for (const a of identity.verifiable_addresses) {
    if (!mapped.verifiedAddresses.some((v) => v.via === a.via && v.value === a.value)) continue;
    a.verified = true;
    a.status = 'completed';
    a.verified_at = verifiedAt;
  }
  const now = identity.created_at;
  identity.credentials.oidc = {
    type: 'oidc',
    identifiers: [identifierOf(u)],
    config: { providers: [linkOf(u)] },
    version: 0,
    created_at: now,
    updated_at: now,
  };
  if (!svc.store.saveIdentity(identity)) return accountLinking(svc, ctx, rf, identity, u);
  try {
    return await completeRegistration(svc, ctx, rf, identity, 'oidc', u.provider.id);
  } catch (e) {
    return registrationError(svc, ctx, rf, u.provider.id, e, identity.traits);
  }
}
