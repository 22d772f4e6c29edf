// Shared set-up of the OAuth2 stand-in tests: a provider on free ports with a test clock and a fake
// identity service that records the session deletions logout makes, an admin caller, client
// registration, and the steps of the authorization code flow as a browser (Browser: a cookie jar,
// redirects not followed) and a relying party make them.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash, randomBytes } from 'node:crypto';
import { createTestClock, type TestClock } from '../../../embedded/clock.ts';
import { startOAuth2Provider, type OAuth2Provider } from '../../../embedded/oauth2/index.ts';
import { Browser, type Answer } from '../../support/http.ts';

export const APP = 'http://app.test';
export const UI = { login: `${APP}/sign-in`, consent: `${APP}/consent`, logout: `${APP}/logout`, error: `${APP}/error`, postLogout: `${APP}/` };
export const RP = 'http://127.0.0.1:5555';
export const REDIRECT_URI = `${RP}/callback`;

export type Harness = {
  provider: OAuth2Provider;
  clock: TestClock;
  /** Paths the identity service was sent DELETE requests for. */
  identityDeletes: string[];
  close(): Promise<void>;
};

export async function startHarness(database = ':memory:'): Promise<Harness> {
  const identityDeletes: string[] = [];
  const identity: Server = createServer((req, res) => {
    if (req.method === 'DELETE') identityDeletes.push(req.url ?? '');
    res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => identity.listen(0, '127.0.0.1', resolve));
  const clock = createTestClock();
  const provider = await startOAuth2Provider({
    database,
    urls: UI,
    clock,
    identityProviderAdminUrl: `http://127.0.0.1:${(identity.address() as AddressInfo).port}`,
  });
  return {
    provider,
    clock,
    identityDeletes,
    async close() {
      await provider.close();
      identity.closeAllConnections();
      await new Promise<void>((resolve) => identity.close(() => resolve()));
    },
  };
}

export type AdminAnswer = { status: number; body: any; headers: Headers };

export async function admin(provider: OAuth2Provider, method: string, path: string, body?: unknown): Promise<AdminAnswer> {
  const response = await fetch(`${provider.adminUrl}${path}`, {
    method,
    redirect: 'manual',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: the text is the body
  }
  return { status: response.status, body: parsed, headers: response.headers };
}

export type ClientSpec = Record<string, unknown>;

export async function createClient(provider: OAuth2Provider, spec: ClientSpec = {}): Promise<{ id: string; secret: string }> {
  const answer = await admin(provider, 'POST', '/admin/clients', {
    client_secret: 'a-client-secret',
    redirect_uris: [REDIRECT_URI],
    post_logout_redirect_uris: [`${RP}/`],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    scope: 'openid offline_access email',
    ...spec,
  });
  if (answer.status !== 201) throw new Error(`client not created: ${answer.status} ${JSON.stringify(answer.body)}`);
  return { id: answer.body.client_id, secret: answer.body.client_secret };
}

export function authorizeUrl(provider: OAuth2Provider, clientId: string, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: REDIRECT_URI,
    scope: 'openid offline_access',
    state: 'state-12345',
    nonce: 'nonce-12345',
    ...extra,
  });
  return `${provider.publicUrl}/oauth2/auth?${query}`;
}

export function param(location: string | undefined, name: string): string {
  const value = new URL(location ?? 'http://none').searchParams.get(name);
  if (value === null) throw new Error(`no ${name} in ${location}`);
  return value;
}

export const newBrowser = (provider: OAuth2Provider) => new Browser(provider.publicUrl);

export type FlowOptions = {
  authorize?: Record<string, string>;
  login?: (request: any) => Record<string, unknown>;
  consent?: (request: any) => Record<string, unknown>;
};

export type FlowResult = { loginRequest: any; consentRequest: any; final: Answer };

/** One authorization round as the app's UI would drive it: authorize → login UI → accept → consent UI → accept → client. */
export async function runFlow(provider: OAuth2Provider, browser: Browser, clientId: string, options: FlowOptions = {}): Promise<FlowResult> {
  const start = await browser.get(authorizeUrl(provider, clientId, options.authorize));
  if (start.status !== 302 || !start.location?.startsWith(UI.login)) throw new Error(`authorize: ${start.status} ${start.location}`);
  const loginChallenge = param(start.location, 'login_challenge');
  const loginRequest = (await admin(provider, 'GET', `/admin/oauth2/auth/requests/login?login_challenge=${encodeURIComponent(loginChallenge)}`)).body;
  const loginAccept = await admin(
    provider,
    'PUT',
    `/admin/oauth2/auth/requests/login/accept?login_challenge=${encodeURIComponent(loginChallenge)}`,
    options.login?.(loginRequest) ?? { subject: loginRequest.skip ? loginRequest.subject : 'user-1', remember: true },
  );
  const afterLogin = await browser.get(loginAccept.body.redirect_to);
  if (afterLogin.status !== 302 || !afterLogin.location?.startsWith(UI.consent)) throw new Error(`login verifier: ${afterLogin.status} ${afterLogin.location}`);
  const consentChallenge = param(afterLogin.location, 'consent_challenge');
  const consentRequest = (await admin(provider, 'GET', `/admin/oauth2/auth/requests/consent?consent_challenge=${encodeURIComponent(consentChallenge)}`)).body;
  const consentAccept = await admin(
    provider,
    'PUT',
    `/admin/oauth2/auth/requests/consent/accept?consent_challenge=${encodeURIComponent(consentChallenge)}`,
    options.consent?.(consentRequest) ?? { grant_scope: consentRequest.requested_scope, remember: true },
  );
  const final = await browser.get(consentAccept.body.redirect_to);
  return { loginRequest, consentRequest, final };
}

export type TokenAnswer = { status: number; body: any; headers: Headers };

export async function token(provider: OAuth2Provider, form: Record<string, string>, basic?: { id: string; secret: string }): Promise<TokenAnswer> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (basic) headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(basic.id)}:${encodeURIComponent(basic.secret)}`).toString('base64')}`;
  const response = await fetch(`${provider.publicUrl}/oauth2/token`, { method: 'POST', headers, body: new URLSearchParams(form) });
  return { status: response.status, body: await response.json(), headers: response.headers };
}

export const exchangeCode = (provider: OAuth2Provider, client: { id: string; secret: string }, code: string, extra: Record<string, string> = {}) =>
  token(provider, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, ...extra }, client);

export function claimsOf(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}
