// Kratos's OAuth2 provider integration (v1.3.1 hydra/hydra.go, contract §15): with `oauth2_provider.url`
// (the OAuth2 provider's admin URL, Hydra's or the stand-in's) a login or registration flow created with
// `login_challenge` carries the challenge, shows the provider's login request, and a sign-in on it
// accepts that request and sends the browser to the provider's redirect_to. Without the URL the
// challenge is refused (500), as Kratos does.
import { durationMs } from './config.ts';
import { forwardError } from './error-ui.ts';
import { KratosError } from './errors.ts';
import { json, negotiate, redirect, type Ctx, type Reply } from './http.ts';
import { goEncodeQuery } from './request-url.ts';
import type { Flow } from './flows.ts';
import type { Service } from './service.ts';
import { currentSession, setSessionCookie, type Current } from './sessions.ts';
import type { StoredSession } from './store.ts';

/** Every call to the provider's admin API gives up after this long (Kratos has no setting for it). */
export const OAUTH2_ADMIN_TIMEOUT_MS = 10_000;

const adminUrl = (svc: Service): string | undefined => svc.config.oauth2_provider?.url?.replace(/\/+$/, '') || undefined;

/**
 * hydra.GetLoginChallengeID: the `login_challenge` of the request, undefined when there is none; a
 * 500 when the integration is not configured, a 400 when the parameter is empty.
 */
export function loginChallengeOf(svc: Service, ctx: Ctx): string | undefined {
  if (!ctx.query.has('login_challenge')) return undefined;
  if (!adminUrl(svc)) {
    throw new KratosError(500, { reason: 'refusing to parse login_challenge query parameter because oauth2_provider.url is invalid or unset' });
  }
  const challenge = ctx.query.get('login_challenge') ?? '';
  if (!challenge) throw new KratosError(400, { reason: 'the login_challenge parameter is present but empty' });
  return challenge;
}

/**
 * Sets one query parameter the way Kratos does before it makes the flow (`q.Set(...)`, then
 * `r.URL.RawQuery = q.Encode()`): the flow's request_url then carries it, the query re-encoded as Go does.
 */
export function setRequestQuery(ctx: Ctx, name: string, value: string): void {
  ctx.query.set(name, value);
  const u = new URL(ctx.requestUrl);
  ctx.requestUrl = `${u.origin}${u.pathname}?${goEncodeQuery(ctx.query)}`;
}

/** The provider's login request as Kratos relays it: hydra-client-go re-encodes it, keys sorted and null members left out. */
function asRelayed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(asRelayed);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const member = (value as Record<string, unknown>)[key];
    if (member !== null) out[key] = asRelayed(member);
  }
  return out;
}

/**
 * The provider's answer. `debug` is what Kratos keeps as its error's debug: hydra-client-go's error text,
 * the status line (Go's Response.Status) when the body decoded, "undefined response type" when the
 * answer was not JSON.
 */
type Answer = { status: number; debug: string; body: unknown };

async function call(svc: Service, method: 'GET' | 'PUT', path: string, challenge: string, body?: unknown): Promise<Answer | undefined> {
  const url = `${adminUrl(svc)}${path}?login_challenge=${encodeURIComponent(challenge)}`;
  const headers: Record<string, string> = { accept: 'application/json', ...(svc.config.oauth2_provider?.headers ?? {}) };
  if (body !== undefined) headers['content-type'] = 'application/json';
  try {
    const response = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'manual',
      signal: AbortSignal.timeout(OAUTH2_ADMIN_TIMEOUT_MS),
    });
    const text = await response.text();
    // v1.3.1's HTTP client retries a 5xx and then gives up without an answer: Kratos reports no status.
    if (response.status >= 500) return undefined;
    const json = /\bjson\b/i.test(response.headers.get('content-type') ?? '');
    let parsed: unknown;
    try {
      parsed = json ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, debug: json ? `${response.status} ${response.statusText}` : 'undefined response type', body: parsed };
  } catch {
    // No answer at all (refused, timed out): Kratos then has no status to report.
    return undefined;
  }
}

/**
 * The error details Kratos adds: the provider's status, and the error hint when the answer decoded as
 * an OAuth2 error (hydra-client-go decodes every error status that way except a login GET's 410, which
 * is a redirect). Written in Go's map order (keys sorted).
 */
function details(answer: Answer, redirectStatus?: number): Record<string, unknown> | undefined {
  const d: Record<string, unknown> = {};
  const body = answer.body;
  if (answer.status !== redirectStatus && typeof body === 'object' && body !== null && !Array.isArray(body)) {
    const hint = (body as { error_hint?: unknown }).error_hint;
    d.oauth2_error_hint = typeof hint === 'string' ? hint : '';
  }
  d.status_code = answer.status;
  return d;
}

/** hydra.GetLoginRequest: the provider's login request, or Kratos's error (400; 500 when there was no answer or a 5xx). */
export async function getLoginRequest(svc: Service, challenge: string): Promise<Record<string, unknown>> {
  const answer = await call(svc, 'GET', '/admin/oauth2/auth/requests/login', challenge);
  const reason = 'Unable to get OAuth 2.0 Login Challenge.';
  if (!answer) throw new KratosError(500, { reason });
  if (answer.status >= 300) throw new KratosError(400, { reason, details: details(answer, 410), debug: answer.debug });
  if (typeof answer.body !== 'object' || answer.body === null) throw new KratosError(500, { reason });
  return asRelayed(answer.body) as Record<string, unknown>;
}

