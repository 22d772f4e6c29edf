// Login flow (contract §5.1, §6).
import { errors, KratosError } from './errors.ts';
import { forwardError } from './error-ui.ts';
import { json, redirect, str, type Ctx, type Reply } from './http.ts';
import { acceptWithSession, getLoginRequest, loginChallengeOf, setRequestQuery } from './oauth2.ts';
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
import { hasPassword } from './identities.ts';
import { completeLogin } from './login-complete.ts';
import { configuredProviders, providerLabel } from './oidc/config.ts';
import { duplicateOf, linkingNodes } from './oidc/linking.ts';
import { isOidcSubmit, startOidc } from './oidc/start.ts';
import { verifyPassword } from './password.ts';
import { passwordIdentifierTraits } from './schema.ts';
import type { Service } from './service.ts';
import { currentSession, type Current } from './sessions.ts';
import type { StoredIdentity } from './store.ts';

function identifierLabel(svc: Service) {
  const ids = passwordIdentifierTraits(svc.schema);
  const title = ids.length === 1 ? svc.schema.props.find(([n]) => n === ids[0])?.[1].title : undefined;
  return title ? msg(1070002, { title }) : msg(1070004);
}

export function loginNodes(svc: Service, refreshOf?: StoredIdentity): UiNode[] {
  const nodes: UiNode[] = [];
  const linked = refreshOf?.credentials.oidc
    ? ((refreshOf.credentials.oidc.config.providers as { provider: string }[] | undefined) ?? []).map((p) => p.provider)
    : [];
  for (const p of configuredProviders(svc)) {
    if (refreshOf && !linked.includes(p.id)) continue;
    const label = providerLabel(p);
    nodes.push(input('provider', 'submit', 'oidc', { value: p.id, label: msg(1010002, { provider: label, provider_id: p.id }) }));
  }
  nodes.push(csrfNode());
  // A refresh offers the password only to an identity that has one (v1.3.1 PopulateLoginMethodFirstFactorRefresh).
  if (refreshOf && hasPassword(refreshOf)) {
    nodes.push(input('identifier', 'hidden', 'default', { value: refreshOf.credentials.password!.identifiers[0] }));
  } else if (!refreshOf) {
    nodes.push(input('identifier', 'text', 'default', { value: '', required: true, label: identifierLabel(svc) }));
  }
  if (!refreshOf || hasPassword(refreshOf)) {
    nodes.push(input('password', 'password', 'password', { required: true, autocomplete: 'current-password', label: msg(1070001) }));
    nodes.push(input('method', 'submit', 'password', { value: 'password', label: msg(refreshOf ? 1010001 : 1010022) }));
  }
  return sortNodes(nodes, LOGIN_GROUPS, ['csrf_token', 'identifier', 'password']);
}

export const serializeLogin = (svc: Service, ctx: Ctx, f: Flow) => serializeFlow(svc, ctx, f);

function createLoginFlow(svc: Service, ctx: Ctx, cur: Current | undefined, refresh: boolean, aal: string): Flow {
  const f = newFlow(svc, ctx, 'login', loginNodes(svc, refresh ? cur?.identity : undefined), { refresh, requested_aal: aal });
  if (refresh) setUiMessages(f, [msg(1010003)]);
  return f;
}

/**
 * The OAuth2 part of creating a browser login flow (v1.3.1 createBrowserLoginFlow): the challenge's
 * login request, fetched before anything else; unless the provider may skip the login, the flow is
 * made a refresh (`refresh=true` set in the request, so request_url shows it).
 */
async function oauth2LoginRequest(svc: Service, ctx: Ctx): Promise<{ challenge: string; request: Record<string, unknown> } | undefined> {
  const challenge = loginChallengeOf(svc, ctx);
  if (challenge === undefined) return undefined;
  const request = await getLoginRequest(svc, challenge);
  if (request.skip !== true) setRequestQuery(ctx, 'refresh', 'true');
  if (typeof request.request_url === 'string' && request.request_url && svc.config.oauth2_provider?.override_return_to) {
    setRequestQuery(ctx, 'return_to', request.request_url);
  }
  return { challenge, request };
}

/** GET /self-service/login/browser */
export async function createBrowserLogin(svc: Service, ctx: Ctx): Promise<Reply> {
  let oauth2: Awaited<ReturnType<typeof oauth2LoginRequest>>;
  try {
    oauth2 = await oauth2LoginRequest(svc, ctx);
  } catch (e) {
    // errorx.Manager.Forward: the error UI for a browser, whatever the status.
    if (e instanceof KratosError) return forwardError(svc, ctx, e);
    throw e;
  }
  checkReturnTo(svc, ctx);
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
    if (oauth2) return acceptWithSession(svc, ctx, oauth2, cur);
    if (!ctx.isJSON) return redirect(303, returnUrl(svc, { request_url: ctx.requestUrl }));
    throw errors.sessionAlreadyAvailable('A valid session was detected and thus login is not possible. Did you forget to set `?refresh=true`?');
  }
  const f = createLoginFlow(svc, ctx, cur, refresh, aal);
  if (oauth2) f.oauth2_login_challenge = oauth2.challenge;
  saveFlow(svc, f);
  if (!ctx.isJSON) return redirect(303, flowUiUrl(svc, 'login', f.id));
  return json(200, serializeLogin(svc, ctx, { ...f, oauth2_login_request: oauth2?.request }));
}

/** GET /self-service/login/api: a flow for a native client, with no anti-CSRF cookie and an empty csrf_token node (v1.3.1). */
export async function createApiLogin(svc: Service, ctx: Ctx): Promise<Reply> {
  // NewFlow parses the challenge for every flow type; an API flow keeps it but never accepts it.
  const challenge = loginChallengeOf(svc, ctx);
  const cur = currentSession(svc, ctx);
  const refresh = ctx.query.get('refresh') === 'true' && Boolean(cur);
  if (cur && !refresh)
    throw errors.sessionAlreadyAvailable('A valid session was detected and thus login is not possible. Did you forget to set `?refresh=true`?');
  const cookies = ctx.setCookies.length;
  const f = createLoginFlow(svc, ctx, cur, refresh, 'aal1');
  ctx.setCookies.length = cookies;
  f.type = 'api';
  f.csrf_token = '';
  if (challenge !== undefined) f.oauth2_login_challenge = challenge;
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
  // An account-linking flow keeps its form (v1.3.1 only resets the password and sets the identifier).
  const dup = duplicateOf(f);
  if (dup) f.ui.nodes = linkingNodes(f.ui.nodes, dup);
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
  // The oidc strategy answers a submit with a provider (and method oidc or none); v1.3.1 checks no
  // anti-CSRF token there.
  if (isOidcSubmit(body)) return startOidc(svc, ctx, f, body);
  if (f.type === 'browser') svc.csrf.verifyBody(ctx, body.csrf_token);
  const method = str(body.method);
  const storedNodes = f.ui.nodes;
  resetForm(f, svc, cur);
  if (body.transient_payload !== undefined) f.transient_payload = body.transient_payload;
  if (method !== 'password') {
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
  return completeLogin(svc, ctx, f, identity, { method: 'password', previous: cur, storedNodes });
}
