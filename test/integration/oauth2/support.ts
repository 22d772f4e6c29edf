// The OAuth2 client's side of the app's Hydra tests: a registered client, its authorize URL, a browser
// walking Hydra's and the app's redirects (one cookie jar for 127.0.0.1, as a browser keeps cookies per
// host whatever the port), the code exchange and userinfo. Works on real Hydra and on the stand-in.
import { expect } from 'vitest';
import { STRONG_PASSWORD } from '../../support/fixtures.ts';
import { Browser, formAction, hiddenValue, type Answer } from '../../support/http.ts';
import type { Stack } from '../../support/stack.ts';

export const REDIRECT_URI = 'http://127.0.0.1:9/callback'; // never contacted: the walk stops there
export const POST_LOGOUT_URI = 'http://127.0.0.1:9/signed-out';

export type Client = { client_id: string; client_secret: string; client_name: string };

export async function registerClient(stack: Stack, extra: Record<string, unknown> = {}): Promise<Client> {
  const response = await fetch(`${stack.oauth2!.adminUrl}/admin/clients`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Document app',
      redirect_uris: [REDIRECT_URI],
      post_logout_redirect_uris: [POST_LOGOUT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      scope: 'openid offline_access email profile',
      token_endpoint_auth_method: 'client_secret_basic',
      ...extra,
    }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as Client;
}

export const STATE = 'state-of-at-least-eight';

export function authorizeUrl(stack: Stack, client: Client, scope = 'openid offline_access email profile', extra: Record<string, string> = {}): string {
  const query = new URLSearchParams({ client_id: client.client_id, response_type: 'code', scope, redirect_uri: REDIRECT_URI, state: STATE, ...extra });
  return `${stack.oauth2!.publicUrl}/oauth2/auth?${query}`;
}

/** Follows redirects across Hydra and the app until a page answers or the client's redirect URI is reached. */
export async function walk(browser: Browser, start: string, max = 12): Promise<Answer & { url: string }> {
  let url = start;
  for (let hop = 0; hop < max; hop += 1) {
    if (url.startsWith(REDIRECT_URI) || url.startsWith(POST_LOGOUT_URI)) return { status: 0, headers: new Headers(), text: '', setCookies: [], url };
    const answer = await browser.get(url);
    if (answer.status < 300 || answer.status >= 400 || !answer.location) return { ...answer, url };
    url = new URL(answer.location, url).href;
  }
  throw new Error(`too many redirects from ${start}`);
}

/** Posts an app form found in `page` (its action resolved against the app) and walks on from the answer. */
export async function submitAndWalk(browser: Browser, appUrl: string, action: string, form: Record<string, string>) {
  const posted = await browser.post(new URL(action, appUrl).href, form);
  if (posted.status < 300 || posted.status >= 400 || !posted.location) return { ...posted, url: action, posted };
  return { ...(await walk(browser, new URL(posted.location, appUrl).href)), posted };
}

/** On the app's sign-in page (reached through Hydra): sign in with a password; walks on to wherever it leads. */
export async function signInOnPage(browser: Browser, appUrl: string, page: Answer & { url: string }, email: string, password = STRONG_PASSWORD) {
  expect(new URL(page.url).pathname).toBe('/sign-in');
  const action = formAction(page.text, 'sign-in-form');
  const csrf = hiddenValue(page.text, 'csrf_token');
  if (!action || !csrf) throw new Error(`no sign-in form (status ${page.status}) at ${page.url}`);
  return submitAndWalk(browser, appUrl, action, { csrf_token: csrf, identifier: email, password, method: 'password' });
}

/** On the consent page: press Allow or Deny (remember ticked or not). */
export function answerConsent(browser: Browser, appUrl: string, page: Answer & { url: string }, decision: 'allow' | 'deny', remember = false) {
  expect(new URL(page.url).pathname).toBe('/consent');
  const challenge = hiddenValue(page.text, 'consent_challenge');
  const csrf = hiddenValue(page.text, '_csrf');
  if (!challenge || !csrf) throw new Error(`no consent form (status ${page.status})`);
  return submitAndWalk(browser, appUrl, '/consent', { _csrf: csrf, consent_challenge: challenge, decision, ...(remember ? { remember: 'true' } : {}) });
}

export function callbackParams(url: string): URLSearchParams {
  expect(url.startsWith(REDIRECT_URI)).toBe(true);
  return new URL(url).searchParams;
}

export type Tokens = { access_token: string; id_token?: string; refresh_token?: string; scope: string };

export async function exchangeCode(stack: Stack, client: Client, code: string): Promise<Tokens> {
  const response = await fetch(`${stack.oauth2!.publicUrl}/oauth2/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Tokens;
}

export async function userinfo(stack: Stack, accessToken: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${stack.oauth2!.publicUrl}/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

export function idTokenClaims(idToken: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(idToken.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** The login request of a challenge, read at Hydra's admin API (skip, subject). */
export async function loginRequest(stack: Stack, challenge: string): Promise<{ skip: boolean; subject: string }> {
  const response = await fetch(`${stack.oauth2!.adminUrl}/admin/oauth2/auth/requests/login?login_challenge=${encodeURIComponent(challenge)}`);
  expect(response.status).toBe(200);
  return (await response.json()) as { skip: boolean; subject: string };
}
