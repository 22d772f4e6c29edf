// Login flow (contract §5.1, §6).
import { errors, KratosError } from './errors.ts';
import { json, redirect, str, type Ctx, type Reply } from './http.ts';
import { expiredMessage, msg, reasonMessage } from './messages.ts';
import { addNodeMessage, csrfNode, input, LOGIN_GROUPS, setNodeValue, sortNodes, type UiNode } from './nodes.ts';
import {
  checkReturnTo,
  expiredOnSubmit,
  flowUiUrl,
  isExpired,
  loadFlow,
  newFlow,
  returnUrl,
  saveFlow,
  serializeFlow,
  setUiMessages,
  submitFlowId,
  type Flow,
} from './flows.ts';
import { verifyPassword } from './password.ts';
import { passwordIdentifierTraits } from './schema.ts';
import type { Service } from './service.ts';
import { currentSession, issueSession, serializeSession, type Current } from './sessions.ts';
import type { StoredIdentity } from './store.ts';

function identifierLabel(svc: Service) {
  const ids = passwordIdentifierTraits(svc.schema);
  const title = ids.length === 1 ? svc.schema.props.find(([n]) => n === ids[0])?.[1].title : undefined;
  return title ? msg(1070002, { title }) : msg(1070004);
}

function providers(svc: Service) {
  return svc.config.selfservice.methods.oidc.enabled ? svc.config.selfservice.methods.oidc.config.providers : [];
}

export function providerLabel(p: { id: string; label?: string }): string {
  return p.label ?? p.id.charAt(0).toUpperCase() + p.id.slice(1);
}

export function loginNodes(svc: Service, refreshOf?: StoredIdentity): UiNode[] {
  const nodes: UiNode[] = [];
  const linked = refreshOf?.credentials.oidc
    ? ((refreshOf.credentials.oidc.config.providers as { provider: string }[] | undefined) ?? []).map((p) => p.provider)
    : [];
  for (const p of providers(svc)) {
    if (refreshOf && !linked.includes(p.id)) continue;
    const label = providerLabel(p);
    nodes.push(input('provider', 'submit', 'oidc', { value: p.id, label: msg(1010002, { provider: label, provider_id: p.id }) }));
  }
  nodes.push(csrfNode());
  if (refreshOf) {
    const ident = refreshOf.credentials.password?.identifiers[0] ?? String(refreshOf.traits.email ?? '');
    nodes.push(input('identifier', 'hidden', 'default', { value: ident }));
  } else {
    nodes.push(input('identifier', 'text', 'default', { value: '', required: true, label: identifierLabel(svc) }));
  }
  nodes.push(input('password', 'password', 'password', { required: true, autocomplete: 'current-password', label: msg(1070001) }));
  nodes.push(input('method', 'submit', 'password', { value: 'password', label: msg(refreshOf ? 1010001 : 1010022) }));
  return sortNodes(nodes, LOGIN_GROUPS, ['csrf_token', 'identifier', 'password']);
}

/**
 * The login hooks that apply to a password sign-in: `after.password.hooks` when that list has any,
 * else `after.hooks` (Kratos's method hooks replace the global ones, never merge with them).
 */
function loginHooks(svc: Service): string[] {
  const after = svc.config.selfservice.flows.login.after;
  const list = after.password?.hooks?.length ? after.password.hooks : (after.hooks ?? []);
  return list.map((h) => h.hook);
}

export const serializeLogin = (svc: Service, ctx: Ctx, f: Flow) => serializeFlow(svc, ctx, f);

function createLoginFlow(svc: Service, ctx: Ctx, cur: Current | undefined, refresh: boolean, aal: string): Flow {
  const f = newFlow(svc, ctx, 'login', loginNodes(svc, refresh ? cur?.identity : undefined), { refresh, requested_aal: aal });
  if (refresh) setUiMessages(f, [msg(1010003)]);
  return f;
}

