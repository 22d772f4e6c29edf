// Building blocks of the OAuth2 scenarios: registering a client at the admin API, the browser's
// authorize request, the login/consent UI's part (read the request, accept or reject it, send the
// browser to redirect_to), and the client's back end (token, userinfo, introspect, revoke). Every
// step is recorded unless told `record: false`; a step that cannot go on throws with what it got.
import { createHash, randomBytes } from 'node:crypto';
import type { Answer, Client } from '../../client.ts';
import type { OAuth2ScenarioContext } from '../harness.ts';

/** The client's redirect URI: no one listens there, the browser stops at the 303. */
export const CALLBACK = 'http://client.conformance.test/callback';
export const POST_LOGOUT = 'http://client.conformance.test/signed-out';
/** A state long enough for Hydra (8 characters at least); the same on both providers. */
export const STATE = 'conformance-state-1';
export const NONCE = 'conformance-nonce-1';

export type RegisteredClient = { client_id: string; client_secret?: string; redirect_uri: string };
type Options = { record?: boolean };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A confidential client (client_secret_basic, code + refresh_token, openid offline_access email profile) unless `overrides` say otherwise. */
export async function registerClient(ctx: OAuth2ScenarioContext, overrides: Record<string, unknown> = {}, options: Options = {}): Promise<RegisteredClient> {
  const body = {
    client_name: 'Conformance client',
    redirect_uris: [CALLBACK],
    post_logout_redirect_uris: [POST_LOGOUT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    scope: 'openid offline_access email profile',
    token_endpoint_auth_method: 'client_secret_basic',
    ...overrides,
  };
  const answer = await ctx.admin.postJson(ctx.adm('/admin/clients'), body, { record: options.record ?? false });
  if (answer.status !== 201 || !isRecord(answer.body)) throw new Error(`client registration: ${answer.status} ${answer.text.slice(0, 300)}`);
  const created = answer.body as { client_id: string; client_secret?: string; redirect_uris: string[] };
  return { client_id: created.client_id, client_secret: created.client_secret, redirect_uri: created.redirect_uris[0] ?? CALLBACK };
}

/** HTTP Basic client authentication as RFC 6749 §2.3.1 spells it (id and secret form-encoded first). */
export const basic = (id: string, secret: string) => ({
  authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`,
});

export const clientAuth = (client: RegisteredClient) => basic(client.client_id, client.client_secret ?? '');

/** The authorize URL: code flow, the client's redirect URI, openid offline_access, STATE and NONCE, then `params` (a blank value drops one). */
export function authorizeUrl(ctx: OAuth2ScenarioContext, client: RegisteredClient, params: Record<string, string> = {}): string {
  const all: Record<string, string> = {
    client_id: client.client_id,
    response_type: 'code',
    redirect_uri: client.redirect_uri,
    scope: 'openid offline_access',
    state: STATE,
    nonce: NONCE,
    ...params,
  };
  const query = new URLSearchParams(Object.entries(all).filter(([, v]) => v !== ''));
  return ctx.pub(`/oauth2/auth?${query.toString()}`);
}

/** A query parameter of an answer's Location; throws when there is none. */
export function fromLocation(answer: Answer, name: string): string {
  const value = answer.location ? new URL(answer.location).searchParams.get(name) : null;
  if (!value) throw new Error(`expected ${name} in the Location, got ${answer.status} ${answer.location ?? answer.text.slice(0, 300)}`);
  return value;
}

/** The `redirect_to` of an accept/reject answer; throws when there is none. */
export function redirectTo(answer: Answer): string {
  const to = isRecord(answer.body) ? answer.body.redirect_to : undefined;
  if (typeof to !== 'string') throw new Error(`expected {redirect_to}, got ${answer.status} ${answer.text.slice(0, 300)}`);
  return to;
}

type Kind = 'login' | 'consent' | 'logout';
const requestPath = (kind: Kind, challenge: string, action = '') =>
  `/admin/oauth2/auth/requests/${kind}${action}?${kind}_challenge=${encodeURIComponent(challenge)}`;

/** The UI reads the request (GET …/requests/<kind>?<kind>_challenge=). */
export const getRequest = (ctx: OAuth2ScenarioContext, kind: Kind, challenge: string, options: Options = {}) =>
  ctx.admin.getJson(ctx.adm(requestPath(kind, challenge)), options);

/** The UI accepts or rejects the request (PUT …/accept|reject with a JSON body). */
export const decide = (ctx: OAuth2ScenarioContext, kind: Kind, challenge: string, action: 'accept' | 'reject', body: unknown, options: Options = {}) =>
  ctx.admin.request('PUT', ctx.adm(requestPath(kind, challenge, `/${action}`)), { json: body, record: options.record });

/** The browser goes to `url` (a navigation); redirects are not followed. */
export const navigate = (browser: Client, url: string, options: Options = {}) => browser.get(url, { variant: 'browser', record: options.record });

export type Journey = { code: string; callback: Answer; loginChallenge: string; consentChallenge: string };

export type JourneyOptions = {
  subject: string;
  /** Extra authorize parameters. */
  params?: Record<string, string>;
  login?: Record<string, unknown>;
  consent?: Record<string, unknown>;
};

/** Authorize → login request → accept → follow → consent request → accept (the requested scopes) → follow → the code at the redirect URI. */
export async function journey(ctx: OAuth2ScenarioContext, browser: Client, client: RegisteredClient, options: JourneyOptions): Promise<Journey> {
  const loginChallenge = fromLocation(await navigate(browser, authorizeUrl(ctx, client, options.params)), 'login_challenge');
  await getRequest(ctx, 'login', loginChallenge);
  const login = await decide(ctx, 'login', loginChallenge, 'accept', { subject: options.subject, remember: false, ...options.login });
  const consentChallenge = fromLocation(await navigate(browser, redirectTo(login)), 'consent_challenge');
  const consentRequest = await getRequest(ctx, 'consent', consentChallenge);
  const requested = isRecord(consentRequest.body) ? consentRequest.body.requested_scope : undefined;
  const consent = await decide(ctx, 'consent', consentChallenge, 'accept', {
    grant_scope: requested,
    remember: false,
    session: { id_token: { email: `${options.subject}@example.com` }, access_token: { role: 'reader' } },
    ...options.consent,
  });
  const callback = await navigate(browser, redirectTo(consent));
  return { code: fromLocation(callback, 'code'), callback, loginChallenge, consentChallenge };
}

/** The client's back end at the token endpoint (a form post, client_secret_basic unless `headers` say otherwise). */
export const token = (
  ctx: OAuth2ScenarioContext,
  client: RegisteredClient,
  form: Record<string, string>,
  headers: Record<string, string> = clientAuth(client),
  options: Options = {},
) => ctx.admin.postForm(ctx.pub('/oauth2/token'), form, { headers, record: options.record });

export type Tokens = { access_token: string; refresh_token?: string; id_token?: string };

/** The tokens of a token answer; throws when it has none. */
export function tokensOf(answer: Answer): Tokens {
  if (answer.status !== 200 || !isRecord(answer.body) || typeof answer.body.access_token !== 'string')
    throw new Error(`expected tokens, got ${answer.status} ${answer.text.slice(0, 300)}`);
  return answer.body as Tokens;
}

export const exchangeCode = (ctx: OAuth2ScenarioContext, client: RegisteredClient, code: string, extra: Record<string, string> = {}) =>
  token(ctx, client, { grant_type: 'authorization_code', code, redirect_uri: client.redirect_uri, ...extra });

export const introspect = (ctx: OAuth2ScenarioContext, value: string, extra: Record<string, string> = {}) =>
  ctx.admin.postForm(ctx.adm('/admin/oauth2/introspect'), { token: value, ...extra });

export const userinfo = (ctx: OAuth2ScenarioContext, accessToken: string) =>
  ctx.admin.getJson(ctx.pub('/userinfo'), { headers: { authorization: `Bearer ${accessToken}` } });

/** A PKCE pair (RFC 7636, S256). */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}
