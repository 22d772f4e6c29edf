// Recovery flow (contract §5.5, §9): code (default) and link methods, plus admin-created links/codes.
import { randomInt } from 'node:crypto';
import { durationMs } from './config.ts';
import { templates } from './courier.ts';
import { errors } from './errors.ts';
import { json, redirect, str, type Ctx, type Reply } from './http.ts';
import { expiredMessage, msg, reasonMessage } from './messages.ts';
import { csrfNode, input, type UiNode } from './nodes.ts';
import {
  checkReturnTo,
  flowReturnTo,
  flowUiUrl,
  isExpired,
  isReturnToAllowed,
  loadFlow,
  newFlow,
  saveFlow,
  serializeFlow,
  setUiMessages,
  submitFlowId,
  type Flow,
} from './flows.ts';
import { isEmail, normalizeEmail } from './schema.ts';
import { nowIso, type Service } from './service.ts';
import { currentSession, issueSession, randomAlnum } from './sessions.ts';
import { createSettingsFlowFor } from './settings.ts';
import type { StoredIdentity } from './store.ts';

type Method = 'code' | 'link';
interface Secret {
  code?: string;
  token?: string;
  identity_id: string;
  address: string;
  expires_at: number;
  used: boolean;
}

export function freshRecoveryNodes(method: Method): UiNode[] {
  return [
    csrfNode(),
    input('email', 'email', method, { required: true, label: msg(1070007) }),
    input('method', 'submit', method, { value: method, label: msg(1070009) }),
  ];
}

function sentCodeNodes(email: string | undefined): UiNode[] {
  const nodes = [
    csrfNode(),
    input('code', 'text', 'code', { required: true, pattern: '[0-9]+', maxlength: 6, label: msg(1070010) }),
    input('method', 'hidden', 'code', { value: 'code' }),
    input('method', 'submit', 'code', { value: 'code', label: msg(1070009) }),
  ];
  if (email !== undefined) nodes.push(input('email', 'submit', 'code', { value: email, label: msg(1070008) }));
  return nodes;
}

const useMethod = (svc: Service): Method => svc.config.selfservice.flows.recovery.use;

export const serializeRecovery = (svc: Service, ctx: Ctx, f: Flow) => serializeFlow(svc, ctx, f);

export function createRecoveryFlow(svc: Service, ctx: Ctx, requestUrl?: string): Flow {
  const m = useMethod(svc);
  const f = newFlow(svc, ctx, 'recovery', freshRecoveryNodes(m), { active: m });
  if (requestUrl) f.request_url = requestUrl;
  return f;
}

/** GET /self-service/recovery/browser */
export async function createBrowserRecovery(svc: Service, ctx: Ctx): Promise<Reply> {
  checkReturnTo(svc, ctx);
  if (!svc.config.selfservice.flows.recovery.enabled) throw errors.disabled('recovery');
  if (currentSession(svc, ctx)) {
    if (!ctx.isJSON) return redirect(302, svc.config.selfservice.default_browser_return_url);
    throw errors.sessionAlreadyAvailable('A valid session was detected and thus recovery is not possible.');
  }
  const f = createRecoveryFlow(svc, ctx);
  if (ctx.query.get('skip_settings') === 'true') f.internal.skip_settings = true;
  saveFlow(svc, f);
  if (!ctx.isJSON) return redirect(303, flowUiUrl(svc, 'recovery', f.id));
  return json(200, serializeRecovery(svc, ctx, f));
}

function sendRecovery(svc: Service, f: Flow, method: Method, email: string, identity: StoredIdentity | undefined): void {
  const lifespan = durationMs(
    method === 'code' ? svc.config.selfservice.methods.code.config.lifespan : svc.config.selfservice.methods.link.config.lifespan,
    3600_000,
  );
  const minutes = Math.round(lifespan / 60000);
  if (identity) {
    const secrets = (f.internal.secrets ??= []) as Secret[];
    if (method === 'code') {
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      secrets.push({ code, identity_id: identity.id, address: email, expires_at: svc.clock.now() + lifespan, used: false });
      svc.courier.send(templates.recoveryCode(email, code, minutes));
    } else {
      const token = randomAlnum(32);
      secrets.push({ token, identity_id: identity.id, address: email, expires_at: svc.clock.now() + lifespan, used: false });
      svc.courier.send(templates.recoveryLink(email, `${svc.publicUrl}/self-service/recovery?flow=${f.id}&token=${token}`, minutes));
    }
  } else if (svc.config.selfservice.flows.recovery.notify_unknown_recipients) {
    svc.courier.send(method === 'code' ? templates.recoveryCodeInvalid(email) : templates.recoveryLinkInvalid(email));
  }
  f.active = method;
  f.state = 'sent_email';
  if (method === 'code') {
    f.ui.nodes = sentCodeNodes(email);
    setUiMessages(f, [msg(1060003)]);
  } else {
    f.ui.nodes = freshRecoveryNodes('link');
    const n = f.ui.nodes.find((x) => x.attributes.name === 'email')!;
    n.attributes = { name: 'email', type: 'email', value: email, required: true, disabled: false, node_type: 'input' };
    setUiMessages(f, [msg(1060002)]);
  }
}

