// Real Ory Kratos and real Ory Hydra together, with no app in between: the OAuth2 integration the
// product relies on (contract ory-kratos.md §15.1, ory-hydra.md). Hydra sends the browser to the login
// UI with a challenge; the Kratos login flow carries it; a password sign-in makes Kratos accept the
// challenge at Hydra; the consent is accepted through Hydra's admin API (the app's consent screen
// comes with the OAuth2 issue); the client gets a code, exchanges it, and the ID token names the Kratos
// identity. Logging out at Hydra ends the Kratos session too (urls.identity_provider.url).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { SERVER_TESTS } from '../project-settings.ts';
import { startHydra, type RealHydra } from '../../scripts/ory/hydra.ts';
import { startKratos, type RealKratos } from '../../scripts/ory/kratos.ts';
import { freePort } from '../../scripts/ory/process.ts';
import { Browser, useIdentities, type TestIdentity } from '../support/fixtures.ts';
import { REDIRECT_URI, registerDocumentClient, type Client } from '../embedded/identity/oauth2-support.ts';

const APP_URL = 'http://127.0.0.1:9'; // never contacted: the test plays the app's part itself

let hydra: RealHydra;
let kratos: RealKratos;
beforeAll(async () => {
  // Each names the other: Kratos accepts Hydra's challenges, Hydra ends Kratos sessions on logout.
  const [publicPort, adminPort] = [await freePort(), await freePort()];
  hydra = await startHydra({ appUrl: APP_URL, identityProviderAdminUrl: `http://127.0.0.1:${adminPort}` });
  kratos = await startKratos({ appUrl: APP_URL, publicPort, adminPort, oauth2ProviderUrl: hydra.adminUrl });
});
afterAll(async () => {
  await kratos?.close();
  await hydra?.close();
});
const identities = useIdentities(() => kratos.adminUrl);

const registerClient = () => registerDocumentClient(hydra.adminUrl);

const challengeIn = (location: string | undefined, path: string, name: string): string => {
  const url = new URL(location ?? '');
  expect(`${url.origin}${url.pathname}`).toBe(`${APP_URL}${path}`);
  const challenge = url.searchParams.get(name);
  expect(challenge).toBeTruthy();
  return challenge!;
};

/** The whole authorization code flow of one browser; answers the token response. */
async function signInThroughHydra(browser: Browser, client: Client, person: TestIdentity) {
  const state = 'state-of-at-least-eight';
  const authorize = await browser.get(
    `${hydra.publicUrl}/oauth2/auth?client_id=${client.client_id}&response_type=code&scope=openid%20offline_access&redirect_uri=${encodeURIComponent(REDIRECT_URI)}&state=${state}`,
  );
  expect(authorize.status).toBe(302);
  const challenge = challengeIn(authorize.location, '/sign-in', 'login_challenge');

  // The app's part: a browser login flow with the challenge, submitted with the browser's cookies.
  const created = await browser.get(`${kratos.publicUrl}/self-service/login/browser?login_challenge=${encodeURIComponent(challenge)}`, {
    accept: 'application/json',
  });
  expect(created.status).toBe(200);
  const flow = JSON.parse(created.text) as {
    id: string;
    oauth2_login_challenge?: string;
    oauth2_login_request?: { client: { client_id: string }; requested_scope: string[] };
    ui: { nodes: { attributes: { name?: string; value?: unknown } }[] };
  };
  expect(flow.oauth2_login_challenge).toBe(challenge);
  expect(flow.oauth2_login_request?.client.client_id).toBe(client.client_id);
  expect(flow.oauth2_login_request?.requested_scope).toEqual(['openid', 'offline_access']);
  const csrf = flow.ui.nodes.find((node) => node.attributes.name === 'csrf_token')?.attributes.value;

  const submitted = await browser.postJson(`${kratos.publicUrl}/self-service/login?flow=${flow.id}`, {
    method: 'password',
    identifier: person.email,
    password: person.password,
    csrf_token: csrf,
  });
  expect(submitted.status).toBe(422);
  const change = JSON.parse(submitted.text) as { error: { id: string }; redirect_browser_to: string };
  expect(change.error.id).toBe('browser_location_change_required');
  expect(change.redirect_browser_to.startsWith(`${hydra.publicUrl}/oauth2/auth?`)).toBe(true);

  // Hydra now asks for consent; the test accepts it as the consent screen will.
  const afterLogin = await browser.get(change.redirect_browser_to);
  expect(afterLogin.status).toBe(302);
  const consentChallenge = challengeIn(afterLogin.location, '/consent', 'consent_challenge');
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
  const afterConsent = await browser.get(((await accepted.json()) as { redirect_to: string }).redirect_to);
  expect(afterConsent.status).toBe(303); // Hydra's final redirect to the client is a 303
  const callback = new URL(afterConsent.location!);
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
  return (await token.json()) as { id_token: string; refresh_token?: string; access_token: string };
}

