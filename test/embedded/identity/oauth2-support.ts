// The identity stand-in wired to a REAL Ory Hydra v2.3.0 (scripts/ory/hydra.ts), each told the other's
// admin URL as startStack({ oauth2: true }) does, optionally with the embedded sign-in providers: what
// the oauth2*.test.ts files drive a browser through. The app's pages are never contacted: the tests
// play the app's part (they read the challenge from Hydra's redirect and call the stand-in themselves).
import { merge } from '../../../embedded/identity/config.ts';
import type { DeepPartial, IdentityConfig } from '../../../embedded/identity/index.ts';
import { startFakeProviders, type FakeProviders } from '../../../embedded/providers/index.ts';
import { identityProviderConfig } from '../../../embedded/providers/identity-config.ts';
import { HYDRA_UI_PATHS, startHydra, type RealHydra } from '../../../scripts/ory/hydra.ts';
import { freePort } from '../../../scripts/ory/process.ts';
import { startOAuth2Provider } from '../../../embedded/oauth2/index.ts';
import { APP, Browser, startTestIdentity } from './helpers.ts';

export const REDIRECT_URI = `${APP}/callback`;

export type OAuth2Stack = {
  /** Real Hydra, or the embedded OAuth2 provider (embedded/oauth2) with `provider: 'stand-in'`. */
  hydra: OAuth2Provider;
  fakes?: FakeProviders;
  publicUrl: string;
  adminUrl: string;
  pub(path: string): string;
  close(): Promise<void>;
};

/** Real Hydra or the OAuth2 stand-in: what the tests use of either. */
type OAuth2Provider = Pick<RealHydra, 'publicUrl' | 'adminUrl' | 'close'>;

export type OAuth2StackOptions = { config?: DeepPartial<IdentityConfig>; social?: boolean; wired?: boolean; provider?: 'hydra' | 'stand-in' };

export async function startOAuth2Stack(options: OAuth2StackOptions = {}): Promise<OAuth2Stack> {
  const adminPort = await freePort();
  const identityProviderAdminUrl = `http://127.0.0.1:${adminPort}`;
  const urls = {
    login: APP + HYDRA_UI_PATHS.login,
    consent: APP + HYDRA_UI_PATHS.consent,
    logout: APP + HYDRA_UI_PATHS.logout,
    error: APP + HYDRA_UI_PATHS.error,
    postLogout: APP + HYDRA_UI_PATHS.postLogout,
  };
  const hydra: OAuth2Provider =
    options.provider === 'stand-in'
      ? await startOAuth2Provider({ publicPort: 0, adminPort: 0, urls, identityProviderAdminUrl })
      : await startHydra({ appUrl: APP, identityProviderAdminUrl });
  let fakes: FakeProviders | undefined;
  try {
    fakes = options.social ? await startFakeProviders() : undefined;
    const social: DeepPartial<IdentityConfig> = fakes
      ? ({ selfservice: { methods: { oidc: identityProviderConfig(fakes) } } } as DeepPartial<IdentityConfig>)
      : {};
    const wiring: DeepPartial<IdentityConfig> = options.wired === false ? {} : { oauth2_provider: { url: hydra.adminUrl } };
    const identity = await startTestIdentity({ adminPort, config: merge(merge(wiring, social), options.config) });
    fakes?.trustRelyingParty(identity.publicUrl);
    return {
      hydra,
      fakes,
      publicUrl: identity.publicUrl,
      adminUrl: identity.adminUrl,
      pub: (path) => `${identity.publicUrl}${path}`,
      async close() {
        await identity.close();
        await fakes?.close();
        await hydra.close();
      },
    };
  } catch (error) {
    await fakes?.close();
    await hydra.close();
    throw error;
  }
}

export type Client = { client_id: string; client_secret: string };

export function registerClient(stack: OAuth2Stack): Promise<Client> {
  return registerDocumentClient(stack.hydra.adminUrl);
}