/** Admin: a flow in sent_email holding a code (skips CSRF) or a link token. */
export function adminRecovery(
  svc: Service,
  ctx: Ctx,
  identity: StoredIdentity,
  kind: Method,
  expiresInMs: number,
  returnTo?: string,
): { flow: Flow; secret: string; expiresAt: string } {
  const requestUrl = `${svc.publicUrl}/self-service/recovery/browser${returnTo ? `?return_to=${encodeURIComponent(returnTo)}` : ''}`;
  const cookies = ctx.setCookies.length;
  // v1.3.1's admin code flow (strategy_recovery_admin.go): the code input and the submit button only,
  // no CSRF node (the flow skips the check), and its request_url is the admin request's own.
  const adminCodeNodes = [
    input('code', 'text', 'code', { required: true, pattern: '[0-9]+', maxlength: 6, label: msg(1070010) }),
    input('method', 'submit', 'code', { value: 'code', label: msg(1070009) }),
  ];
  const f = newFlow(svc, ctx, 'recovery', kind === 'code' ? adminCodeNodes : freshRecoveryNodes('link'), { active: kind, skip_csrf: true });
  // The admin API sets no cookie: the CSRF cookie newFlow may have issued is not for this caller.
  ctx.setCookies.length = cookies;
  if (kind === 'link') f.request_url = requestUrl;
  f.expires_at = new Date(svc.clock.now() + expiresInMs).toISOString();
  f.state = 'sent_email';
  const address = identity.recovery_addresses[0]?.value ?? '';
  const secret = kind === 'code' ? String(randomInt(0, 1_000_000)).padStart(6, '0') : randomAlnum(32);
  f.internal.secrets = [
    { [kind === 'code' ? 'code' : 'token']: secret, identity_id: identity.id, address, expires_at: svc.clock.now() + expiresInMs, used: false },
  ];
  saveFlow(svc, f);
  return { flow: f, secret, expiresAt: f.expires_at };
}

function newFlowWith(svc: Service, ctx: Ctx, old: Flow, message: ReturnType<typeof msg>): Reply {
  const nf = createRecoveryFlow(svc, ctx, old.request_url);
  setUiMessages(nf, [message]);
  saveFlow(svc, nf);
  if (!ctx.isJSON) return redirect(303, flowUiUrl(svc, 'recovery', nf.id));
  return redirect(303, `${svc.publicUrl}/self-service/recovery/flows?id=${nf.id}`);
}

function formReply(svc: Service, ctx: Ctx, f: Flow, status: number): Reply {
  saveFlow(svc, f);
  if (!ctx.isJSON) return redirect(303, flowUiUrl(svc, 'recovery', f.id));
  return json(status, serializeRecovery(svc, ctx, f));
}

/** Correct code or token: session, verified address, settings flow, browser to the settings UI (§9.3). */
function recovered(svc: Service, ctx: Ctx, f: Flow, s: Secret, method: string): Reply {
  const identity = svc.store.getIdentity(s.identity_id);
  if (!identity || identity.state !== 'active') return newFlowWith(svc, ctx, f, msg(method === 'link_recovery' ? 4060004 : 4060006));
  s.used = true;
  const a = identity.verifiable_addresses.find((x) => x.value === s.address);
  if (a && !a.verified) {
    const now = nowIso(svc);
    a.verified = true;
    a.status = 'completed';
    a.verified_at = now;
    a.updated_at = now;
    svc.store.saveIdentity(identity);
  }
  const cur = currentSession(svc, ctx);
  issueSession(svc, ctx, identity, method, cur && cur.identity.id === identity.id ? cur : undefined);
  f.state = 'passed_challenge';
  saveFlow(svc, f);
  const rt = flowReturnTo(f);
  if (f.internal.skip_settings && rt && isReturnToAllowed(svc, rt)) {
    if (!ctx.isJSON) return redirect(303, rt);
    throw errors.locationChange(rt);
  }
  // v1.3.1 creates the settings flow from the recovery request itself: its request_url is that request's
  // URL, with the recovery flow's return_to taken over (x.TakeOverReturnToParameter).
  const settingsRequestUrl = new URL(ctx.requestUrl);
  if (rt) settingsRequestUrl.searchParams.set('return_to', rt);
  const sf = createSettingsFlowFor(svc, ctx, identity, settingsRequestUrl.toString());
  const maxAge = durationMs(svc.config.selfservice.flows.settings.privileged_session_max_age, 3600_000);
  const until = new Date(svc.clock.now() + maxAge);
  setUiMessages(sf, [
    msg(
      1060001,
      {
        privilegedSessionExpiresAt: until.toISOString(),
        privileged_session_expires_at: until.toISOString(),
        privileged_session_expires_at_unix: Math.floor(until.getTime() / 1000),
      },
      { minutes: maxAge / 60000 },
    ),
  ]);
  saveFlow(svc, sf);
  const target = flowUiUrl(svc, 'settings', sf.id);
  if (!ctx.isJSON) return redirect(303, target);
  throw errors.locationChange(target);
}

