// Verification flow (contract §5.6, §10): code (default) and link methods; automatic verification
// mails after registration and settings changes.
import { randomInt } from 'node:crypto';
import { durationMs } from './config.ts';
import { templates } from './courier.ts';
import { errors, KratosError } from './errors.ts';
import { json, redirect, str, type Ctx, type Reply } from './http.ts';
import { expiredMessage, msg, reasonMessage } from './messages.ts';
import { anchor, csrfNode, input, type UiNode } from './nodes.ts';
import { checkReturnTo, flowUiUrl, isExpired, loadFlow, newFlow, returnUrl, saveFlow, serializeFlow, setUiMessages, submitFlowId, type Flow } from './flows.ts';
import { acceptAfterVerification } from './oauth2.ts';
import { isEmail, normalizeEmail } from './schema.ts';
import { nowIso, type Service } from './service.ts';
import type { StoredIdentity } from './store.ts';
import { randomAlnum } from './sessions.ts';
import { postHookRequestUrl } from './request-url.ts';

type Method = 'code' | 'link';

export function freshVerificationNodes(method: Method): UiNode[] {
  const nodes = [
    input('email', 'email', method, { required: true, label: msg(1070007) }),
    input('method', 'submit', method, { value: method, label: msg(1070009) }),
  ];
  // v1.3.1: the link strategy's form starts with the CSRF node, the code strategy's ends with it.
  return method === 'link' ? [csrfNode(), ...nodes] : [...nodes, csrfNode()];
}

function sentNodes(method: Method, email: string, resend = true): UiNode[] {
  if (method === 'link') {
    return [
      csrfNode(),
      input('email', 'email', 'link', { value: email, required: true, label: msg(1070007) }),
      input('method', 'submit', 'link', { value: 'link', label: msg(1070009) }),
    ];
  }
  return [
    input('method', 'hidden', 'code', { value: 'code' }),
    // v1.3.1's code input has no autocomplete attribute.
    input('code', 'text', 'code', { required: true, label: msg(1070011) }),
    input('method', 'submit', 'code', { value: 'code', label: msg(1070009) }),
    csrfNode(),
    // The resend button only when the address came from the form (a hook-made flow has none in v1.3.1).
    ...(resend ? [input('email', 'submit', 'code', { value: email, label: msg(1070008) })] : []),
  ];
}

const useMethod = (svc: Service): Method => svc.config.selfservice.flows.verification.use;
const codeLifespan = (svc: Service) => durationMs(svc.config.selfservice.methods.code.config.lifespan, 3600_000);
const linkLifespan = (svc: Service) => durationMs(svc.config.selfservice.methods.link.config.lifespan, 3600_000);

export const serializeVerification = (svc: Service, ctx: Ctx, f: Flow) => serializeFlow(svc, ctx, f);

function createVerificationFlow(svc: Service, ctx: Ctx, requestUrl?: string): Flow {
  const m = useMethod(svc);
  const f = newFlow(svc, ctx, 'verification', freshVerificationNodes(m), { active: m });
  if (requestUrl) f.request_url = requestUrl;
  return f;
}

/** Sends a code or link for `email` on flow `f` (known address) and moves it to sent_email. */
function sendVerification(svc: Service, f: Flow, method: Method, email: string, identity: StoredIdentity | undefined, resend = true): void {
  const lifespan = method === 'code' ? codeLifespan(svc) : linkLifespan(svc);
  const expiresAt = svc.clock.now() + lifespan;
  const minutes = Math.round(lifespan / 60000);
  const notify = svc.config.selfservice.flows.verification.notify_unknown_recipients;
  if (identity) {
    const codes = (f.internal.codes ??= []) as { code?: string; token?: string; address: string; expires_at: number; used: boolean }[];
    if (method === 'code') {
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      codes.push({ code, address: email, expires_at: expiresAt, used: false });
      const url = `${svc.publicUrl}/self-service/verification?flow=${f.id}&code=${code}`;
      svc.courier.send(templates.verificationCode(email, code, url, minutes));
    } else {
      const token = randomAlnum(32);
      codes.push({ token, address: email, expires_at: expiresAt, used: false });
      svc.courier.send(templates.verificationLink(email, `${svc.publicUrl}/self-service/verification?flow=${f.id}&token=${token}`, minutes));
    }
    svc.store.tx(() => {
      const fresh = svc.store.getIdentity(identity.id);
      const a = fresh?.verifiable_addresses.find((x) => x.value === email);
      if (fresh && a && a.status === 'pending') {
        a.status = 'sent';
        a.updated_at = nowIso(svc);
        svc.store.saveIdentity(fresh);
      }
    });
  } else if (notify) {
    svc.courier.send(method === 'code' ? templates.verificationCodeInvalid(email) : templates.verificationLinkInvalid(email));
  }
  f.active = method;
  f.state = 'sent_email';
  f.ui.nodes = sentNodes(method, email, resend);
  f.internal.email = email;
  setUiMessages(f, [msg(method === 'code' ? 1080003 : 1080001)]);
}

