// /authentication/gateway over HTTP, with the OAuth2 provider of the stack (real Hydra on real Kratos,
// else the stand-in): the desktop app's code (loopback redirect, PKCE) is exchanged by a test client for
// an ID token naming the identity that signed in; the mobile app's code lands on the callback page; bad
// requests are translated 400s; a guest signs in once inside the authorization; no client configured → 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { ROUTES } from '../../../core/routes.ts';
import { SERVER_TESTS } from '../../project-settings.ts';
import { useIdentities } from '../../support/fixtures.ts';
import { Browser, formAction, hiddenValue, visibleText } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';
import { DESKTOP_CLIENT_ID, GATEWAY_ENV, MOBILE_CLIENT_ID, pkcePair, registerGatewayClients, walkUntil } from './gateway-support.ts';

let stack: Stack;
let bare: Stack;
beforeAll(async () => {
  stack = await startStack({ oauth2: true, env: GATEWAY_ENV });
  await registerGatewayClients(stack.oauth2!.adminUrl, stack.appUrl);
  bare = await startStack(); // no OAuth2 provider, no gateway clients
});
afterAll(async () => {
  await bare?.close();
  await stack?.close();
});
const identities = useIdentities(() => stack.identity.adminUrl);

const LOOPBACK = 'http://127.0.0.1:53682/callback';
const STATE = 'desktop-state-0123456789';

function desktopPath(challenge: string, overrides: Record<string, string | undefined> = {}) {
  const query = { request_login: '1', redirect_uri: LOOPBACK, code_challenge: challenge, code_challenge_method: 'S256', state: STATE, ...overrides };
  const params = new URLSearchParams(Object.entries(query).filter((entry): entry is [string, string] => entry[1] !== undefined));
  return `${ROUTES.gateway}?${params}`;
}

