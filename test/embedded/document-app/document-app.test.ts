// The demo document app against real Hydra v2.3.0 (when built) and the OAuth2 stand-in, with the login and consent UI played by the test
// through Hydra's admin API (no accounts app): sign in with code + PKCE + state + nonce → the page shows
// the verified ID token claims, the userinfo answer and the refresh token; sign out → Hydra's end_session
// with id_token_hint; /open lists files; a restart finds its client instead of adding one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HYDRA_UI_PATHS, startHydra, hydraAvailable } from '../../../scripts/ory/hydra.ts';
import { startOAuth2Provider } from '../../../embedded/oauth2/index.ts';
import { DOCUMENT_APP_CLIENT_NAME, startDocumentApp, type DocumentApp } from '../../../embedded/document-app/index.ts';
import { Browser, visibleText } from '../../support/http.ts';

const APP_URL = 'http://127.0.0.1:9'; // the accounts app is never contacted: the test plays its part
const SUBJECT = 'identity-1234';
const EMAIL = 'reader@example.com';

type Provider = { publicUrl: string; adminUrl: string; close(): Promise<void> };
const UI_URLS = Object.fromEntries(Object.entries(HYDRA_UI_PATHS).map(([name, path]) => [name, APP_URL + path])) as Record<keyof typeof HYDRA_UI_PATHS, string>;
const TARGETS: { name: string; available: boolean; start(): Promise<Provider> }[] = [
  { name: 'real Hydra v2.3.0', available: hydraAvailable(), start: () => startHydra({ appUrl: APP_URL }) },
  { name: 'the OAuth2 stand-in', available: true, start: () => startOAuth2Provider({ urls: UI_URLS }) },
];

let hydra: Provider;
let app: DocumentApp;

const admin = (path: string, init: RequestInit = {}) =>
  fetch(`${hydra.adminUrl}${path}`, { ...init, headers: { 'content-type': 'application/json', ...init.headers } });

const challengeIn = (location: string | undefined, path: string, name: string): string => {
  const url = new URL(location ?? '');
  expect(`${url.origin}${url.pathname}`).toBe(`${APP_URL}${path}`);
  return url.searchParams.get(name)!;
};

/** Sign in → Hydra → (login and consent accepted at the admin API) → the document app's /callback page. */
async function signIn(browser: Browser) {
  const start = await browser.get(`${app.url}/login`);
  expect(start.status).toBe(303);
  const authorize = new URL(start.location!);
  expect(`${authorize.origin}${authorize.pathname}`).toBe(`${hydra.publicUrl}/oauth2/auth`);
  expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
  expect(authorize.searchParams.get('state')!.length).toBeGreaterThanOrEqual(8);
  expect(authorize.searchParams.get('nonce')).toBeTruthy();
  expect(authorize.searchParams.get('client_id')).toBe(app.clientId);

  const toLogin = await browser.get(authorize.href);
  const login = challengeIn(toLogin.location, '/sign-in', 'login_challenge');
  const acceptedLogin = await admin(`/admin/oauth2/auth/requests/login/accept?login_challenge=${encodeURIComponent(login)}`, {
    method: 'PUT',
    body: JSON.stringify({ subject: SUBJECT, remember: true, remember_for: 0 }),
  });
  expect(acceptedLogin.status).toBe(200);
  const toConsent = await browser.get(((await acceptedLogin.json()) as { redirect_to: string }).redirect_to);
  const consent = challengeIn(toConsent.location, '/consent', 'consent_challenge');
  const request = (await (await admin(`/admin/oauth2/auth/requests/consent?consent_challenge=${encodeURIComponent(consent)}`)).json()) as {
    requested_scope: string[];
  };
  expect(request.requested_scope).toEqual(['openid', 'offline_access', 'email', 'profile']);
  const acceptedConsent = await admin(`/admin/oauth2/auth/requests/consent/accept?consent_challenge=${encodeURIComponent(consent)}`, {
    method: 'PUT',
    body: JSON.stringify({ grant_scope: request.requested_scope, session: { id_token: { email: EMAIL }, access_token: {} } }),
  });
  expect(acceptedConsent.status).toBe(200);
  const toCallback = await browser.get(((await acceptedConsent.json()) as { redirect_to: string }).redirect_to);
  const callback = new URL(toCallback.location!);
  expect(`${callback.origin}${callback.pathname}`).toBe(`${app.url}/callback`);
  return browser.get(callback.href);
}

