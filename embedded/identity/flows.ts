// What the five self-service flows share (contract §3): creation, persistence, serialisation in
// Kratos's field order, return_to validation (§13), expiry and the GET /self-service/<flow>/flows handler.
import { randomUUID } from 'node:crypto';
import { durationMs } from './config.ts';
import { errors, KratosError } from './errors.ts';
import { isUuid, json, type Ctx, type Reply } from './http.ts';
import type { UiContainer, UiNode } from './nodes.ts';
import type { UiText } from './messages.ts';
import { nowIso, type Service } from './service.ts';
import { currentSession } from './sessions.ts';
import { withLoginRequest } from './oauth2.ts';

export type FlowKind = 'login' | 'registration' | 'settings' | 'recovery' | 'verification';

export interface Flow {
  id: string;
  kind: FlowKind;
  type: 'browser' | 'api';
  expires_at: string;
  issued_at: string;
  created_at: string;
  updated_at: string;
  request_url: string;
  active?: string;
  ui: UiContainer;
  state: string;
  /** base64 of the real CSRF token the flow was created with */
  csrf_token: string;
  skip_csrf?: boolean;
  refresh?: boolean;
  requested_aal?: string;
  identity_id?: string;
  continue_with?: unknown[];
  transient_payload?: unknown;
  /** The OAuth2 provider's login challenge this login or registration flow answers (oauth2.ts). */
  oauth2_login_challenge?: string;
  /** The provider's login request, fetched for the answer that shows the flow; never stored. */
  oauth2_login_request?: Record<string, unknown>;
  /** server-side state: codes, tokens, counters, submitted values */
  internal: FlowInternal;
}

/** A flow's server-side state, never sent: what one step leaves for the next. */
export type FlowInternal = Record<string, unknown> & {
  /** How many times the flow's code or link was tried (brute-force limit). */
  submissions?: number;
};

export function uiUrl(svc: Service, kind: FlowKind | 'error'): string {
  return svc.config.selfservice.flows[kind].ui_url;
}

export function withQuery(url: string, params: Record<string, string>): string {
  const u = new URL(url);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
}

export const flowUiUrl = (svc: Service, kind: FlowKind, id: string): string => withQuery(uiUrl(svc, kind), { flow: id });

export function actionUrl(svc: Service, kind: FlowKind, id: string): string {
  return `${svc.publicUrl}/self-service/${kind}?flow=${id}`;
}

export function lifespanMs(svc: Service, kind: FlowKind): number {
  return durationMs(svc.config.selfservice.flows[kind].lifespan, 3600_000);
}

/** §13: scheme + host equal (host may start with *), path prefix. */
export function isReturnToAllowed(svc: Service, raw: string): boolean {
  let u: URL;
  try {
    u = new URL(raw, svc.config.selfservice.default_browser_return_url || svc.publicUrl);
  } catch {
    return false;
  }
  if (u.toString().startsWith(`${svc.publicUrl}/self-service`)) return true;
  for (const allowed of svc.config.selfservice.allowed_return_urls) {
    let a: URL;
    try {
      a = new URL(allowed.replace('://*.', '://wildcard-placeholder.'));
    } catch {
      continue;
    }
    if (a.protocol !== u.protocol) continue;
    const wildcard = allowed.includes('://*.');
    const host = u.host.toLowerCase();
    const ahost = a.host.toLowerCase();
    if (wildcard ? !host.endsWith(ahost.replace(/^wildcard-placeholder/, '')) : host !== ahost) continue;
    if (u.pathname.startsWith(a.pathname || '/')) return true;
  }
  return false;
}

/** Validates the return_to query parameter at flow creation. */
export function checkReturnTo(svc: Service, ctx: Ctx): void {
  const rt = ctx.query.get('return_to');
  if (rt && !isReturnToAllowed(svc, rt)) throw errors.returnToForbidden(rt);
}

export function flowReturnTo(flow: { request_url: string }): string | undefined {
  try {
    return new URL(flow.request_url).searchParams.get('return_to') || undefined;
  } catch {
    return undefined;
  }
}

/** Completion target: flow return_to (re-validated), then the given fallbacks, then the default. */
export function returnUrl(svc: Service, flow: { request_url: string } | undefined, ...fallbacks: (string | undefined)[]): string {
  const rt = flow ? flowReturnTo(flow) : undefined;
  if (rt && isReturnToAllowed(svc, rt)) return new URL(rt, svc.config.selfservice.default_browser_return_url).toString();
  for (const f of fallbacks) if (f) return f;
  return svc.config.selfservice.default_browser_return_url;
}

