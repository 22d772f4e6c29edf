// Settings flow (contract §5.4, §8): profile and password; oidc link/unlink nodes when providers exist.
import { randomBytes } from 'node:crypto';
import { durationMs } from './config.ts';
import { errors, KratosError } from './errors.ts';
import { consumeEntry, entry, setEntry, unsetEntry } from './continuity.ts';
import { json, redirect, str, type Ctx, type Reply } from './http.ts';
import { expiredMessage, msg, reasonMessage } from './messages.ts';
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
import { passwordIdentifier, publicIdentity, setPasswordCredential, syncAddresses } from './identities.ts';
import { checkPassword, hashPassword, verifyPassword } from './password.ts';
import { coerceTraits, normalizeTraits, validateTraits } from './schema.ts';
import { nowIso, type Service } from './service.ts';
import { currentSession, setSessionCookie, type Current } from './sessions.ts';
import type { StoredIdentity } from './store.ts';
import { startVerificationFor } from './verification.ts';
import { settingsNodes } from './settings-nodes.ts';
import { isOidcSettingsSubmit, settingsOidc } from './oidc/settings-link.ts';

/** The settings flow's entry in the ory_kratos_continuity cookie: the parked change's key. */
const CONTINUITY = 'ory_kratos_settings';

export function serializeSettings(svc: Service, ctx: Ctx, f: Flow): Record<string, unknown> {
  const i = f.identity_id ? svc.store.getIdentity(f.identity_id) : undefined;
  return serializeFlow(svc, ctx, f, i ? publicIdentity(svc, i) : null);
}

export function createSettingsFlowFor(svc: Service, ctx: Ctx, identity: StoredIdentity, requestUrl?: string): Flow {
  // settings.Handler.NewFlow aborts every settings strategy's parked change (the cookie is written back
  // only when it named one).
  unsetEntry(svc, ctx, CONTINUITY);
  const f = newFlow(svc, ctx, 'settings', settingsNodes(svc, identity), { identity_id: identity.id, state: 'show_form' });
  if (requestUrl) f.request_url = requestUrl;
  return f;
}

/** GET /self-service/settings/browser */
export async function createBrowserSettings(svc: Service, ctx: Ctx): Promise<Reply> {
  checkReturnTo(svc, ctx);
  const cur = currentSession(svc, ctx);
  if (!cur) {
    if (!ctx.isJSON) {
      const rt = ctx.query.get('return_to');
      return redirect(303, `${svc.publicUrl}/self-service/login/browser${rt ? `?return_to=${encodeURIComponent(rt)}` : ''}`);
    }
    throw errors.sessionInactive();
  }
  const f = createSettingsFlowFor(svc, ctx, cur.identity);
  saveFlow(svc, f);
  if (!ctx.isJSON) return redirect(303, flowUiUrl(svc, 'settings', f.id));
  return json(200, serializeSettings(svc, ctx, f));
}

export function isPrivileged(svc: Service, cur: Current): boolean {
  const max = durationMs(svc.config.selfservice.flows.settings.privileged_session_max_age, 3600_000);
  return new Date(cur.session.authenticated_at).getTime() + max > svc.clock.now();
}

export function needsReauth(svc: Service, ctx: Ctx, f: Flow, pending: Record<string, unknown>): Reply {
  const back = `${svc.publicUrl}/self-service/settings?flow=${f.id}`;
  const url = `${svc.publicUrl}/self-service/login/browser?refresh=true&return_to=${encodeURIComponent(back)}`;
  // Park the change (continuity) and apply it when the browser comes back after re-authentication;
  // v1.3.1 parks it (and sets the cookie) for JSON callers too, though only a browser comes back for it.
  const key = randomBytes(24).toString('base64url');
  f.internal.pending = pending;
  f.internal.continuity = key;
  saveFlow(svc, f);
  setEntry(svc, ctx, CONTINUITY, key);
  if (!ctx.isJSON) return redirect(303, url);
  throw new KratosError(403, {
    id: 'session_refresh_required',
    reason: 'The login session is too old and thus not allowed to update these fields. Please re-authenticate.',
    extra: { redirect_browser_to: url },
  });
}