/**
 * Verification mails after registration/settings (§10.4): one flow per address, its request_url (and so
 * its return_to) taken from the parent flow. After a registration the anti-CSRF token is renewed first,
 * as v1.3.1's verification hook does for registration and login; after settings the current one is kept.
 */
export function startVerificationFor(
  svc: Service,
  ctx: Ctx,
  identity: StoredIdentity,
  addresses: { value: string }[],
  parent: Flow,
): { flow: Flow; address: string }[] {
  const out: { flow: Flow; address: string }[] = [];
  for (const a of addresses) {
    if (parent.kind === 'registration') svc.csrf.regenerate(ctx);
    const f = createVerificationFlow(svc, ctx, postHookRequestUrl(parent.request_url));
    sendVerification(svc, f, useMethod(svc), a.value, identity, false);
    saveFlow(svc, f);
    out.push({ flow: f, address: a.value });
  }
  return out;
}

/** GET /self-service/verification/browser */
export async function createBrowserVerification(svc: Service, ctx: Ctx): Promise<Reply> {
  if (!svc.config.selfservice.flows.verification.enabled) throw errors.disabled('verification');
  checkReturnTo(svc, ctx);
  const f = createVerificationFlow(svc, ctx);
  saveFlow(svc, f);
  if (!ctx.isJSON) return redirect(303, flowUiUrl(svc, 'verification', f.id));
  return json(200, serializeVerification(svc, ctx, f));
}

function successUi(svc: Service, f: Flow): void {
  const target = returnUrl(svc, f, svc.config.selfservice.flows.verification.after.default_browser_return_url);
  f.state = 'passed_challenge';
  f.ui = {
    action: target,
    method: 'GET',
    // v1.3.1 keeps the CSRF node before the continue link.
    nodes: [csrfNode(), anchor('continue', target, msg(1070009), f.active === 'link' ? 'link' : 'code')],
    messages: [msg(1080002)],
  };
}

function markVerified(svc: Service, email: string): void {
  svc.store.tx(() => {
    const identity = svc.store.findIdentityByAddress(email, 'verifiable');
    const a = identity?.verifiable_addresses.find((x) => x.value === email);
    if (!identity || !a) return;
    const now = nowIso(svc);
    a.verified = true;
    a.status = 'completed';
    a.verified_at = now;
    a.updated_at = now;
    identity.updated_at = now;
    svc.store.saveIdentity(identity);
  });
}

/** A replacement flow (new id) carrying `message`; JSON callers get 410 self_service_flow_replaced. */
function replaced(svc: Service, ctx: Ctx, old: Flow, message: ReturnType<typeof msg>): Reply {
  // v1.3.1 (retryVerificationFlowWithMessage): the new flow comes with a new anti-CSRF token.
  svc.csrf.regenerate(ctx);
  const nf = createVerificationFlow(svc, ctx, old.request_url);
  setUiMessages(nf, [message]);
  saveFlow(svc, nf);
  if (!ctx.isJSON) return redirect(303, flowUiUrl(svc, 'verification', nf.id));
  throw new KratosError(410, {
    id: 'self_service_flow_replaced',
    reason: 'An error occured, please use the new flow.',
    message: 'self-service flow replaced',
    extra: { use_flow_id: nf.id },
  });
}

function formReply(svc: Service, ctx: Ctx, f: Flow, status: number): Reply {
  saveFlow(svc, f);
  if (!ctx.isJSON) return redirect(303, flowUiUrl(svc, 'verification', f.id));
  return json(status, serializeVerification(svc, ctx, f));
}