/** POST (and GET with token) /self-service/recovery?flow= */
export async function submitRecovery(svc: Service, ctx: Ctx): Promise<Reply> {
  const id = submitFlowId(ctx);
  const f = loadFlow(svc, 'recovery', id);
  if (!f) throw errors.flowNotFound('recovery');
  if (isExpired(svc, f)) return newFlowWith(svc, ctx, f, expiredMessage(4060005, new Date(f.expires_at), svc.clock.now()));
  const secrets = (f.internal.secrets ?? []) as Secret[];

  if (ctx.method === 'GET') {
    const token = ctx.query.get('token');
    const hit = token ? secrets.find((s) => s.token === token && !s.used && s.expires_at > svc.clock.now()) : undefined;
    if (!hit || f.state === 'passed_challenge') {
      if (!token) return redirect(303, flowUiUrl(svc, 'recovery', f.id));
      const nf = createRecoveryFlow(svc, ctx, f.request_url);
      setUiMessages(nf, [msg(4060004)]);
      saveFlow(svc, nf);
      return redirect(303, flowUiUrl(svc, 'recovery', nf.id));
    }
    ctx.isJSON = false;
    return recovered(svc, ctx, f, hit, 'link_recovery');
  }

  const body = await ctx.body();
  if (f.type === 'browser' && !f.skip_csrf) {
    try {
      svc.csrf.verifyBody(ctx, body.csrf_token);
    } catch (e) {
      // v1.3.1 (code strategy retryRecoveryFlow) renews the anti-CSRF token when the check fails.
      svc.csrf.regenerate(ctx);
      throw e;
    }
  }
  if (body.transient_payload !== undefined) f.transient_payload = body.transient_payload;
  // v1.3.1 echoes a transient_payload ({} when the body had none) when it sends a code or checks one.
  const echoPayload = () => {
    f.transient_payload = body.transient_payload ?? {};
  };
  const method = (str(body.method) ?? f.active ?? useMethod(svc)) as string;
  if (method !== 'code' && method !== 'link') {
    setUiMessages(f, [msg(4010005)]);
    return formReply(svc, ctx, f, 400);
  }
  const email = str(body.email);
  const code = str(body.code);
  if (email !== undefined && email !== '') {
    if (f.state === 'passed_challenge') return newFlowWith(svc, ctx, f, msg(4060001));
    const norm = normalizeEmail(email);
    if (!isEmail(norm)) {
      f.ui.nodes = freshRecoveryNodes(method);
      // v1.3.1: the body fails the method's JSON schema, so the stored flow comes back as it was, with
      // the validator's 4000001 on its (first) email node.
      f.ui.nodes.find((x) => x.attributes.name === 'email')?.messages.push(reasonMessage(`"${email}" is not valid "email"`));
      return formReply(svc, ctx, f, 400);
    }
    echoPayload();
    sendRecovery(svc, f, method, norm, svc.store.findIdentityByAddress(norm, 'recovery'));
    return formReply(svc, ctx, f, 200);
  }
  if (method === 'code' && code !== undefined && code !== '') {
    echoPayload();
    if (f.state === 'passed_challenge') {
      setUiMessages(f, [msg(4060006)]);
      return formReply(svc, ctx, f, 200);
    }
    f.internal.submissions = (f.internal.submissions ?? 0) + 1;
    if (f.internal.submissions > svc.config.selfservice.methods.code.config.max_submissions) {
      return newFlowWith(svc, ctx, f, reasonMessage('The request was submitted too often. Please request another code.'));
    }
    const match = secrets.find((s) => s.code === code);
    if (match?.used) return newFlowWith(svc, ctx, f, reasonMessage('The code was already used. Please request another code.'));
    if (!match || match.expires_at < svc.clock.now()) {
      setUiMessages(f, [msg(4060006)]);
      return formReply(svc, ctx, f, 200);
    }
    return recovered(svc, ctx, f, match, 'code_recovery');
  }
  const emailNode = f.ui.nodes.find((x) => x.attributes.name === 'email' && x.attributes.type !== 'submit');
  if (emailNode) emailNode.messages = [msg(4000002, { property: 'email' })];
  else setUiMessages(f, [msg(4000002, { property: 'code' })]);
  return formReply(svc, ctx, f, 400);
}
