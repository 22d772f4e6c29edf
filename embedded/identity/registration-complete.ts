// What follows a registration that created its identity (v1.3.1 registration.HookExecutor.
// PostRegistrationHook), for the password and the oidc method: the return URL, the verification hook
// (whenever verification is enabled), the method's hooks (`session`, `show_verification_ui`) and the answer.
import { forwardError } from './error-ui.ts';
import { KratosError } from './errors.ts';
import { flowUiUrl, returnUrl, saveFlow, type Flow } from './flows.ts';
import { json, redirect, type Ctx, type Reply } from './http.ts';
import { publicIdentity } from './identities.ts';
import { acceptLoginRequest, keepChallengeForVerification } from './oauth2.ts';
import type { Service } from './service.ts';
import { issueSession, serializeSession } from './sessions.ts';
import type { StoredIdentity } from './store.ts';
import { startVerificationFor } from './verification.ts';

/** A method's registration hooks: `after.<method>.hooks` when that list has any, else `after.hooks` (never merged). */
export function registrationHooksOf(svc: Service, method: 'password' | 'oidc'): string[] {
  const after = svc.config.selfservice.flows.registration.after;
  const own = after[method]?.hooks;
  return (own?.length ? own : (after.hooks ?? [])).map((h) => h.hook);
}

export async function completeRegistration(
  svc: Service,
  ctx: Ctx,
  f: Flow,
  identity: StoredIdentity,
  method: 'password' | 'oidc',
  provider?: string,
): Promise<Reply> {
  const hooks = registrationHooksOf(svc, method);
  // v1.3.1 stores a session for every registration; only the `session` hook gives the browser its
  // cookie. The stand-in keeps a cookie-less one only where it is seen: as the session an OAuth2
  // challenge is accepted for.
  const session = hooks.includes('session')
    ? issueSession(svc, ctx, identity, method, undefined, { provider })
    : f.oauth2_login_challenge
      ? issueSession(svc, ctx, identity, method, undefined, { provider, cookie: false })
      : undefined;
  const after = svc.config.selfservice.flows.registration.after;
  const target = returnUrl(svc, f, after[method]?.default_browser_return_url, after.default_browser_return_url);
  // v1.3.1's order: redirect_browser_to first (added before the post-persist hooks run), then one
  // show_verification_ui item per unverified address from the verification hook, which runs whenever
  // verification is enabled (the show_verification_ui hook only picks the browser's redirect). Newer
  // Kratos lists show_verification_ui only with that hook configured.
  const continueWith: unknown[] = [{ action: 'redirect_browser_to', redirect_browser_to: target }];
  let verificationUi: string | undefined;
  if (svc.config.selfservice.flows.verification.enabled) {
    const flows = startVerificationFor(
      svc,
      ctx,
      identity,
      identity.verifiable_addresses.filter((a) => !a.verified),
      f,
    );
    for (const { flow, address } of flows) {
      // The verification flow keeps the OAuth2 challenge: a browser verifying there accepts it (oauth2.ts).
      if (session && f.oauth2_login_challenge) {
        keepChallengeForVerification(f, flow, session);
        saveFlow(svc, flow);
      }
      const url = flowUiUrl(svc, 'verification', flow.id);
      continueWith.push({ action: 'show_verification_ui', flow: { id: flow.id, verifiable_address: address, url } });
      if (hooks.includes('show_verification_ui')) verificationUi = url;
    }
  }
  const fresh = svc.store.getIdentity(identity.id) ?? identity;
  // A browser (not a JSON caller: v1.3.1 accepts nothing there) on a flow answering an OAuth2 challenge
  // goes to the provider's redirect_to, unless it is shown the verification UI first.
  if (!ctx.isJSON && f.type === 'browser' && f.oauth2_login_challenge && !verificationUi && session) {
    try {
      return redirect(303, await acceptLoginRequest(svc, f.oauth2_login_challenge, session));
    } catch (e) {
      if (e instanceof KratosError) return forwardError(svc, ctx, e);
      throw e;
    }
  }
  if (!ctx.isJSON) return redirect(303, verificationUi ?? target);
  const out: Record<string, unknown> = {};
  if (session) out.session = serializeSession(svc, session, fresh);
  out.identity = publicIdentity(svc, fresh);
  out.continue_with = continueWith;
  return json(200, out);
}