describe.each(TARGETS.filter((target) => target.available))('document app on $name', (target) => {
  beforeAll(async () => {
    hydra = await target.start();
    app = await startDocumentApp({ oauth2PublicUrl: hydra.publicUrl, oauth2AdminUrl: hydra.adminUrl });
  });
  afterAll(async () => {
    await app?.close();
    await hydra?.close();
  });

  it('signs in with code + PKCE and shows the verified ID token claims, userinfo and the refresh token', async () => {
    const browser = new Browser(app.url);
    const page = await signIn(browser);
    expect(page.status).toBe(200);
    const text = visibleText(page.text);
    expect(text).toContain(`Signed in as ${EMAIL}`);
    expect(page.text).toContain(`&#34;sub&#34;: &#34;${SUBJECT}&#34;`);
    expect(page.text).toContain(`&#34;aud&#34;`);
    expect(text).toContain('A refresh token came');
    expect(text).toContain('Granted scope: openid offline_access email profile');
    // The userinfo block names the same subject.
    const userinfo = /<div id="userinfo">([\s\S]*?)<\/div>/.exec(page.text)?.[1] ?? '';
    expect(userinfo).toContain(SUBJECT);
    // The home page keeps the signed-in view; the used code cannot come back.
    expect(visibleText((await browser.get('/')).text)).toContain(`Signed in as ${EMAIL}`);
  });

  it('a callback with an error or without a sign-in in progress answers a 400 page, never a crash', async () => {
    const browser = new Browser(app.url);
    const denied = await browser.get('/callback?error=access_denied&error_description=The+user+said+no&state=xyzxyzxyz');
    expect(denied.status).toBe(400);
    expect(visibleText(denied.text)).toContain('access_denied');
    const stray = await browser.get('/callback?code=forged&state=forged-state');
    expect(stray.status).toBe(400);
    expect(visibleText(stray.text)).toContain('No sign-in in progress');
    await browser.get('/login');
    const wrongState = await browser.get('/callback?code=forged&state=not-the-state');
    expect(wrongState.status).toBe(400);
  });

  it('sign out goes to end_session with id_token_hint, post_logout_redirect_uri and state', async () => {
    const browser = new Browser(app.url);
    await signIn(browser);
    const out = await browser.post('/logout', {});
    expect(out.status).toBe(303);
    const endSession = new URL(out.location!);
    expect(`${endSession.origin}${endSession.pathname}`).toBe(`${hydra.publicUrl}/oauth2/sessions/logout`);
    expect(endSession.searchParams.get('id_token_hint')).toBeTruthy();
    expect(endSession.searchParams.get('post_logout_redirect_uri')).toBe(`${app.url}/`);
    const state = endSession.searchParams.get('state')!;
    // Hydra accepts the hint and redirect (it asks the logout UI next), then the test accepts the logout.
    const toLogout = await browser.get(endSession.href);
    const challenge = challengeIn(toLogout.location, '/logout', 'logout_challenge');
    const accepted = await admin(`/admin/oauth2/auth/requests/logout/accept?logout_challenge=${encodeURIComponent(challenge)}`, { method: 'PUT' });
    expect(accepted.status).toBe(200);
    const back = await browser.get(((await accepted.json()) as { redirect_to: string }).redirect_to);
    expect(back.location).toBe(`${app.url}/?state=${state}`);
    const home = await browser.get(back.location!);
    expect(visibleText(home.text)).toContain('You are signed out');
    expect(visibleText(home.text)).toContain('Sign in with accounts');
  });

  it('/open lists the files it would open; nothing to open is a 400', async () => {
    const browser = new Browser(app.url);
    const page = await browser.get('/open?ids=1AbCdEfGhIjKlMnOp,2ZyXwVuTsRqPoNm&action=open&userId=1234567890');
    expect(page.status).toBe(200);
    const text = visibleText(page.text);
    expect(text).toContain('Would open files');
    expect(text).toContain('1AbCdEfGhIjKlMnOp');
    expect(text).toContain('2ZyXwVuTsRqPoNm');
    expect(text).toContain('1234567890');
    expect((await browser.get('/open?ids=%3Cscript%3E&action=open')).text).not.toContain('<script>');
    expect((await browser.get('/open')).status).toBe(400);
  });

  // Last: the restarted app sets a new secret on the shared client, so the first app's is stale after it.
  it('a restart finds its client by name and updates it instead of registering another', async () => {
    const again = await startDocumentApp({ oauth2PublicUrl: hydra.publicUrl, oauth2AdminUrl: hydra.adminUrl });
    try {
      expect(again.clientId).toBe(app.clientId);
      const clients = (await (await admin('/admin/clients')).json()) as { client_id: string; client_name: string; redirect_uris: string[] }[];
      const mine = clients.filter((client) => client.client_name === DOCUMENT_APP_CLIENT_NAME);
      expect(mine).toHaveLength(1);
      expect(mine[0]!.redirect_uris).toEqual([`${again.url}/callback`]);
    } finally {
      await again.close();
    }
  });
});