/** A confidential "Document app" client redirecting to REDIRECT_URI, at the OAuth2 admin API `adminUrl`. */
export async function registerDocumentClient(adminUrl: string): Promise<Client> {
  const response = await fetch(`${adminUrl}/admin/clients`, {
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
  if (response.status !== 201) throw new Error(`client registration: ${response.status}`);
  return (await response.json()) as Client;
}

/** The browser starts an authorization at Hydra; the login challenge Hydra sends it to the login UI with. */
export async function authorize(stack: OAuth2Stack, browser: Browser, client: Client): Promise<string> {
  const query = new URLSearchParams({
    client_id: client.client_id,
    response_type: 'code',
    scope: 'openid offline_access',
    redirect_uri: REDIRECT_URI,
    state: 'state-of-at-least-eight',
  });
  const answer = await browser.get(`${stack.hydra.publicUrl}/oauth2/auth?${query}`);
  const location = new URL(answer.headers.get('location') ?? '');
  if (answer.status !== 302 || `${location.origin}${location.pathname}` !== `${APP}${HYDRA_UI_PATHS.login}`) {
    throw new Error(`expected Hydra to send the browser to the login UI, got ${answer.status} ${location}`);
  }
  return location.searchParams.get('login_challenge')!;
}

/** Hydra's login request for a challenge, straight from its admin API. */
export async function loginRequest(stack: OAuth2Stack, challenge: string): Promise<{ skip: boolean; subject: string }> {
  const r = await fetch(`${stack.hydra.adminUrl}/admin/oauth2/auth/requests/login?login_challenge=${encodeURIComponent(challenge)}`);
  return (await r.json()) as { skip: boolean; subject: string };
}

/**
 * From the redirect_to the stand-in sent the browser to, on through Hydra: the consent (accepted through
 * the admin API, remembered, as the consent screen will) and the code exchange. Answers the subject of
 * the consent request and of the ID token, and Hydra's login session.
 */
export async function finishAtHydra(stack: OAuth2Stack, browser: Browser, client: Client, redirectTo: string) {
  if (!redirectTo.startsWith(`${stack.hydra.publicUrl}/oauth2/auth?`)) throw new Error(`not Hydra's authorization endpoint: ${redirectTo}`);
  const afterLogin = await browser.get(redirectTo);
  const consentUrl = new URL(afterLogin.headers.get('location') ?? '');
  const consentChallenge = consentUrl.searchParams.get('consent_challenge');
  if (afterLogin.status !== 302 || !consentChallenge) throw new Error(`expected the consent UI, got ${afterLogin.status} ${consentUrl}`);
  const consent = (await (
    await fetch(`${stack.hydra.adminUrl}/admin/oauth2/auth/requests/consent?consent_challenge=${encodeURIComponent(consentChallenge)}`)
  ).json()) as { subject: string; requested_scope: string[]; login_session_id: string };
  const accepted = await fetch(`${stack.hydra.adminUrl}/admin/oauth2/auth/requests/consent/accept?consent_challenge=${encodeURIComponent(consentChallenge)}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_scope: consent.requested_scope, remember: true, remember_for: 0 }),
  });
  const done = await browser.get(((await accepted.json()) as { redirect_to: string }).redirect_to);
  const callback = new URL(done.headers.get('location') ?? '');
  const code = callback.searchParams.get('code');
  if (`${callback.origin}${callback.pathname}` !== REDIRECT_URI || !code) throw new Error(`expected the client's callback with a code, got ${callback}`);
  const token = await fetch(`${stack.hydra.publicUrl}/oauth2/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI }),
  });
  const tokens = (await token.json()) as { id_token: string };
  const claims = JSON.parse(Buffer.from(tokens.id_token.split('.')[1]!, 'base64url').toString('utf8')) as { sub: string; amr?: string[] };
  return { consentSubject: consent.subject, idTokenSubject: claims.sub, amr: claims.amr };
}

/** Hydra's logout, accepted as the logout screen will: Hydra then ends the identity service's session too. */
export async function logoutAtHydra(stack: OAuth2Stack, browser: Browser): Promise<void> {
  const logout = await browser.get(`${stack.hydra.publicUrl}/oauth2/sessions/logout`);
  const challenge = new URL(logout.headers.get('location') ?? '').searchParams.get('logout_challenge');
  if (!challenge) throw new Error(`expected the logout UI, got ${logout.status} ${logout.headers.get('location')}`);
  const accepted = await fetch(`${stack.hydra.adminUrl}/admin/oauth2/auth/requests/logout/accept?logout_challenge=${encodeURIComponent(challenge)}`, {
    method: 'PUT',
  });
  await browser.get(((await accepted.json()) as { redirect_to: string }).redirect_to);
}

export const csrfOf = (flow: { ui: { nodes: { attributes: { name?: string; value?: unknown } }[] } }): string =>
  String(flow.ui.nodes.find((n) => n.attributes.name === 'csrf_token')?.attributes.value ?? '');

export async function flowJson(browser: Browser, url: string): Promise<{ status: number; data: any }> {
  const r = await browser.get(url, 'application/json');
  const text = await r.text();
  return { status: r.status, data: text ? JSON.parse(text) : undefined };
}