async function exchange(code: string, redirectUri: string, verifier: string, clientId: string) {
  const response = await fetch(`${stack.oauth2!.publicUrl}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: clientId, code_verifier: verifier }),
  });
  return { status: response.status, body: (await response.json()) as { id_token?: string; refresh_token?: string; error?: string } };
}

async function subjectOf(idToken: string, clientId: string): Promise<string | undefined> {
  const keys = createRemoteJWKSet(new URL(`${stack.oauth2!.publicUrl}/.well-known/jwks.json`), { timeoutDuration: SERVER_TESTS.testTimeout });
  const { payload } = await jwtVerify(idToken, keys, { audience: clientId });
  return payload.sub;
}

describe('desktop app (request_login, loopback redirect)', () => {
  it('a signed-in user → the provider → the loopback gets a code the app exchanges with its PKCE verifier for an ID token of this identity', async () => {
    const person = await identities.signedIn(stack.appUrl);
    const { verifier, challenge } = pkcePair();
    const first = await person.browser.get(desktopPath(challenge));
    expect(first.status).toBe(303);
    const authorize = new URL(first.location!);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${stack.oauth2!.publicUrl}/oauth2/auth`);
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      client_id: DESKTOP_CLIENT_ID,
      response_type: 'code',
      scope: 'openid offline_access',
      redirect_uri: LOOPBACK,
      state: STATE,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });

    const landed = await walkUntil(person.browser, authorize.href, LOOPBACK, person.password);
    expect(landed.searchParams.get('state')).toBe(STATE);
    const code = landed.searchParams.get('code')!;
    // Without the verifier the code is worthless; with it, the tokens name the identity that signed in.
    expect((await exchange(code, LOOPBACK, pkcePair().verifier, DESKTOP_CLIENT_ID)).status).toBe(400);
    const landedAgain = await walkUntil(person.browser, (await person.browser.get(desktopPath(challenge))).location!, LOOPBACK);
    const tokens = await exchange(landedAgain.searchParams.get('code')!, LOOPBACK, verifier, DESKTOP_CLIENT_ID);
    expect(tokens.status).toBe(200);
    expect(tokens.body.refresh_token).toBeTruthy();
    expect(await subjectOf(tokens.body.id_token!, DESKTOP_CLIENT_ID)).toBe(person.id);
  });

  it('a guest goes to the provider at once, signs in once on its login UI (our /sign-in with the challenge), and the loopback gets the code', async () => {
    const person = await identities.create();
    const browser = new Browser(stack.appUrl);
    const { verifier, challenge } = pkcePair();
    const guest = await browser.get(desktopPath(challenge));
    expect(guest.status).toBe(303);
    expect(guest.location!.startsWith(`${stack.oauth2!.publicUrl}/oauth2/auth?`)).toBe(true);
    const toLogin = await browser.get(guest.location!);
    const loginUi = new URL(toLogin.location!);
    expect(`${loginUi.origin}${loginUi.pathname}`).toBe(`${stack.appUrl}${ROUTES.signIn}`);
    expect(loginUi.searchParams.get('login_challenge')).toBeTruthy();
    const page = await browser.follow(`${loginUi.pathname}${loginUi.search}`);
    const action = formAction(page.text, 'sign-in-form')!;
    const posted = await browser.post(action, {
      csrf_token: hiddenValue(page.text, 'csrf_token') ?? '',
      identifier: person.email,
      password: person.password!,
      method: 'password',
    });
    expect(posted.status).toBe(303);
    // No second password: Kratos accepted the challenge with the sign-in, the consent is given (trusted client).
    const landed = await walkUntil(browser, new URL(posted.location!, stack.appUrl).href, LOOPBACK);
    expect(landed.searchParams.get('state')).toBe(STATE);
    const tokens = await exchange(landed.searchParams.get('code')!, LOOPBACK, verifier, DESKTOP_CLIENT_ID);
    expect(await subjectOf(tokens.body.id_token!, DESKTOP_CLIENT_ID)).toBe(person.id);
    // JSON guests are told to sign in (401), as on every login-required path.
    expect((await new Browser(stack.appUrl).get(desktopPath(challenge), { accept: 'application/json' })).status).toBe(401);
  });

  it.each([
    ['an https redirect', { redirect_uri: 'https://127.0.0.1:5000/callback' }],
    ['localhost (RFC 8252 §7.3: IP literals only)', { redirect_uri: 'http://localhost:5000/callback' }],
    ['another host', { redirect_uri: 'http://evil.example/callback' }],
    ['a redirect with user info', { redirect_uri: 'http://user@127.0.0.1:5000/callback' }],
    ['no redirect', { redirect_uri: undefined }],
    ['no code challenge', { code_challenge: undefined }],
    ['a plain challenge', { code_challenge_method: 'plain' }],
    ['a short state', { state: 'short' }],
    ['no state', { state: undefined }],
  ])('%s → a translated 400 before any sign-in', async (_name, overrides) => {
    const path = desktopPath(pkcePair().challenge, overrides);
    const guest = await new Browser(stack.appUrl).get(path);
    expect(guest.status).toBe(400);
    expect(visibleText(guest.text)).toContain('The app sent an incomplete or invalid sign-in request');
    const french = await new Browser(stack.appUrl).get(`${path}&lng=fr`);
    expect(visibleText(french.text)).toContain('L’application a envoyé une demande de connexion incomplète ou invalide');
    const json = await new Browser(stack.appUrl).get(path, { accept: 'application/json' });
    expect(JSON.parse(json.text)).toMatchObject({ code: 'gateway_invalid_request' });
  });

  it('neither request_login nor platform → 400; no client configured → 404, translated', async () => {
    const person = await identities.signedIn(stack.appUrl);
    expect((await person.browser.get(`${ROUTES.gateway}?state=whatever-state`)).status).toBe(400);
    const off = await new Browser(bare.appUrl).get(desktopPath(pkcePair().challenge));
    expect(off.status).toBe(404);
    expect(visibleText(off.text)).toContain('Signing in to this app from here is not available.');
  });
});

