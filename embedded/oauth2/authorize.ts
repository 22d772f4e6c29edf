// GET|POST /oauth2/auth: a new authorization request goes to the login UI every time (skip=true when the
// browser has a remembered login), the login verifier leads to the consent UI every time (skip=true when
// a remembered consent covers the scopes), and the consent verifier ends in a code for the client.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { grantTypesOf, redirectUriMatches, responseTypesOf, type Client } from './clients.ts';
import { TTL, type Context } from './context.ts';
import { HydraError, oauthError } from './errors.ts';
import { aliasFlow, newFlow, newSecretToken, rememberedConsentCovers, saveFlow, splitList, type Flow, type Verdict } from './flows.ts';
import { clearCookie, cookie, parseCookies, readForm, redirectFound, redirectSeeOther, withQuery } from './http.ts';
import { murmur3 } from './murmur.ts';
import { issueToken } from './tokens.ts';
import { currentLoginSession, saveLoginSession, SESSION_COOKIE, type LoginSession } from './login-sessions.ts';

const MIN_STATE_LENGTH = 8;
const PROMPTS = ['none', 'login', 'consent', 'select_account', 'registration'];

export const loginCsrfCookie = (clientId: string) => `ory_hydra_login_csrf_dev_${murmur3(clientId)}`;
export const consentCsrfCookie = (clientId: string) => `ory_hydra_consent_csrf_dev_${murmur3(clientId)}`;

/** An error for the client: 303 to its redirect URI with error, error_description, state. */
class ClientError extends Error {
  readonly error: HydraError;
  readonly redirectUri: string;
  readonly state: string;
  constructor(error: HydraError, redirectUri: string, state: string) {
    super(error.description);
    this.error = error;
    this.redirectUri = redirectUri;
    this.state = state;
  }
}

export async function handleAuthorize(req: IncomingMessage, res: ServerResponse, ctx: Context): Promise<void> {
  const url = new URL(req.url ?? '/', ctx.publicUrl);
  const params: Record<string, string> = Object.fromEntries(url.searchParams);
  if (req.method === 'POST') for (const [key, value] of await readForm(req)) params[key] = value;
  try {
    if (params.login_verifier) return afterLogin(req, res, ctx, params.login_verifier);
    if (params.consent_verifier) return afterConsent(req, res, ctx, params.consent_verifier);
    return newRequest(req, res, ctx, params, `${ctx.publicUrl}${url.pathname}${url.search}`);
  } catch (error) {
    if (error instanceof ClientError) {
      return redirectSeeOther(
        res,
        withQuery(error.redirectUri, [
          ['error', error.error.error],
          ['error_description', error.error.description],
          ['state', error.state],
        ]),
      );
    }
    if (error instanceof HydraError) {
      return redirectFound(
        res,
        withQuery(ctx.urls.error, [
          ['error', error.error],
          ['error_description', error.description],
        ]),
      );
    }
    throw error;
  }
}

