// What follows a sign-in that proved who it is (v1.3.1 login.HookExecutor.PostLoginHook), for the
// password and the oidc method: account linking, the disabled-identity check, the method's hooks, the
// session and the answer.
import { errorJson, forwardError } from './error-ui.ts';
import { errors, KratosError } from './errors.ts';
import { flowUiUrl, returnUrl, saveFlow, serializeFlow, setUiMessages, type Flow } from './flows.ts';
import { json, redirect, type Ctx, type Reply } from './http.ts';
import { msg } from './messages.ts';
import type { UiNode } from './nodes.ts';
import { acceptLoginRequest } from './oauth2.ts';
import { maybeLinkCredentials } from './oidc/linking.ts';
import type { Service } from './service.ts';
import { issueSession, serializeSession, type Current } from './sessions.ts';
import type { StoredIdentity } from './store.ts';

export interface LoginSuccess {
  method: 'password' | 'oidc';
  /** The social provider signed in with (the session's AMR entry names it). */
  provider?: string;
  /** The session of this browser, when the flow re-authenticates it (refresh). */
  previous?: Current;
  /** The flow's nodes as stored before this submit: a hook's refusal shows them again. */
  storedNodes: UiNode[];
}

/** The login hooks of a method: `after.<method>.hooks` when that list has any, else `after.hooks` (never merged). */
export function loginHooksOf(svc: Service, method: 'password' | 'oidc'): string[] {
  const after = svc.config.selfservice.flows.login.after;
  const own = after[method]?.hooks;
  return (own?.length ? own : (after.hooks ?? [])).map((h) => h.hook);
}

function formError(svc: Service, ctx: Ctx, f: Flow): Reply {
  saveFlow(svc, f);
  if (f.type === 'browser' && !ctx.isJSON) return redirect(303, flowUiUrl(svc, 'login', f.id));
  return json(400, serializeFlow(svc, ctx, f));
}

/** The flow back with one message, its nodes as they were stored (their messages reset). */
function refused(svc: Service, ctx: Ctx, f: Flow, s: LoginSuccess, id: number): Reply {
  f.ui.nodes = s.storedNodes;
  for (const n of f.ui.nodes) n.messages = [];
  f.active = s.method;
  setUiMessages(f, [msg(id)]);
  return formError(svc, ctx, f);
}

export async function completeLogin(svc: Service, ctx: Ctx, f: Flow, identity: StoredIdentity, s: LoginSuccess): Promise<Reply> {
  // maybeLinkCredentials runs first: a sign-in on an account-linking flow adds the social credential.
  const linking = maybeLinkCredentials(svc, f, identity);
  if (linking === 'mismatch') return refused(svc, ctx, f, s, 4010009);
  if (identity.state !== 'active') {
    // v1.3.1 refuses to activate the session (session.ErrIdentityDisabled): an error, not a form error —
    // JSON 401, a browser to the error UI.
    throw new KratosError(401, { reason: 'This account was disabled.', details: { identity_id: identity.id }, message: 'identity is disabled' });
  }
  // require_verified_address (v1.3.1 AddressVerifier) looks at password sign-ins only.
  if (s.method === 'password' && loginHooksOf(svc, 'password').includes('require_verified_address') && !identity.verifiable_addresses.some((a) => a.verified)) {
    if (identity.verifiable_addresses.length === 0) {
      throw new KratosError(500, {
        reason: 'A misconfiguration prevents login. Expected to find a verification address but this identity does not have one assigned.',
      });
    }
    // No session; the flow, still usable, comes back with 4000010 as its only message.
    return refused(svc, ctx, f, s, 4000010);
  }
  const api = f.type === 'api';
  const session = issueSession(svc, ctx, identity, s.method, s.previous, {
    cookie: !api,
    provider: s.provider,
    alsoCompleted: linking === 'linked' ? ['oidc'] : [],
  });
  f.active = s.method;
  f.state = 'passed_challenge';
  saveFlow(svc, f);
  // An API flow (v1.3.1 login/hook.go): the session token in the body, no cookie, no continue_with items.
  if (api) return json(200, { session_token: session.token, session: serializeSession(svc, session, identity), continue_with: null });
  // A flow answering an OAuth2 login challenge: the provider's login request is accepted for this
  // session (after the cookie is set, as v1.3.1 does) and the browser goes to its redirect_to.
  if (f.oauth2_login_challenge) {
    let redirectTo: string;
    try {
      redirectTo = await acceptLoginRequest(svc, f.oauth2_login_challenge, session);
    } catch (e) {
      if (e instanceof KratosError) return forwardError(svc, ctx, e);
      throw e;
    }
    return ctx.isJSON ? errorJson(ctx, errors.locationChange(redirectTo)) : redirect(303, redirectTo);
  }
  const after = svc.config.selfservice.flows.login.after;
  const target = returnUrl(svc, f, after[s.method]?.default_browser_return_url, after.default_browser_return_url);
  if (!ctx.isJSON) return redirect(303, target);
  return json(200, {
    session: serializeSession(svc, session, identity),
    continue_with: [{ action: 'redirect_browser_to', redirect_browser_to: target }],
  });
}
