// Real Ory Kratos and real Ory Hydra together, with no app in between: the OAuth2 login integration
// the product relies on (contract ory-kratos.md §15.1). Hydra sends the browser to the login UI with a
// challenge; the Kratos login flow carries it; a password sign-in makes Kratos accept the challenge at
// Hydra; the consent is accepted through Hydra's admin API (the app's consent screen comes with the
// OAuth2 issue); the client gets a code, exchanges it, and the ID token names the Kratos identity.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { startHydra, type RealHydra } from '../../scripts/ory/hydra.ts';
import { startKratos, type RealKratos } from '../../scripts/ory/kratos.ts';
import { createIdentity, deleteIdentity } from '../support/fixtures.ts';

const APP_URL = 'http://127.0.0.1:9'; // never contacted: the test plays the app's part itself
const REDIRECT_URI = 'http://127.0.0.1:9/callback';

/** A cookie jar for one browser; every service runs on 127.0.0.1, and cookies ignore the port. */
class Jar {
  private cookies = new Map<string, string>();
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
  keep(response: Response): Response {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at).trim();
      const value = pair!.slice(at + 1).trim();
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set('cookie', this.header());
    return this.keep(await fetch(url, { ...init, headers, redirect: 'manual' }));
  }
}

let hydra: RealHydra;
let kratos: RealKratos;
beforeAll(async () => {
  hydra = await startHydra({ appUrl: APP_URL });
  kratos = await startKratos({ appUrl: APP_URL, oauth2ProviderUrl: hydra.adminUrl });
});
afterAll(async () => {
  await kratos?.close();
  await hydra?.close();
});

async function registerClient() {
  const response = await fetch(`${hydra.adminUrl}/admin/clients`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Document app',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      scope: 'openid offline_access email',
      token_endpoint_auth_method: 'client_secret_basic',
    }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { client_id: string; client_secret: string };
}

describe('Kratos answers Hydra login challenges (oauth2_provider.url)', () => {
  it('password sign-in → Kratos accepts the challenge → consent → code → an ID token for the Kratos identity', async () => {
    const client = await registerClient();
    const person = await createIdentity(kratos.adminUrl);
    const browser = new Jar();
    try {
      const state = 'state-of-at-least-eight';
      const authorize = await browser.fetch(
        `${hydra.publicUrl}/oauth2/auth?client_id=${client.client_id}&response_type=code&scope=openid%20offline_access&redirect_uri=${encodeURIComponent(REDIRECT_URI)}&state=${state}`,
      );
      expect(authorize.status).toBe(302);
      const loginUi = new URL(authorize.headers.get('location')!);
      expect(`${loginUi.origin}${loginUi.pathname}`).toBe(`${APP_URL}/sign-in`);
      const challenge = loginUi.searchParams.get('login_challenge')!;
      expect(challenge).toBeTruthy();

      // The app's part: a browser login flow with the challenge, submitted with the browser's cookies.
      const created = await browser.fetch(`${kratos.publicUrl}/self-service/login/browser?login_challenge=${encodeURIComponent(challenge)}`, {
        headers: { accept: 'application/json' },
      });
      expect(created.status).toBe(200);
      const flow = (await created.json()) as {
        id: string;
        oauth2_login_challenge?: string;
        oauth2_login_request?: { client: { client_id: string }; requested_scope: string[] };
        ui: { nodes: { attributes: { name?: string; value?: unknown } }[] };
      };
      expect(flow.oauth2_login_challenge).toBe(challenge);
      expect(flow.oauth2_login_request?.client.client_id).toBe(client.client_id);
      expect(flow.oauth2_login_request?.requested_scope).toEqual(['openid', 'offline_access']);
      const csrf = flow.ui.nodes.find((node) => node.attributes.name === 'csrf_token')?.attributes.value;

      const submitted = await browser.fetch(`${kratos.publicUrl}/self-service/login?flow=${flow.id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ method: 'password', identifier: person.email, password: person.password, csrf_token: csrf }),
      });
      expect(submitted.status).toBe(422);
      const change = (await submitted.json()) as { error: { id: string }; redirect_browser_to: string };
      expect(change.error.id).toBe('browser_location_change_required');
      expect(change.redirect_browser_to.startsWith(`${hydra.publicUrl}/oauth2/auth?`)).toBe(true);

      // Hydra now asks for consent; the test accepts it as the consent screen will.
      const afterLogin = await browser.fetch(change.redirect_browser_to);
      expect(afterLogin.status).toBe(302);
      const consentUi = new URL(afterLogin.headers.get('location')!);
      expect(`${consentUi.origin}${consentUi.pathname}`).toBe(`${APP_URL}/consent`);
      const consentChallenge = consentUi.searchParams.get('consent_challenge')!;
      const consentRequest = (await (
        await fetch(`${hydra.adminUrl}/admin/oauth2/auth/requests/consent?consent_challenge=${encodeURIComponent(consentChallenge)}`)
      ).json()) as { subject: string; requested_scope: string[] };
      expect(consentRequest.subject).toBe(person.id);
      const accepted = await fetch(`${hydra.adminUrl}/admin/oauth2/auth/requests/consent/accept?consent_challenge=${encodeURIComponent(consentChallenge)}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_scope: consentRequest.requested_scope, remember: false, session: { id_token: { email: person.email } } }),
      });
      expect(accepted.status).toBe(200);
      const afterConsent = await browser.fetch(((await accepted.json()) as { redirect_to: string }).redirect_to);
      expect(afterConsent.status).toBe(303); // Hydra's final redirect to the client is a 303
      const callback = new URL(afterConsent.headers.get('location')!);
      expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT_URI);
      expect(callback.searchParams.get('state')).toBe(state);

      const token = await fetch(`${hydra.publicUrl}/oauth2/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'authorization_code', code: callback.searchParams.get('code')!, redirect_uri: REDIRECT_URI }),
      });
      expect(token.status).toBe(200);
      const tokens = (await token.json()) as { id_token: string; refresh_token?: string; access_token: string };
      expect(tokens.refresh_token).toBeTruthy(); // offline_access was granted
      const { payload } = await jwtVerify(tokens.id_token, createRemoteJWKSet(new URL(`${hydra.publicUrl}/.well-known/jwks.json`)), {
        issuer: `${hydra.publicUrl}/`,
        audience: client.client_id,
      });
      expect(payload.sub).toBe(person.id);
      expect(payload.email).toBe(person.email);
    } finally {
      await deleteIdentity(kratos.adminUrl, person.id);
    }
  });

  it('a challenge Hydra does not know is refused by Kratos when the flow is created', async () => {
    const response = await new Jar().fetch(`${kratos.publicUrl}/self-service/login/browser?login_challenge=not-a-challenge`, {
      headers: { accept: 'application/json' },
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
    const body = (await response.json()) as { error?: { code?: number } };
    expect(body.error?.code).toBe(response.status);
  });
});