function formReply(svc: Service, ctx: Ctx, f: Flow): Reply {
  saveFlow(svc, f);
  if (!ctx.isJSON) return redirect(303, flowUiUrl(svc, 'settings', f.id));
  return json(400, serializeSettings(svc, ctx, f));
}

/**
 * v1.3.1's verification hook, which runs after every settings save (any method): a verification flow
 * and mail for each address still `pending` (a new one, or one never mailed), each listed in
 * continue_with before redirect_browser_to; the flows' request_url (and return_to) is this flow's.
 */
function verifyPendingAddresses(svc: Service, ctx: Ctx, f: Flow, identity: StoredIdentity): unknown[] {
  if (!svc.config.selfservice.flows.verification.enabled) return [];
  // By status alone, as v1.3.1 does for settings (a verified address still `pending` is mailed too).
  const pending = identity.verifiable_addresses.filter((a) => a.status === 'pending');
  return startVerificationFor(svc, ctx, identity, pending, f).map(({ flow, address }) => ({
    action: 'show_verification_ui',
    flow: { id: flow.id, verifiable_address: address, url: flowUiUrl(svc, 'verification', flow.id) },
  }));
}

export function settingsSuccess(svc: Service, ctx: Ctx, f: Flow, cur: Current, identity: StoredIdentity): Reply {
  const shown = verifyPendingAddresses(svc, ctx, f, identity);
  f.state = 'success';
  // v1.3.1's PostSettingsHook makes a new settings flow (stored, this request's URL as its request_url,
  // parked changes aborted) and gives this flow its form: the form's action is the new flow's.
  const next = createSettingsFlowFor(svc, ctx, identity);
  saveFlow(svc, next);
  f.ui = { action: next.ui.action, method: next.ui.method, nodes: next.ui.nodes };
  setUiMessages(f, [msg(1050001)]);
  const target = returnUrl(svc, f, svc.config.selfservice.flows.settings.after.default_browser_return_url, flowUiUrl(svc, 'settings', f.id));
  // v1.3.1 answers the save with continue_with but does not keep it on the flow (a later GET has none).
  f.continue_with = undefined;
  delete f.internal.pending;
  delete f.internal.continuity;
  saveFlow(svc, f);
  f.continue_with = [...shown, { action: 'redirect_browser_to', redirect_browser_to: target }];
  setSessionCookie(svc, ctx, cur.session);
  if (!ctx.isJSON) return redirect(303, target);
  return json(200, serializeSettings(svc, ctx, f));
}