function newRequest(req: IncomingMessage, res: ServerResponse, ctx: Context, params: Record<string, string>, requestUrl: string): void {
  const client = params.client_id ? ctx.store.get<Client>('client', params.client_id) : undefined;
  if (!client) throw oauthError('invalid_client', 'The requested OAuth 2.0 Client does not exist.');
  const scope = splitList(params.scope);
  let redirectUri = params.redirect_uri ?? '';
  if (!redirectUri) {
    if (scope.includes('openid')) throw oauthError('invalid_request', "The 'redirect_uri' parameter is required when using OpenID Connect 1.0.");
    if (client.redirect_uris.length !== 1)
      throw oauthError(
        'invalid_request',
        "The 'redirect_uri' parameter is required because the OAuth 2.0 Client has none or more than one pre-registered redirect URIs.",
      );
    redirectUri = client.redirect_uris[0]!;
  } else if (!redirectUriMatches(client, redirectUri)) {
    throw oauthError('invalid_request', "The 'redirect_uri' parameter does not match any of the OAuth 2.0 Client's pre-registered redirect urls.");
  }
  const state = params.state ?? '';
  const fail = (error: string, hint: string) => new ClientError(oauthError(error, hint), redirectUri, state);

  const responseType = params.response_type ?? '';
  if (!responseType) throw fail('unsupported_response_type', "`The request is missing the 'response_type' parameter.");
  if (!responseTypesOf(client).includes(responseType))
    throw fail('unsupported_response_type', `The client is not allowed to request response_type '${responseType}'.`);
  if (responseType !== 'code') throw fail('unsupported_response_type', `The embedded stand-in only supports response_type 'code'.`);
  if (!grantTypesOf(client).includes('authorization_code'))
    throw fail('unauthorized_client', "The OAuth 2.0 Client is not allowed to use authorization grant 'authorization_code'.");
  if (state.length < MIN_STATE_LENGTH)
    throw fail('invalid_state', `Request parameter 'state' must be at least be ${MIN_STATE_LENGTH} characters long to ensure sufficient entropy.`);
  const allowed = splitList(client.scope);
  for (const s of scope) if (!allowed.includes(s)) throw fail('invalid_scope', `The OAuth 2.0 Client is not allowed to request scope '${s}'.`);
  const audience = splitList(params.audience);
  for (const a of audience)
    if (!client.audience.includes(a)) throw fail('invalid_request', `Requested audience '${a}' has not been whitelisted by the OAuth 2.0 Client.`);
  // An unknown code_challenge_method passes here and fails at the token endpoint, as in real Hydra v2.3.0.
  const prompt = splitList(params.prompt);
  for (const p of prompt) if (!PROMPTS.includes(p)) throw fail('invalid_request', `Used unknown value '${params.prompt}' for prompt parameter`);
  if (prompt.includes('none') && prompt.length > 1)
    throw fail('invalid_request', "Parameter 'prompt' was set to 'none', but contains other values as well which is not allowed.");

  const session = currentLoginSession(req, ctx);
  const maxAge = params.max_age ? Number(params.max_age) : undefined;
  const fresh = !session || maxAge === undefined || ctx.clock.now() - session.authenticatedAt <= maxAge * 1000;
  const skip = Boolean(session?.remember) && fresh && !prompt.includes('login') && !prompt.includes('select_account');
  if (prompt.includes('none') && !skip) throw fail('login_required', "Prompt 'none' was requested, but no existing login session was found.");

  const flow = newFlow({
    clientId: client.client_id,
    requestUrl,
    params,
    redirectUri,
    requestedScope: scope,
    requestedAudience: audience,
    oidcContext: oidcContext(params),
    requestedAt: ctx.clock.now(),
    loginSkip: skip,
    loginSubject: skip ? session!.subject : '',
    sessionId: skip ? session!.id : randomUUID(),
    ...(skip ? { authenticatedAt: session!.authenticatedAt } : {}),
  });
  saveFlow(ctx, flow);
  aliasFlow(ctx, `login_challenge:${flow.loginChallenge}`, flow);
  const ui = prompt.includes('registration') && ctx.urls.registration ? ctx.urls.registration : ctx.urls.login;
  const target = new URL(ui);
  target.searchParams.set('login_challenge', flow.loginChallenge);
  if (params.identity_schema) target.searchParams.set('identity_schema', params.identity_schema);
  redirectFound(res, target.toString(), [cookie(loginCsrfCookie(client.client_id), flow.loginCsrf, TTL.loginConsentRequestMs / 1000, ctx.clock.now())]);
}

function oidcContext(params: Record<string, string>): Record<string, unknown> {
  return {
    ...(params.acr_values ? { acr_values: splitList(params.acr_values) } : {}),
    ...(params.ui_locales ? { ui_locales: splitList(params.ui_locales) } : {}),
    ...(params.display ? { display: params.display } : {}),
    ...(params.login_hint ? { login_hint: params.login_hint } : {}),
  };
}

function csrfCheck(req: IncomingMessage, name: string, expected: string | undefined, flow: Flow): void {
  const value = parseCookies(req).get(name);
  if (value === undefined)
    throw new ClientError(oauthError('request_forbidden', 'No CSRF value available in the session cookie.'), flow.redirectUri, flow.params.state ?? '');
  if (value !== expected) {
    throw new ClientError(
      oauthError('request_forbidden', 'The CSRF value from the token does not match the CSRF value from the data store.'),
      flow.redirectUri,
      flow.params.state ?? '',
    );
  }
}