/** POST (and GET with code/token) /self-service/verification?flow= */
export async function submitVerification(svc: Service, ctx: Ctx): Promise<Reply> {
  const id = submitFlowId(ctx);
  const f = loadFlow(svc, 'verification', id);
  if (!f) throw errors.flowNotFound('verification');
  if (isExpired(svc, f)) {
    // v1.3.1 (verification/error.go): the replacement flow gets a new anti-CSRF token.
    svc.csrf.regenerate(ctx);
    const nf = createVerificationFlow(svc, ctx, f.request_url);
    setUiMessages(nf, [expiredMessage(4070005, new Date(f.expires_at), svc.clock.now())]);
    saveFlow(svc, nf);
    if (!ctx.isJSON) return redirect(303, flowUiUrl(svc, 'verification', nf.id));
    return redirect(303, `${svc.publicUrl}/self-service/verification/flows?id=${nf.id}`);
  }
  const codes = (f.internal.codes ?? []) as { code?: string; token?: string; address: string; expires_at: number; used: boolean }[];

  if (ctx.method === 'GET') {
    const code = ctx.query.get('code');
    const token = ctx.query.get('token');
    if (code) {
      // The e-mail link fills the code and sends the browser to the UI, where the user confirms (§10.3.3).
      const t = svc.csrf.regenerate(ctx);
      f.csrf_token = t.toString('base64');
      const n = f.ui.nodes.find((x) => x.attributes.name === 'code');
      if (n && f.state === 'sent_email') {
        const a: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(n.attributes)) {
          if (k === 'value') continue;
          a[k] = v;
          if (k === 'type') a.value = code;
        }
        n.attributes = a;
      }
      saveFlow(svc, f);
      return redirect(303, flowUiUrl(svc, 'verification', f.id));
    }
    if (token && f.active && f.active !== 'link') {
      // v1.3.1 (verification/handler.go, error.go): only the flow's active strategy may answer, and the
      // code strategy is not responsible for a link token: the same flow comes back with 4010006 added
      // to its messages, active "default", and the e-mail field (not the resend button) as its form.
      setUiMessages(f, [...(f.ui.messages ?? []), msg(4010006)]);
      const email = input('email', 'email', 'code', { value: '', required: true, label: msg(1070007) });
      f.ui.nodes = f.ui.nodes.map((n) => (n.group === 'code' && n.attributes.name === 'email' ? email : n));
      f.active = 'default';
      saveFlow(svc, f);
      return redirect(303, flowUiUrl(svc, 'verification', f.id));
    }
    if (token) {
      const hit = codes.find((c) => c.token === token && !c.used && c.expires_at > svc.clock.now());
      if (!hit || f.state === 'passed_challenge') {
        svc.csrf.regenerate(ctx);
        const nf = createVerificationFlow(svc, ctx, f.request_url);
        setUiMessages(nf, [msg(4070001)]);
        saveFlow(svc, nf);
        return redirect(303, flowUiUrl(svc, 'verification', nf.id));
      }
      hit.used = true;
      markVerified(svc, hit.address);
      // The link may be opened in another browser: bind the flow to this browser's anti-CSRF token (a
      // new one only if it has none, as v1.3.1 does).
      f.csrf_token = svc.csrf.ensure(ctx).toString('base64');
      f.active = 'link';
      successUi(svc, f);
      saveFlow(svc, f);
      return (await acceptAfterVerification(svc, ctx, f)) ?? redirect(303, flowUiUrl(svc, 'verification', f.id));
    }
    return redirect(303, flowUiUrl(svc, 'verification', f.id));
  }

  const body = await ctx.body();
  if (f.type === 'browser' && !f.skip_csrf) svc.csrf.verifyBody(ctx, body.csrf_token);
  if (body.transient_payload !== undefined) f.transient_payload = body.transient_payload;
  const method = (str(body.method) ?? f.active ?? useMethod(svc)) as string;
  if (method !== 'code' && method !== 'link') {
    setUiMessages(f, [msg(4010006)]);
    return formReply(svc, ctx, f, 400);
  }
  if (f.state === 'passed_challenge') return replaced(svc, ctx, f, msg(4070002));
  const email = str(body.email);
  const code = str(body.code);
  if (email !== undefined && email !== '') {
    const norm = normalizeEmail(email);
    if (!isEmail(norm)) {
      // v1.3.1: the body fails the method's JSON schema, so the stored flow comes back as it was, with
      // the validator's 4000001 on its (first) email node.
      f.ui.nodes.find((x) => x.attributes.name === 'email')?.messages.push(reasonMessage(`"${email}" is not valid "email"`));
      return formReply(svc, ctx, f, 400);
    }
    sendVerification(svc, f, method, norm, svc.store.findIdentityByAddress(norm, 'verifiable'));
    return formReply(svc, ctx, f, 200);
  }
  if (method === 'code' && code !== undefined && code !== '') {
    f.internal.submissions = (f.internal.submissions ?? 0) + 1;
    if (f.internal.submissions > svc.config.selfservice.methods.code.config.max_submissions) {
      return replaced(svc, ctx, f, reasonMessage('The request was submitted too often. Please request another code.'));
    }
    const match = codes.find((c) => c.code === code);
    if (match?.used) return replaced(svc, ctx, f, reasonMessage('The code was already used. Please request another code.'));
    if (!match || match.expires_at < svc.clock.now()) {
      // v1.3.1 echoes transient_payload ({} when none was sent) with the wrong-code answer.
      f.transient_payload = body.transient_payload ?? {};
      setUiMessages(f, [msg(4070006)]);
      return formReply(svc, ctx, f, 200);
    }
    match.used = true;
    markVerified(svc, match.address);
    successUi(svc, f);
    saveFlow(svc, f);
    return (await acceptAfterVerification(svc, ctx, f)) ?? formReply(svc, ctx, f, 200);
  }
  const emailNode = f.ui.nodes.find((x) => x.attributes.name === 'email' && x.attributes.type !== 'submit');
  if (emailNode) emailNode.messages = [msg(4000002, { property: 'email' })];
  else setUiMessages(f, [msg(4000002, { property: 'code' })]);
  return formReply(svc, ctx, f, 400);
}