export function newFlow(svc: Service, ctx: Ctx, kind: FlowKind, nodes: UiNode[], extra: Partial<Flow> = {}): Flow {
  const now = new Date(svc.clock.now());
  const id = randomUUID();
  const token = svc.csrf.ensure(ctx);
  return {
    id,
    kind,
    type: 'browser',
    expires_at: new Date(now.getTime() + lifespanMs(svc, kind)).toISOString(),
    issued_at: now.toISOString(),
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    request_url: ctx.requestUrl,
    ui: { action: actionUrl(svc, kind, id), method: 'POST', nodes },
    state: 'choose_method',
    csrf_token: token.toString('base64'),
    internal: {},
    ...extra,
  };
}

export function saveFlow(svc: Service, flow: Flow): void {
  flow.updated_at = nowIso(svc);
  // transient_payload is echoed in the answer of the request that carried it, never persisted.
  // The OAuth2 login request is fetched again for each answer that shows it.
  const { transient_payload: _echoOnly, oauth2_login_request: _fetchedEachTime, ...stored } = flow;
  svc.store.saveFlow(flow.kind, stored);
}

export function loadFlow(svc: Service, kind: FlowKind, id: string): Flow | undefined {
  return svc.store.getFlow<Flow>(kind, id);
}

export const isExpired = (svc: Service, f: Flow): boolean => new Date(f.expires_at).getTime() < svc.clock.now();

export function setUiMessages(flow: Flow, messages: UiText[]): void {
  if (messages.length) flow.ui.messages = messages;
  else delete flow.ui.messages;
}

function serializeUi(svc: Service, ctx: Ctx, ui: UiContainer, type: Flow['type']): UiContainer {
  // An API flow keeps its csrf_token node empty (v1.3.1): native clients have no anti-CSRF cookie.
  const nodes = ui.nodes.map((n) =>
    type === 'browser' && n.attributes.name === 'csrf_token' && n.group === 'default' && n.attributes.type === 'hidden'
      ? { ...n, attributes: { ...n.attributes, value: svc.csrf.masked(ctx) } }
      : n,
  );
  const out: UiContainer = { action: ui.action, method: ui.method, nodes };
  if (ui.messages && ui.messages.length) out.messages = ui.messages;
  return out;
}

/** Serialises a flow in the field order of contract §3.2. */
export function serializeFlow(svc: Service, ctx: Ctx, f: Flow, identity?: unknown): Record<string, unknown> {
  const rt = flowReturnTo(f);
  const ui = serializeUi(svc, ctx, f.ui, f.type);
  const o: Record<string, unknown> = { id: f.id };
  switch (f.kind) {
    case 'login':
      o.organization_id = null;
      if (f.oauth2_login_challenge) o.oauth2_login_challenge = f.oauth2_login_challenge;
      if (f.oauth2_login_request) o.oauth2_login_request = f.oauth2_login_request;
      o.type = f.type;
      o.expires_at = f.expires_at;
      o.issued_at = f.issued_at;
      o.request_url = f.request_url;
      if (rt) o.return_to = rt;
      if (f.active) o.active = f.active;
      o.ui = ui;
      o.created_at = f.created_at;
      o.updated_at = f.updated_at;
      o.refresh = f.refresh ?? false;
      o.requested_aal = f.requested_aal ?? 'aal1';
      o.state = f.state;
      break;
    case 'registration':
      if (f.oauth2_login_challenge) o.oauth2_login_challenge = f.oauth2_login_challenge;
      if (f.oauth2_login_request) o.oauth2_login_request = f.oauth2_login_request;
      o.type = f.type;
      o.expires_at = f.expires_at;
      o.issued_at = f.issued_at;
      o.request_url = f.request_url;
      if (rt) o.return_to = rt;
      if (f.active) o.active = f.active;
      o.ui = ui;
      o.organization_id = null;
      o.state = f.state;
      break;
    case 'settings':
      o.type = f.type;
      o.expires_at = f.expires_at;
      o.issued_at = f.issued_at;
      o.request_url = f.request_url;
      if (rt) o.return_to = rt;
      // v1.3.1 fills a settings flow's `active` only on a social sign-in callback (oidc).
      if (f.active) o.active = f.active;
      o.ui = ui;
      o.identity = identity;
      o.state = f.state;
      if (f.continue_with?.length) o.continue_with = f.continue_with;
      break;
    case 'recovery':
    case 'verification':
      o.type = f.type;
      o.expires_at = f.expires_at;
      o.issued_at = f.issued_at;
      o.request_url = f.request_url;
      if (rt) o.return_to = rt;
      if (f.active) o.active = f.active;
      o.ui = ui;
      o.state = f.state;
      if (f.kind === 'recovery' && f.continue_with?.length) o.continue_with = f.continue_with;
      break;
  }
  if (f.transient_payload !== undefined) o.transient_payload = f.transient_payload;
  return o;
}