/** v1.3.1 shows a flow's OAuth2 login request again on every GET of the flow; the provider's refusal is forwarded (the answer then). */
export async function withLoginRequest(svc: Service, ctx: Ctx, f: Flow): Promise<Reply | undefined> {
  if (!f.oauth2_login_challenge) return undefined;
  try {
    f.oauth2_login_request = await getLoginRequest(svc, f.oauth2_login_challenge);
    return undefined;
  } catch (e) {
    if (e instanceof KratosError) return forwardError(svc, ctx, e);
    throw e;
  }
}

/**
 * hydra.AcceptLoginRequest: accepts the login request for the session's identity (remember and
 * remember_for from the session cookie settings, the session's methods as amr) and answers the
 * provider's redirect_to; any failure is Kratos's 500 "Unable to accept OAuth 2.0 Login Challenge.".
 */
export async function acceptLoginRequest(svc: Service, challenge: string, session: StoredSession): Promise<string> {
  const body = {
    subject: session.identity_id,
    identity_provider_session_id: session.id,
    remember: svc.config.session.cookie.persistent !== false,
    remember_for: Math.floor(durationMs(svc.config.session.lifespan, 24 * 3600_000) / 1000),
    amr: session.authentication_methods.map((m) => m.method),
  };
  const answer = await call(svc, 'PUT', '/admin/oauth2/auth/requests/login/accept', challenge, body);
  const reason = 'Unable to accept OAuth 2.0 Login Challenge.';
  if (!answer) throw new KratosError(500, { reason });
  if (answer.status >= 300) throw new KratosError(500, { reason, details: details(answer), debug: answer.debug });
  const redirectTo = (answer.body as { redirect_to?: unknown } | undefined)?.redirect_to;
  if (typeof redirectTo !== 'string') throw new KratosError(500, { reason });
  return redirectTo;
}

/** x.AcceptToRedirectOrJSON: the Accept header alone picks JSON or the redirect. */
const acceptsJson = (ctx: Ctx) => negotiate(ctx.req.headers.accept, ['text/html', 'application/json'], 'text/html') === 'application/json';

/**
 * A browser already signed in, on a challenge the provider may skip: the login request is accepted at
 * once for this session and the browser sent on (a JSON caller gets 200 with `null`, v1.3.1).
 */
export async function acceptWithSession(svc: Service, ctx: Ctx, oauth2: { challenge: string; request: Record<string, unknown> }, cur: Current): Promise<Reply> {
  if (oauth2.request.skip !== true) {
    return forwardError(svc, ctx, new KratosError(500, { reason: 'ErrAlreadyLoggedIn indicated we can skip login, but Hydra asked us to refresh' }));
  }
  let redirectTo: string;
  try {
    redirectTo = await acceptLoginRequest(svc, oauth2.challenge, cur.session);
  } catch (e) {
    if (e instanceof KratosError) return forwardError(svc, ctx, e);
    throw e;
  }
  return acceptsJson(ctx) ? json(200, null) : redirect(303, redirectTo);
}

/** What a verification flow started by a sign-up on an OAuth2 challenge keeps (v1.3.1 OAuth2LoginChallengeParams). */
type VerificationChallenge = { challenge: string; session_id: string };

/** Records, on the verification flows a sign-up started, the challenge and the session to accept it for. */
export function keepChallengeForVerification(registration: Flow, verification: Flow, session: StoredSession): void {
  if (!registration.oauth2_login_challenge) return;
  const kept: VerificationChallenge = { challenge: registration.oauth2_login_challenge, session_id: session.id };
  verification.internal.oauth2 = kept;
}

/**
 * v1.3.1 verification handler: a browser (not a JSON caller) that has just verified, on a flow started
 * by a sign-up that answered an OAuth2 challenge, gets the challenge accepted for the sign-up's session,
 * that session's cookie, and a 303 to the provider. Undefined when this does not apply.
 */
export async function acceptAfterVerification(svc: Service, ctx: Ctx, f: Flow): Promise<Reply | undefined> {
  const kept = f.internal.oauth2 as VerificationChallenge | undefined;
  const browser = negotiate(ctx.req.headers.accept, ['text/html', 'text/*', '*/*', 'application/json'], 'text/html') === 'text/html';
  if (!browser || f.state !== 'passed_challenge' || !kept?.challenge) return undefined;
  const session = svc.store.getSession(kept.session_id);
  if (!session) return undefined;
  let redirectTo: string;
  try {
    redirectTo = await acceptLoginRequest(svc, kept.challenge, session);
  } catch (e) {
    if (e instanceof KratosError) return forwardError(svc, ctx, e);
    throw e;
  }
  // IssueCookie: a new anti-CSRF token unless the browser's session already was this identity's.
  const before = currentSession(svc, ctx);
  setSessionCookie(svc, ctx, session);
  if (!before || before.identity.id !== session.identity_id) svc.csrf.regenerate(ctx);
  return redirect(303, redirectTo);
}