describe('mobile app (platform, login_type)', () => {
  const mobilePath = (challenge: string, extra = '') =>
    `${ROUTES.gateway}?platform=ios&login_type=email&code_challenge=${challenge}&code_challenge_method=S256&state=mobile-state-42${extra}`;

  it('the code comes back to the callback page, which shows it and carries it for the bridge; the app exchanges it', async () => {
    const person = await identities.signedIn(stack.appUrl);
    const { verifier, challenge } = pkcePair();
    const first = await person.browser.get(mobilePath(challenge));
    const callbackUrl = `${stack.appUrl}${ROUTES.gatewayCallback}`;
    expect(new URL(first.location!).searchParams.get('redirect_uri')).toBe(callbackUrl);
    expect(new URL(first.location!).searchParams.get('client_id')).toBe(MOBILE_CLIENT_ID);
    const landed = await walkUntil(person.browser, first.location!, callbackUrl, person.password);
    const page = await person.browser.get(landed.href);
    expect(page.status).toBe(200);
    const code = landed.searchParams.get('code')!;
    expect(page.text).toContain(`data-code="${code}"`);
    expect(page.text).toContain('data-state="mobile-state-42"');
    expect(page.text).toMatch(/<script type="module" nonce="[^"]+" src="\/assets\/app-bridge-[\w-]+\.js">/);
    expect(visibleText(page.text)).toContain('Return to the app to continue.');
    const tokens = await exchange(code, callbackUrl, verifier, MOBILE_CLIENT_ID);
    expect(tokens.status).toBe(200);
    expect(await subjectOf(tokens.body.id_token!, MOBILE_CLIENT_ID)).toBe(person.id);
  });

  it('an error from the provider, or no code, is a translated 400 page with the reason; JSON gives the bridge message', async () => {
    const browser = new Browser(stack.appUrl);
    const denied = await browser.get(`${ROUTES.gatewayCallback}?error=access_denied&state=mobile-state-42`);
    expect(denied.status).toBe(400);
    expect(denied.text).toContain('data-status="error"');
    expect(visibleText(denied.text)).toContain('access_denied');
    expect((await browser.get(ROUTES.gatewayCallback)).status).toBe(400);
    const json = await browser.get(`${ROUTES.gatewayCallback}?code=abc&state=mobile-state-42`, { accept: 'application/json' });
    expect(JSON.parse(json.text)).toEqual({ type: 'authentication', status: 'success', code: 'abc', state: 'mobile-state-42' });
  });

  it('a guest with a provider as login_type starts that provider’s sign-in inside the authorization (one sign-in in all)', async () => {
    const browser = new Browser(stack.appUrl);
    const guest = await browser.get(mobilePath(pkcePair().challenge).replace('login_type=email', 'login_type=google'));
    expect(guest.status).toBe(303);
    const authorize = new URL(guest.location!);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${stack.oauth2!.publicUrl}/oauth2/auth`);
    expect(authorize.searchParams.get('provider_hint')).toBe('google');
    // Hydra's login UI, our sign-in page, reads the hint from the login request and starts Google at once,
    // the challenge kept (Kratos accepts it after Google's callback).
    const loginUi = await browser.get(guest.location!);
    const signInPage = new URL(loginUi.location!, stack.appUrl);
    expect(signInPage.pathname).toBe(ROUTES.signIn);
    const started = await browser.get(`${signInPage.pathname}${signInPage.search}`);
    expect(started.status).toBe(303);
    const social = new URL(started.location!, stack.appUrl);
    expect(social.pathname).toBe(ROUTES.signIn);
    expect(Object.fromEntries(social.searchParams)).toEqual({
      login_challenge: signInPage.searchParams.get('login_challenge'),
      request_social_sign_in: 'true',
      provider: 'google',
    });
    // The email login type, and an authorization without a hint, show the sign-in page itself.
    const email = await browser.get(mobilePath(pkcePair().challenge));
    expect(new URL(email.location!).searchParams.get('provider_hint')).toBeNull();
    const unknown = await new Browser(stack.appUrl).get(mobilePath(pkcePair().challenge).replace('login_type=email', 'login_type=myspace'));
    expect(unknown.status).toBe(400);
  });

  it('/authentication/gateway/done says the app takes over, in the asked language', async () => {
    const page = await new Browser(stack.appUrl).get(`${ROUTES.gatewayDone}?lng=vi`);
    expect(page.status).toBe(200);
    expect(visibleText(page.text)).toContain('Bạn có thể đóng trang này và quay lại ứng dụng.');
  });
});