/** GET /self-service/login/browser */
export async function createBrowserLogin(svc: Service, ctx: Ctx): Promise<Reply> {
  checkReturnTo(svc, ctx);
  if (ctx.query.has('login_challenge')) {
    throw errors.badRequest('refusing to parse login_challenge query parameter because oauth2_provider.url is invalid or unset');
  }
  const aal = ctx.query.get('aal') || 'aal1';
  if (aal !== 'aal1' && aal !== 'aal2') {
    throw errors.badRequest(`Unable to parse AuthenticationMethod Assurance Level (AAL): expected one of [aal1, aal2] but got ${aal}`);
  }
  const cur = currentSession(svc, ctx);
  if (aal === 'aal2' && !cur) {
    throw new KratosError(401, {
      id: 'session_aal1_required',
      reason: 'You can not requested a higher AAL (AAL2/AAL3) without an active session.',
      message: 'aal2 and aal3 can only be requested if a session exists already',
    });
  }
  const refresh = ctx.query.get('refresh') === 'true' && Boolean(cur);
  if (cur && !refresh) {
    if (!ctx.isJSON) return redirect(303, returnUrl(svc, { request_url: ctx.requestUrl }));
    throw errors.sessionAlreadyAvailable('A valid session was detected and thus login is not possible. Did you forget to set `?refresh=true`?');
  }
  const f = createLoginFlow(svc, ctx, cur, refresh, aal);
  saveFlow(svc, f);
  if (!ctx.isJSON) return redirect(303, flowUiUrl(svc, 'login', f.id));
  return json(200, serializeLogin(svc, ctx, f));
}

/** GET /self-service/login/api: a flow for a native client, with no anti-CSRF cookie and an empty csrf_token node (v1.3.1). */
export async function createApiLogin(svc: Service, ctx: Ctx): Promise<Reply> {
  const cur = currentSession(svc, ctx);
  const refresh = ctx.query.get('refresh') === 'true' && Boolean(cur);
  if (cur && !refresh)
    throw errors.sessionAlreadyAvailable('A valid session was detected and thus login is not possible. Did you forget to set `?refresh=true`?');
  const cookies = ctx.setCookies.length;
  const f = createLoginFlow(svc, ctx, cur, refresh, 'aal1');
  ctx.setCookies.length = cookies;
  f.type = 'api';
  f.csrf_token = '';
  saveFlow(svc, f);
  return json(200, serializeLogin(svc, ctx, f));
}

function formError(svc: Service, ctx: Ctx, f: Flow): Reply {
  saveFlow(svc, f);
  if (!ctx.isJSON) return redirect(303, flowUiUrl(svc, 'login', f.id));
  return json(400, serializeLogin(svc, ctx, f));
}

function resetForm(f: Flow, svc: Service, cur: Current | undefined): void {
  f.ui.nodes = loginNodes(svc, f.refresh ? cur?.identity : undefined);
  setUiMessages(f, f.refresh ? [msg(1010003)] : []);
}