function afterLogin(req: IncomingMessage, res: ServerResponse, ctx: Context, verifier: string): void {
  const verdict = ctx.store.get<Verdict>('verdict', verifier);
  const flow = verdict && ctx.store.get<Flow>('flow', verdict.flowId);
  if (!verdict || !flow) throw oauthError('access_denied', 'The login verifier has already been used, has not been granted, or is invalid.');
  const state = flow.params.state ?? '';
  csrfCheck(req, loginCsrfCookie(flow.clientId), flow.loginCsrf, flow);
  if (verdict.loginError) throw new ClientError(rejection(verdict.loginError), flow.redirectUri, state);
  const client = ctx.store.get<Client>('client', flow.clientId);
  const login = verdict.login!;
  flow.login = login;
  if (!client) throw oauthError('invalid_client', 'The requested OAuth 2.0 Client does not exist.');

  const cookies: string[] = [];
  const now = ctx.clock.now();
  if (!flow.loginSkip) {
    const current = currentLoginSession(req, ctx);
    // remember=false ends the browser's remembered login (Hydra revokes its authentication session).
    if (current && (!login.remember || current.id !== flow.sessionId)) ctx.store.delete('login_session', current.id);
    const lifespanMs = login.rememberFor > 0 ? Math.min(login.rememberFor * 1000, TTL.authenticationSessionMs) : TTL.authenticationSessionMs;
    const session: LoginSession = {
      id: flow.sessionId,
      subject: login.subject,
      remember: login.remember,
      authenticatedAt: now,
      expiresAt: now + lifespanMs,
      identityProviderSessionId: login.identityProviderSessionId,
    };
    saveLoginSession(ctx, session);
    flow.authenticatedAt = now;
    // remember=false: Hydra always answers with the remember cookie removed.
    cookies.push(login.remember ? cookie(SESSION_COOKIE, session.id, login.rememberFor > 0 ? lifespanMs / 1000 : undefined, now) : clearCookie(SESSION_COOKIE));
  } else if (login.extendSessionLifespan) {
    const session = ctx.store.get<LoginSession>('login_session', flow.sessionId);
    const lifespanMs = login.rememberFor > 0 ? Math.min(login.rememberFor * 1000, TTL.authenticationSessionMs) : TTL.authenticationSessionMs;
    if (session) {
      saveLoginSession(ctx, { ...session, expiresAt: now + lifespanMs });
      cookies.push(cookie(SESSION_COOKIE, session.id, login.rememberFor > 0 ? lifespanMs / 1000 : undefined, now));
    }
  }

  const prompt = splitList(flow.params.prompt);
  const publicNonLocal = client.token_endpoint_auth_method === 'none' && !/^(https:|http:\/\/(localhost|127\.0\.0\.1|\[::1\])[:/])/.test(flow.redirectUri);
  const consentSkip =
    !prompt.includes('consent') && !publicNonLocal && rememberedConsentCovers(ctx, login.subject, client, flow.requestedScope, flow.requestedAudience);
  if (prompt.includes('none') && !consentSkip)
    throw new ClientError(oauthError('consent_required', "Prompt 'none' was requested, but no previous consent was found."), flow.redirectUri, state);
  // Following the same verifier again starts another consent (as real Hydra v2.3.0 does).
  flow.consentChallenge = newSecretToken();
  flow.consentCsrf = newSecretToken();
  flow.consentSkip = consentSkip;
  flow.consentRequestedAt = now;
  flow.consentRequestId = randomUUID();
  flow.consent = undefined;
  saveFlow(ctx, flow);
  aliasFlow(ctx, `consent_challenge:${flow.consentChallenge}`, flow);
  cookies.push(cookie(consentCsrfCookie(flow.clientId), flow.consentCsrf, TTL.loginConsentRequestMs / 1000, now));
  const target = new URL(ctx.urls.consent);
  target.searchParams.set('consent_challenge', flow.consentChallenge);
  redirectFound(res, target.toString(), cookies);
}

function rejection(rejected: { error: string; error_description: string; status_code: number }): HydraError {
  return new HydraError(rejected.error, undefined, { description: rejected.error_description, status: rejected.status_code });
}

function afterConsent(req: IncomingMessage, res: ServerResponse, ctx: Context, verifier: string): void {
  const verdict = ctx.store.get<Verdict>('verdict', verifier);
  const flow = verdict && ctx.store.get<Flow>('flow', verdict.flowId);
  if (!verdict || !flow) throw oauthError('access_denied', 'The consent verifier has already been used, has not been granted, or is invalid.');
  const state = flow.params.state ?? '';
  csrfCheck(req, consentCsrfCookie(flow.clientId), flow.consentCsrf, flow);
  // One verdict per consent: real Hydra v2.3.0 refuses a second one for the same request (a consent
  // rejected, then accepted from the reopened page) as a used verifier.
  if (verdict.used || flow.consentHandled)
    throw new ClientError(oauthError('access_denied', 'The consent verifier has already been used.'), flow.redirectUri, state);
  ctx.store.put('verdict', verifier, { ...verdict, used: true }, { ref: flow.id });
  flow.consentHandled = true;
  saveFlow(ctx, flow);
  if (verdict.consentError) throw new ClientError(rejection(verdict.consentError), flow.redirectUri, state);
  const consent = verdict.consent!;
  flow.consent = consent;
  flow.consentUsed = true;
  saveFlow(ctx, flow);
  const { value: code } = issueToken(
    ctx,
    {
      kind: 'ac',
      flowId: flow.id,
      clientId: flow.clientId,
      subject: flow.login!.subject,
      scope: consent.grantScope,
      audience: consent.grantAudience,
      redirectUri: flow.params.redirect_uri ?? '',
      ...(flow.params.code_challenge ? { codeChallenge: flow.params.code_challenge, codeChallengeMethod: flow.params.code_challenge_method || 'plain' } : {}),
      ...(flow.params.nonce ? { nonce: flow.params.nonce } : {}),
      ext: consent.session.access_token,
    },
    TTL.authCodeMs,
  );
  redirectSeeOther(
    res,
    withQuery(flow.redirectUri, [
      ['code', code],
      ['scope', consent.grantScope.join(' ')],
      ['state', state],
    ]),
  );
}

/** Whether the client may get a refresh token for these granted scopes (Hydra: offline or offline_access, and the grant type). */
export const refreshAllowed = (client: Client, scope: string[]) =>
  grantTypesOf(client).includes('refresh_token') && (scope.includes('offline_access') || scope.includes('offline'));
