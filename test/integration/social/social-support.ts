// Social sign-in over HTTP, as a browser would do it: our page's provider button, the provider's
// choose-account page (test/support/providers.ts), Kratos's callback, and every redirect after it
// between the app and the identity service (one host, one cookie jar: test/support/http.ts Browser).
import http from 'node:http';
import { expect } from 'vitest';
import type { ProviderId } from '../../../embedded/providers/index.ts';
import { formAction, hiddenValue, type Answer, type Browser } from '../../support/http.ts';
import { signInAtProvider, type ProviderChoice } from '../../support/providers.ts';
import type { Stack } from '../../support/stack.ts';

export const PROVIDERS: readonly ProviderId[] = ['google', 'microsoft', 'dropbox', 'apple'];

const FORM_IDS = { '/sign-in': 'sign-in-form', '/sign-up': 'sign-up-form' } as const;

/** Opens our page (following our redirects to its flow) and returns the form's action and CSRF token. */
export async function openForm(browser: Browser, path: '/sign-in' | '/sign-up', query = '') {
  const page = await browser.follow(`${path}${query}`);
  expect(page.status, page.text.slice(0, 300)).toBeLessThan(500);
  return { page, action: formAction(page.text, FORM_IDS[path])!, csrf: hiddenValue(page.text, 'csrf_token')! };
}

/** Presses a provider button (a plain form post): our answer, a 303 to the provider. */
export async function pressProvider(browser: Browser, path: '/sign-in' | '/sign-up', provider: string, query = '', extra: Record<string, string> = {}) {
  const { action, csrf } = await openForm(browser, path, query);
  const terms: Record<string, string> = path === '/sign-up' ? { terms: 'on' } : {};
  return browser.post(action, { csrf_token: csrf, provider, ...terms, ...extra });
}

/**
 * Follows redirects from `answer` between the app and the identity service (never to a provider), as a
 * browser would, and returns the last answer with its URL.
 */
export async function followOn(stack: Stack, browser: Browser, answer: Answer, from: string, max = 8): Promise<Answer & { url: string }> {
  const ours = new Set([new URL(stack.appUrl).origin, new URL(stack.identity.publicUrl).origin]);
  let current = { ...answer, url: from };
  for (let hop = 0; hop < max; hop += 1) {
    if (current.status < 300 || current.status >= 400 || !current.location) return current;
    const next = new URL(current.location, current.url);
    if (!ours.has(next.origin)) return current;
    current = { ...(await browser.get(next.href)), url: next.href };
  }
  throw new Error(`too many redirects after ${from}`);
}

/** At the provider: choose `choice`, come back to Kratos's callback as the browser would, and follow on. */
export async function returnFromProvider(stack: Stack, browser: Browser, authorizeUrl: string, choice: ProviderChoice) {
  const back = await signInAtProvider(authorizeUrl, choice);
  const answer = back.method === 'GET' ? await browser.get(back.url) : await browser.post(back.url, back.form);
  return followOn(stack, browser, answer, back.url);
}

/** Presses the provider's button on `path` and signs in there with `choice`: where the browser ends. */
export async function socialRoundTrip(stack: Stack, browser: Browser, path: '/sign-in' | '/sign-up', provider: ProviderId, choice: ProviderChoice, query = '') {
  const pressed = await pressProvider(browser, path, provider, query);
  expect(pressed.status, pressed.text.slice(0, 500)).toBe(303);
  return returnFromProvider(stack, browser, pressed.location!, choice);
}

export const pathOf = (url: string) => {
  const parsed = new URL(url);
  return parsed.pathname;
};

/** Fetch Metadata of a top-level navigation the user made (following a link from another site). */
export const USER_NAVIGATION = { 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document', 'sec-fetch-site': 'cross-site', 'sec-fetch-user': '?1' };

/**
 * A GET with exactly these request headers, over node:http: fetch (undici) always sends
 * `Sec-Fetch-Mode: cors`, so it cannot play a browser's navigation. Cookies go both ways with `browser`.
 */
export function navigate(browser: Browser, path: string, headers: Record<string, string>): Promise<Answer> {
  const url = new URL(path, browser.baseUrl);
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { accept: 'text/html', cookie: browser.cookieHeader(), ...headers } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        const setCookies = response.headers['set-cookie'] ?? [];
        for (const line of setCookies) {
          const [pair = ''] = line.split(';');
          const eq = pair.indexOf('=');
          if (eq > 0) browser.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
        }
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(response.headers)) if (typeof value === 'string') responseHeaders.set(name, value);
        resolve({ status: response.statusCode ?? 0, headers: responseHeaders, text, location: response.headers.location, setCookies });
      });
    });
    request.on('error', reject);
  });
}

/** Signs out as the page does: GET /logout for our token, then POST it. */
export async function signOut(browser: Browser): Promise<void> {
  const page = await browser.get('/logout');
  const answer = await browser.post('/logout', { _csrf: hiddenValue(page.text, '_csrf')! });
  expect(answer.status).toBe(303);
}

/** Whether `browser` is signed in (the home page answers, instead of sending it to sign in). */
export async function signedIn(browser: Browser): Promise<boolean> {
  return (await browser.get('/')).status === 200;
}

/** The linked login services the backend has recorded (`user/confirm-link-account`) for the signed-in browser. */
export async function backendLinks(stack: Stack, browser: Browser): Promise<{ provider: string; email: string }[]> {
  const whoami = await fetch(`${stack.identity.publicUrl}/sessions/whoami?tokenize_as=authorization`, {
    headers: { cookie: browser.cookieHeader(), accept: 'application/json' },
  });
  const token = ((await whoami.json()) as { tokenized?: string }).tokenized;
  const user = await fetch(`${stack.backend.url}/api/user/get-current-user`, { headers: { authorization: `Bearer ${token}` } });
  expect(user.status).toBe(200);
  return ((await user.json()) as { linkedAccounts: { provider: string; email: string }[] }).linkedAccounts;
}