const whoamiStatus = async (browser: Browser) => (await browser.get(`${kratos.publicUrl}/sessions/whoami`, { accept: 'application/json' })).status;

describe('startHydra (scripts/ory/hydra.ts)', () => {
  it('gives Hydra its signing keys before returning: one RS256 key of ours (2048-bit, Hydra makes 4096) in each set, published at once', async () => {
    // Before any authorization: Hydra would otherwise make these inside the first request that needs one.
    for (const set of ['hydra.openid.id-token', 'hydra.jwt.access-token']) {
      const answer = await fetch(`${hydra.adminUrl}/admin/keys/${set}`);
      expect(answer.status, set).toBe(200);
      const { keys } = (await answer.json()) as { keys: { alg: string; kty: string; n: string }[] };
      expect(
        keys.map((key) => [key.alg, key.kty, Buffer.from(key.n, 'base64url').length * 8]),
        set,
      ).toEqual([['RS256', 'RSA', 2048]]);
    }
    const published = (await (await fetch(`${hydra.publicUrl}/.well-known/jwks.json`, { signal: AbortSignal.timeout(5_000) })).json()) as { keys: unknown[] };
    expect(published.keys).toHaveLength(2);
  });
});

describe('Kratos answers Hydra login challenges (oauth2_provider.url)', () => {
  it('password sign-in → Kratos accepts the challenge → consent → code → an ID token for the Kratos identity', async () => {
    const client = await registerClient();
    const person = await identities.create();
    const tokens = await signInThroughHydra(new Browser(APP_URL), client, person);
    expect(tokens.refresh_token).toBeTruthy(); // offline_access was granted
    // jose gives up on a JWKS fetch after 5 s; with the whole suite loading two cores, Hydra can take
    // longer to answer (seen once in CI), so the fetch gets the test's own time instead.
    const hydraKeys = createRemoteJWKSet(new URL(`${hydra.publicUrl}/.well-known/jwks.json`), { timeoutDuration: SERVER_TESTS.testTimeout });
    const { payload } = await jwtVerify(tokens.id_token, hydraKeys, {
      issuer: `${hydra.publicUrl}/`,
      audience: client.client_id,
    });
    expect(payload.sub).toBe(person.id);
    expect(payload.email).toBe(person.email);
  });

  it('a challenge Hydra does not know is refused by Kratos when the flow is created', async () => {
    const response = await new Browser(APP_URL).get(`${kratos.publicUrl}/self-service/login/browser?login_challenge=not-a-challenge`, {
      accept: 'application/json',
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect((JSON.parse(response.text) as { error?: { code?: number } }).error?.code).toBe(response.status);
  });
});

describe('Hydra logout (urls.identity_provider.url)', () => {
  it('the logout challenge goes to the app; accepting it ends the Kratos session too', async () => {
    const client = await registerClient();
    const person = await identities.create();
    const browser = new Browser(APP_URL);
    await signInThroughHydra(browser, client, person);
    expect(await whoamiStatus(browser)).toBe(200);

    const logout = await browser.get(`${hydra.publicUrl}/oauth2/sessions/logout`);
    expect(logout.status).toBe(302);
    const challenge = challengeIn(logout.location, '/logout', 'logout_challenge');
    const request = (await (await fetch(`${hydra.adminUrl}/admin/oauth2/auth/requests/logout?logout_challenge=${encodeURIComponent(challenge)}`)).json()) as {
      subject: string;
    };
    expect(request.subject).toBe(person.id);
    const accepted = await fetch(`${hydra.adminUrl}/admin/oauth2/auth/requests/logout/accept?logout_challenge=${encodeURIComponent(challenge)}`, {
      method: 'PUT',
    });
    expect(accepted.status).toBe(200);
    const done = await browser.get(((await accepted.json()) as { redirect_to: string }).redirect_to);
    expect(done.status).toBeGreaterThanOrEqual(300);
    expect(done.status).toBeLessThan(400);
    expect(done.location).toBe(`${APP_URL}/`);
    expect(await whoamiStatus(browser)).toBe(401);
  });
});