/** POST /self-service/settings?flow= (GET: continuity after re-authentication) */
export async function submitSettings(svc: Service, ctx: Ctx): Promise<Reply> {
  const id = submitFlowId(ctx);
  const f = loadFlow(svc, 'settings', id);
  if (!f) throw errors.flowNotFound('settings');
  const cur = currentSession(svc, ctx);
  if (!cur) {
    if (!ctx.isJSON) return redirect(302, svc.config.selfservice.flows.login.ui_url);
    throw new KratosError(401, { reason: 'A valid Ory Session Cookie or Ory Session Token is missing.' });
  }
  if (cur.identity.id !== f.identity_id) {
    throw new KratosError(403, {
      id: 'security_identity_mismatch',
      reason: 'The request was made for another identity and has been blocked for security reasons.',
    });
  }
  if (isExpired(svc, f)) {
    const nf = createSettingsFlowFor(svc, ctx, cur.identity, f.request_url);
    setUiMessages(nf, [expiredMessage(4050001, new Date(f.expires_at), svc.clock.now())]);
    saveFlow(svc, nf);
    if (!ctx.isJSON) return redirect(303, flowUiUrl(svc, 'settings', nf.id));
    throw expiredOnSubmit(svc, f, nf.id);
  }
  let body: Record<string, unknown>;
  if (ctx.method === 'GET') {
    const key = entry(svc, ctx, CONTINUITY);
    if (!f.internal.pending || !key || key !== f.internal.continuity || !isPrivileged(svc, cur)) {
      return redirect(303, flowUiUrl(svc, 'settings', f.id));
    }
    body = f.internal.pending as Record<string, unknown>;
    delete f.internal.pending;
    delete f.internal.continuity;
    consumeEntry(svc, ctx, CONTINUITY);
    ctx.isJSON = false;
  } else {
    body = await ctx.body();
    // v1.3.1's oidc settings strategy compares no anti-CSRF token (the profile and password ones do).
    if (f.type === 'browser' && !isOidcSettingsSubmit(body)) svc.csrf.verifyBody(ctx, body.csrf_token);
  }
  if (body.transient_payload !== undefined) f.transient_payload = body.transient_payload;
  const { csrf_token: _t, ...pending } = body;
  const identity = cur.identity;
  f.ui.nodes = settingsNodes(svc, identity);
  setUiMessages(f, []);
  f.continue_with = undefined;
  const method = str(body.method) ?? (body.link !== undefined || body.unlink !== undefined ? 'oidc' : undefined);

  if (method === 'profile') {
    if (typeof body.traits !== 'object' || body.traits === null) {
      setUiMessages(f, [reasonMessage('Did not receive any value changes.')]);
      return formReply(svc, ctx, f);
    }
    const traits = coerceTraits(svc.schema, body.traits);
    const errs = validateTraits(svc.schema, traits);
    if (errs) {
      f.ui.nodes = settingsNodes(svc, identity, traits, errs);
      setUiMessages(f, errs.general);
      return formReply(svc, ctx, f);
    }
    const norm = normalizeTraits(svc.schema, traits);
    const probe: StoredIdentity = JSON.parse(JSON.stringify(identity)) as StoredIdentity;
    probe.traits = norm;
    syncAddresses(svc, probe);
    const addrs = (i: StoredIdentity) =>
      JSON.stringify([i.verifiable_addresses.map((a) => a.value), i.recovery_addresses.map((a) => a.value), i.credentials.password?.identifiers ?? []]);
    // v1.3.1 (identity.Manager.requiresPrivilegedAccess) compares the verifiable addresses before and
    // after with reflect.DeepEqual, which a reloaded address never equals: any profile save of an
    // identity with a verifiable address needs a privileged session.
    const protectedChange = addrs(probe) !== addrs(identity) || identity.verifiable_addresses.length + probe.verifiable_addresses.length > 0;
    if (protectedChange && !isPrivileged(svc, cur)) return needsReauth(svc, ctx, f, pending);
    if (identity.credentials.password) {
      const ident = probe.credentials.password!.identifiers[0];
      const other = ident ? svc.store.findIdentityByIdentifier('password', ident) : undefined;
      if (other && other.id !== identity.id) {
        f.ui.nodes = settingsNodes(svc, identity, norm);
        setUiMessages(f, [msg(4000007)]);
        return formReply(svc, ctx, f);
      }
    }
    probe.updated_at = nowIso(svc);
    // v1.3.1 writes the identity back without its state_changed_at (read back as absent).
    delete probe.state_changed_at;
    if (!svc.store.saveIdentity(probe)) {
      setUiMessages(f, [msg(4000007)]);
      return formReply(svc, ctx, f);
    }
    return settingsSuccess(svc, ctx, f, cur, svc.store.getIdentity(identity.id)!);
  }

  if (method === 'password') {
    if (!isPrivileged(svc, cur)) return needsReauth(svc, ctx, f, pending);
    const password = str(body.password) ?? '';
    let pwMsg = password
      ? checkPassword(password, passwordIdentifier(svc, identity.traits), svc.config.selfservice.methods.password.config)
      : msg(4000002, { property: 'password' });
    const old = identity.credentials.password?.config.hashed_password;
    if (!pwMsg && typeof old === 'string' && (await verifyPassword(password, old))) pwMsg = msg(4000039);
    if (pwMsg) {
      f.ui.nodes = settingsNodes(svc, identity, identity.traits, undefined, pwMsg);
      return formReply(svc, ctx, f);
    }
    setPasswordCredential(svc, identity, await hashPassword(password, svc.config.hashers.argon2));
    identity.updated_at = nowIso(svc);
    svc.store.saveIdentity(identity);
    return settingsSuccess(svc, ctx, f, cur, identity);
  }

  // The oidc strategy answers any submit with `link` or `unlink` the profile and password ones left.
  const answered = await settingsOidc(svc, ctx, f, cur, body, pending);
  if (answered) return answered;

  setUiMessages(f, [msg(4010004)]);
  return formReply(svc, ctx, f);
}
