// What the gateway tests share: the app clients registered with ids chosen by the test (real Hydra
// v2.3.0 accepts a caller-chosen client_id; the app's config names them before the clients exist), PKCE
// values, and a browser walk across the app, Kratos and the OAuth2 provider until a non-local redirect.
import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { ROUTES } from '../../../core/routes.ts';
import { DESKTOP_REDIRECT_URIS } from '../../../scripts/oauth2-clients.ts';
import { formAction, hiddenValue, type Browser } from '../../support/http.ts';

export const DESKTOP_CLIENT_ID = 'gateway-test-desktop';
export const MOBILE_CLIENT_ID = 'gateway-test-mobile';

/** The app's config: both gateways on, their clients trusted (consent given without asking). */
export const GATEWAY_ENV = {
  GATEWAY_DESKTOP_CLIENT_ID: DESKTOP_CLIENT_ID,
  GATEWAY_MOBILE_CLIENT_ID: MOBILE_CLIENT_ID,
  OAUTH2_TRUSTED_CLIENT_IDS: `${DESKTOP_CLIENT_ID},${MOBILE_CLIENT_ID}`,
};

export async function registerGatewayClients(adminUrl: string, appUrl: string): Promise<void> {
  const common = {
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    scope: 'openid offline_access',
    token_endpoint_auth_method: 'none',
  };
  for (const client of [
    { client_id: DESKTOP_CLIENT_ID, client_name: 'Desktop app (test)', redirect_uris: DESKTOP_REDIRECT_URIS, ...common },
    { client_id: MOBILE_CLIENT_ID, client_name: 'Mobile app (test)', redirect_uris: [`${appUrl}${ROUTES.gatewayCallback}`], ...common },
  ]) {
    const response = await fetch(`${adminUrl}/admin/clients`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(client),
    });
    expect(response.status, await response.clone().text()).toBe(201);
  }
}

export function pkcePair() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/**
 * Follows redirects from `start` through every server of the stack (the Browser sends its cookies to all
 * of them, as a browser on 127.0.0.1 does) until a redirect to `stopAt` (returned, not followed). A sign-in
 * form on the way is answered with `password` when given: real Kratos v1.3.1 asks for it again (a refresh
 * flow) when Hydra has no remembered login for the browser yet (skip=false). Any other page throws.
 */
export async function walkUntil(browser: Browser, start: string, stopAt: string, password?: string, maxHops = 20): Promise<URL> {
  let url = start;
  const seen: string[] = [];
  for (let hop = 0; hop < maxHops; hop += 1) {
    let answer = await browser.get(url);
    seen.push(`${answer.status} ${url.slice(0, 120)}`);
    const action = answer.status === 200 ? formAction(answer.text, 'sign-in-form') : undefined;
    if (action && password !== undefined) {
      const base = new URL(url, browser.baseUrl);
      const identifier = hiddenValue(answer.text, 'identifier') ?? /name="identifier"[^>]*value="([^"]*)"/.exec(answer.text)?.[1] ?? '';
      answer = await browser.post(new URL(action, base).href, {
        csrf_token: hiddenValue(answer.text, 'csrf_token') ?? '',
        identifier,
        password,
        method: 'password',
      });
      seen.push(`${answer.status} POST ${action.slice(0, 100)}`);
      url = base.href;
    }
    if (answer.status < 300 || answer.status >= 400 || !answer.location) {
      throw new Error(`stopped at ${answer.status} (${answer.text.replace(/\s+/g, ' ').slice(0, 300)}) after:\n${seen.join('\n')}`);
    }
    const next = new URL(answer.location, new URL(url, browser.baseUrl));
    if (next.href.startsWith(stopAt)) return next;
    url = next.href;
  }
  throw new Error(`more than ${maxHops} redirects:\n${seen.join('\n')}`);
}