/** The `flow` query parameter of a submit. */
export function submitFlowId(ctx: Ctx): string {
  const id = ctx.query.get('flow');
  if (!isUuid(id)) throw errors.flowParamMissing();
  return id;
}

const EXPIRED_REASON: Record<FlowKind, string> = {
  login: 'The login flow has expired. Redirect the user to the login flow init endpoint to initialize a new login flow.',
  registration: 'The registration flow has expired. Redirect the user to the registration flow init endpoint to initialize a new registration flow.',
  settings: 'The settings flow has expired. Redirect the user to the settings flow init endpoint to initialize a new settings flow.',
  recovery: 'The recovery flow has expired. Redirect the user to the recovery flow init endpoint to initialize a new recovery flow.',
  verification: 'The verification flow has expired. Redirect the user to the verification flow init endpoint to initialize a new verification flow.',
};

/** Expired GET: 410 with details.redirect_to (contract §6.2; in v1.3.1 settings, recovery and verification have no id). */
export function expiredOnGet(svc: Service, f: Flow): KratosError {
  const rt = flowReturnTo(f) ?? '';
  let redirectTo = `${svc.publicUrl}/self-service/${f.kind}/browser`;
  if (rt) redirectTo += `?return_to=${encodeURIComponent(rt)}`;
  return new KratosError(410, {
    id: f.kind === 'login' || f.kind === 'registration' ? 'self_service_flow_expired' : undefined,
    reason: EXPIRED_REASON[f.kind],
    details: { redirect_to: redirectTo, return_to: rt },
  });
}

/** Expired submit for login/registration/settings: 410 with use_flow_id (§6.4). */
export function expiredOnSubmit(svc: Service, f: Flow, newId: string): KratosError {
  const expiredAt = new Date(f.expires_at);
  const sinceMs = svc.clock.now() - expiredAt.getTime();
  return new KratosError(410, {
    id: 'self_service_flow_expired',
    reason: `The self-service flow expired ${(sinceMs / 60000).toFixed(2)} minutes ago, initialize a new one.`,
    message: 'self-service flow expired',
    extra: { expired_at: f.expires_at, since: Math.round(sinceMs * 1e6), use_flow_id: newId },
  });
}

export type FlowSerializer = (svc: Service, ctx: Ctx, f: Flow) => Record<string, unknown>;

/** GET /self-service/<kind>/flows?id= */
export function getFlowHandler(kind: FlowKind, serialize: FlowSerializer) {
  return async (svc: Service, ctx: Ctx): Promise<Reply> => {
    const id = ctx.query.get('id');
    if (!isUuid(id)) throw errors.notFound();
    const f = loadFlow(svc, kind, id);
    if (!f) throw errors.notFound();
    if (kind === 'settings') {
      const cur = currentSession(svc, ctx);
      if (!cur) throw new KratosError(401, { reason: 'A valid Ory Session Cookie or Ory Session Token is missing.' });
      if (cur.identity.id !== f.identity_id) {
        throw new KratosError(403, {
          id: 'security_identity_mismatch',
          reason: 'The request was made for another identity and has been blocked for security reasons.',
        });
      }
    } else if (f.type === 'browser' && !f.skip_csrf) {
      svc.csrf.verifyFlowToken(ctx, f.csrf_token);
    }
    if (isExpired(svc, f)) throw expiredOnGet(svc, f);
    const refused = await withLoginRequest(svc, ctx, f);
    if (refused) return refused;
    return json(200, serialize(svc, ctx, f));
  };
}