/** POST /self-service/login?flow= */
export async function submitLogin(svc: Service, ctx: Ctx): Promise<Reply> {
  const id = submitFlowId(ctx);
  const f = loadFlow(svc, 'login', id);
  if (!f) throw errors.notFound();
  const cur = currentSession(svc, ctx);
  if (cur && !f.refresh) {
    if (!ctx.isJSON) return redirect(303, svc.config.selfservice.default_browser_return_url);
    resetForm(f, svc, cur);
    setUiMessages(f, [reasonMessage('A valid session was detected and thus login is not possible. Did you forget to set `?refresh=true`?')]);
    return json(400, serializeLogin(svc, ctx, f));
  }
  if (isExpired(svc, f)) {
    const nf = createLoginFlow(svc, ctx, cur, Boolean(f.refresh && cur), f.requested_aal ?? 'aal1');
    nf.request_url = f.request_url;
    setUiMessages(nf, [expiredMessage(4010001, new Date(f.expires_at), svc.clock.now())]);
    saveFlow(svc, nf);
    if (!ctx.isJSON) return redirect(303, flowUiUrl(svc, 'login', nf.id));
    throw expiredOnSubmit(svc, f, nf.id);
  }
  const body = await ctx.body();
  if (f.type === 'browser') svc.csrf.verifyBody(ctx, body.csrf_token);
  const method = str(body.method);
  const storedNodes = f.ui.nodes;
  resetForm(f, svc, cur);
  if (body.transient_payload !== undefined) f.transient_payload = body.transient_payload;
  if (method !== 'password') {
    if (method === 'oidc' || (method === undefined && body.provider !== undefined)) {
      const p = str(body.provider) ?? '';
      throw new KratosError(404, { reason: `OpenID Connect Provider "${p}" is unknown or has not been configured` });
    }
    setUiMessages(f, [msg(4010002)]);
    return formError(svc, ctx, f);
  }
  const identifier =
    str(body.identifier) ??
    str(body.password_identifier) ??
    (f.refresh ? String(f.ui.nodes.find((n) => n.attributes.name === 'identifier')?.attributes.value ?? '') : '');
  const password = str(body.password) ?? '';
  if (!f.refresh) setNodeValue(f.ui.nodes, 'identifier', identifier);
  let missing = false;
  if (!identifier) {
    addNodeMessage(f.ui.nodes, 'identifier', msg(4000002, { property: 'identifier' }));
    missing = true;
  }
  if (!password) {
    addNodeMessage(f.ui.nodes, 'password', msg(4000002, { property: 'password' }));
    missing = true;
  }
  if (missing) return formError(svc, ctx, f);
  const identity = svc.store.findIdentityByIdentifier('password', identifier.normalize('NFKC').trim());
  const hashed = identity?.credentials.password?.config.hashed_password;
  const ok = typeof hashed === 'string' && (await verifyPassword(password, hashed));
  if (!identity || !ok || (f.refresh && cur && cur.identity.id !== identity.id)) {
    setUiMessages(f, [msg(4000006)]);
    return formError(svc, ctx, f);
  }
  if (identity.state !== 'active') {
    // v1.3.1 refuses to activate the session (session.ErrIdentityDisabled): an error, not a form error —
    // JSON 401, a browser to the error UI.
    throw new KratosError(401, { reason: 'This account was disabled.', details: { identity_id: identity.id }, message: 'identity is disabled' });
  }
  if (loginHooks(svc).includes('require_verified_address') && !identity.verifiable_addresses.some((a) => a.verified)) {
    // v1.3.1's require_verified_address hook (password sign-ins only): no session, and the flow, still
    // usable, comes back with 4000010 as its only message (node messages reset too); the nodes are
    // the ones stored before this submit, as Kratos's success path had not touched them.
    if (identity.verifiable_addresses.length === 0) {
      throw new KratosError(500, {
        reason: 'A misconfiguration prevents login. Expected to find a verification address but this identity does not have one assigned.',
      });
    }
    f.ui.nodes = storedNodes;
    for (const n of f.ui.nodes) n.messages = [];
    f.active = 'password';
    setUiMessages(f, [msg(4000010)]);
    return formError(svc, ctx, f);
  }
  const api = f.type === 'api';
  const session = issueSession(svc, ctx, identity, 'password', cur, { cookie: !api });
  f.active = 'password';
  f.state = 'passed_challenge';
  saveFlow(svc, f);
  // An API flow (v1.3.1 login/hook.go): the session token in the body, no cookie, no continue_with items.
  if (api) return json(200, { session_token: session.token, session: serializeSession(svc, session, identity), continue_with: null });
  const target = returnUrl(
    svc,
    f,
    svc.config.selfservice.flows.login.after.password?.default_browser_return_url,
    svc.config.selfservice.flows.login.after.default_browser_return_url,
  );
  if (!ctx.isJSON) return redirect(303, target);
  return json(200, {
    session: serializeSession(svc, session, identity),
    continue_with: [{ action: 'redirect_browser_to', redirect_browser_to: target }],
  });
}
