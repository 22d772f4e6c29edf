// The authorization code journey over HTTP against the OAuth2 stand-in, checked against what real
// Hydra v2.3.0 answers: the login and consent UIs every time (skip on later rounds), tokens, the ID
// token and userinfo claims, refresh tokens with offline_access, PKCE with a loopback redirect on any
// port, and the errors that go to the client or to the error UI.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jwtVerify, createRemoteJWKSet } from 'jose';
import {
  admin,
  authorizeUrl,
  claimsOf,
  createClient,
  exchangeCode,
  newBrowser,
  param,
  pkcePair,
  REDIRECT_URI,
  RP,
  runFlow,
  startHarness,
  token,
  UI,
  type Harness,
} from './support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('the authorization code journey', () => {
  it('goes login UI → consent UI → client with Hydra redirects, cookies, codes, tokens and claims', async () => {
    const client = await createClient(h.provider);
    const browser = newBrowser(h.provider);
    const start = await browser.get(authorizeUrl(h.provider, client.id, { login_hint: 'ada@example.com', ui_locales: 'vi en' }));
    expect(start.status).toBe(302);
    expect(start.location).toMatch(new RegExp(`^${UI.login}\\?login_challenge=`));
    expect(start.setCookies.join()).toMatch(/^ory_hydra_login_csrf_dev_\d+=.*HttpOnly; SameSite=Lax/);

    const { loginRequest, consentRequest, final } = await runFlow(h.provider, browser, client.id, {
      authorize: { login_hint: 'ada@example.com' },
      login: () => ({ subject: 'user-1', remember: true, acr: '1', amr: ['pwd'], context: { via: 'test' }, identity_provider_session_id: 'kratos-1' }),
      consent: (request) => ({
        grant_scope: request.requested_scope,
        remember: true,
        session: { id_token: { email: 'ada@example.com' }, access_token: { tier: 'gold' } },
      }),
    });
    expect(loginRequest).toMatchObject({
      skip: false,
      subject: '',
      requested_scope: ['openid', 'offline_access'],
      requested_access_token_audience: [],
      oidc_context: { login_hint: 'ada@example.com' },
    });
    expect(loginRequest.client.client_secret).toBeUndefined();
    expect(loginRequest.session_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(consentRequest).toMatchObject({
      skip: false,
      subject: 'user-1',
      acr: '1',
      amr: ['pwd'],
      context: { via: 'test' },
      login_session_id: loginRequest.session_id,
    });
    expect(final.status).toBe(303);
    const location = new URL(final.location!);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
    expect(location.searchParams.get('code')).toMatch(/^ory_ac_[\w-]+\.[\w-]+$/);
    expect(location.searchParams.get('scope')).toBe('openid offline_access');
    expect(location.searchParams.get('state')).toBe('state-12345');
    expect(location.searchParams.has('iss')).toBe(false);

    const tokens = await exchangeCode(h.provider, client, location.searchParams.get('code')!);
    expect(tokens.status).toBe(200);
    expect(tokens.headers.get('cache-control')).toBe('no-store');
    expect(tokens.body).toMatchObject({ expires_in: 3599, scope: 'openid offline_access', token_type: 'bearer' });
    expect(tokens.body.access_token).toMatch(/^ory_at_/);
    expect(tokens.body.refresh_token).toMatch(/^ory_rt_/);
    const jwks = createRemoteJWKSet(new URL(`${h.provider.publicUrl}/.well-known/jwks.json`));
    const { payload, protectedHeader } = await jwtVerify(tokens.body.id_token, jwks, { issuer: h.provider.issuer, audience: client.id });
    expect(protectedHeader).toMatchObject({ alg: 'RS256', typ: 'JWT' });
    expect(payload).toMatchObject({
      sub: 'user-1',
      sid: loginRequest.session_id,
      acr: '1',
      amr: ['pwd'],
      email: 'ada@example.com',
      nonce: 'nonce-12345',
      aud: [client.id],
    });
    for (const claim of ['auth_time', 'rat', 'at_hash', 'jti', 'iat', 'exp']) expect(payload).toHaveProperty(claim);

    const userinfo = await fetch(`${h.provider.publicUrl}/userinfo`, { headers: { authorization: `Bearer ${tokens.body.access_token}` } });
    const info = await userinfo.json();
    expect(info).toMatchObject({ sub: 'user-1', email: 'ada@example.com', acr: '1', amr: ['pwd'], aud: [client.id], iss: h.provider.issuer });
    for (const absent of ['nonce', 'at_hash', 'exp', 'sid', 'jti']) expect(info).not.toHaveProperty(absent);

    const introspection = await fetch(`${h.provider.adminUrl}/admin/oauth2/introspect`, {
      method: 'POST',
      body: new URLSearchParams({ token: tokens.body.access_token }),
    });
    expect(await introspection.json()).toMatchObject({
      active: true,
      sub: 'user-1',
      client_id: client.id,
      token_use: 'access_token',
      ext: { tier: 'gold' },
      aud: [],
    });

    const reuse = await exchangeCode(h.provider, client, location.searchParams.get('code')!);
    expect(reuse.status).toBe(400);
    expect(reuse.body.error_description).toMatch(/The authorization code has already been used\.$/);
    // Reusing a code revokes what it gave.
    const after = await fetch(`${h.provider.adminUrl}/admin/oauth2/introspect`, {
      method: 'POST',
      body: new URLSearchParams({ token: tokens.body.access_token }),
    });
    expect(await after.json()).toEqual({ active: false });
  });

  it('shows the login and consent UIs again with skip=true on the second round, keeping sid and auth_time', async () => {
    const client = await createClient(h.provider);
    const browser = newBrowser(h.provider);
    const first = await runFlow(h.provider, browser, client.id);
    h.clock.advance(60_000);
    const second = await runFlow(h.provider, browser, client.id, { consent: (request) => ({ grant_scope: request.requested_scope }) });
    expect(second.loginRequest).toMatchObject({ skip: true, subject: 'user-1', session_id: first.loginRequest.session_id });
    expect(second.consentRequest.skip).toBe(true);
    const firstTokens = await exchangeCode(h.provider, client, param(first.final.location, 'code'));
    const secondTokens = await exchangeCode(h.provider, client, param(second.final.location, 'code'));
    const [a, b] = [claimsOf(firstTokens.body.id_token), claimsOf(secondTokens.body.id_token)];
    expect(b.auth_time).toBe(a.auth_time);
    expect(b.sid).toBe(a.sid);
    expect(Number(b.rat)).toBe(Number(a.rat) + 60);
  });

  it('does not skip consent for scopes the remembered consent does not cover, nor with prompt=consent', async () => {
    const client = await createClient(h.provider);
    const browser = newBrowser(h.provider);
    await runFlow(h.provider, browser, client.id, { authorize: { scope: 'openid' } });
    const wider = await runFlow(h.provider, browser, client.id, { authorize: { scope: 'openid email' } });
    expect(wider.consentRequest.skip).toBe(false);
    const forced = await runFlow(h.provider, browser, client.id, { authorize: { scope: 'openid', prompt: 'consent' } });
    expect(forced.consentRequest.skip).toBe(false);
  });

  it('forgets the login with remember=false, and asks again (prompt=login) when a skip is accepted for someone else', async () => {
    const client = await createClient(h.provider);
    const browser = newBrowser(h.provider);
    await runFlow(h.provider, browser, client.id);
    const other = await browser.get(authorizeUrl(h.provider, client.id));
    const challenge = param(other.location, 'login_challenge');
    const accept = await admin(h.provider, 'PUT', `/admin/oauth2/auth/requests/login/accept?login_challenge=${challenge}`, { subject: 'someone-else' });
    expect(accept.status).toBe(200);
    const again = new URL(accept.body.redirect_to);
    expect(again.searchParams.get('prompt')).toBe('login');
    expect(again.searchParams.has('login_verifier')).toBe(false);
    const restarted = await browser.get(accept.body.redirect_to);
    const request = await admin(h.provider, 'GET', `/admin/oauth2/auth/requests/login?login_challenge=${param(restarted.location, 'login_challenge')}`);
    expect(request.body).toMatchObject({ skip: false, subject: '' });

    await runFlow(h.provider, browser, client.id, { authorize: { prompt: 'login' }, login: () => ({ subject: 'user-2', remember: false }) });
    const fresh = await runFlow(h.provider, browser, client.id);
    expect(fresh.loginRequest.skip).toBe(false);
  });

  it('answers prompt=none with login_required, then consent_required, to the client', async () => {
    const client = await createClient(h.provider);
    const browser = newBrowser(h.provider);
    const none = await browser.get(authorizeUrl(h.provider, client.id, { prompt: 'none' }));
    expect(none.status).toBe(303);
    expect(param(none.location, 'error')).toBe('login_required');
    expect(param(none.location, 'state')).toBe('state-12345');
    await runFlow(h.provider, browser, client.id, {
      authorize: { scope: 'openid' },
      consent: (request) => ({ grant_scope: request.requested_scope, remember: false }),
    });
    const start = await browser.get(authorizeUrl(h.provider, client.id, { prompt: 'none', scope: 'openid' }));
    const challenge = param(start.location, 'login_challenge');
    const accept = await admin(h.provider, 'PUT', `/admin/oauth2/auth/requests/login/accept?login_challenge=${challenge}`, { subject: 'user-1' });
    const consent = await browser.get(accept.body.redirect_to);
    expect(consent.status).toBe(303);
    expect(param(consent.location, 'error')).toBe('consent_required');
  });
});

describe('refresh tokens and public clients', () => {
  it('gives a refresh token for offline_access without prompt=consent, rotates it, and none without the grant type', async () => {
    const client = await createClient(h.provider);
    const { final } = await runFlow(h.provider, newBrowser(h.provider), client.id);
    const tokens = await exchangeCode(h.provider, client, param(final.location, 'code'));
    const refreshed = await token(h.provider, { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token }, client);
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).toMatch(/^ory_rt_/);
    expect(refreshed.body.refresh_token).not.toBe(tokens.body.refresh_token);
    expect(claimsOf(refreshed.body.id_token)).toMatchObject({ sub: 'user-1', nonce: 'nonce-12345' });
    const active = async (value: string) => {
      const response = await fetch(`${h.provider.adminUrl}/admin/oauth2/introspect`, { method: 'POST', body: new URLSearchParams({ token: value }) });
      return ((await response.json()) as { active: boolean }).active;
    };
    expect(await active(tokens.body.access_token)).toBe(false);
    expect(await active(tokens.body.refresh_token)).toBe(false);
    expect(await active(refreshed.body.access_token)).toBe(true);
    // The rotated-out refresh token used again: the whole chain ends.
    const replay = await token(h.provider, { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token }, client);
    expect(replay.status).toBe(400);
    expect(replay.body.error_description).toMatch(/The refresh token was already used\.$/);
    expect(await active(refreshed.body.access_token)).toBe(false);
    expect(await active(refreshed.body.refresh_token)).toBe(false);

    const codeOnly = await createClient(h.provider, { grant_types: ['authorization_code'] });
    const round = await runFlow(h.provider, newBrowser(h.provider), codeOnly.id);
    const noRefresh = await exchangeCode(h.provider, codeOnly, param(round.final.location, 'code'));
    expect(noRefresh.status).toBe(200);
    expect(noRefresh.body.refresh_token).toBeUndefined();
  });

  it('accepts a public client with PKCE on a loopback redirect at any port (RFC 8252), not on localhost', async () => {
    const created = await admin(h.provider, 'POST', '/admin/clients', {
      client_name: 'desktop',
      token_endpoint_auth_method: 'none',
      redirect_uris: ['http://127.0.0.1/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      scope: 'openid offline_access',
    });
    expect(created.status).toBe(201);
    expect(created.body.client_secret).toBeUndefined();
    const id: string = created.body.client_id;
    const { verifier, challenge } = pkcePair();
    const redirect = 'http://127.0.0.1:53127/callback';
    const browser = newBrowser(h.provider);
    const { final } = await runFlow(h.provider, browser, id, {
      authorize: { redirect_uri: redirect, code_challenge: challenge, code_challenge_method: 'S256' },
    });
    expect(final.location!.startsWith(`${redirect}?code=`)).toBe(true);
    const code = param(final.location, 'code');
    const wrong = await token(h.provider, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirect,
      client_id: id,
      code_verifier: pkcePair().verifier,
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error_description).toMatch(/PKCE/);
    const { final: second } = await runFlow(h.provider, browser, id, {
      authorize: { redirect_uri: redirect, code_challenge: challenge, code_challenge_method: 'S256' },
    });
    const ok = await token(h.provider, {
      grant_type: 'authorization_code',
      code: param(second.location, 'code'),
      redirect_uri: redirect,
      client_id: id,
      code_verifier: verifier,
    });
    expect(ok.status).toBe(200);
    expect(ok.body.refresh_token).toMatch(/^ory_rt_/);

    const localhost = await browser.get(
      authorizeUrl(h.provider, id, { redirect_uri: 'http://localhost:53127/callback', code_challenge: challenge, code_challenge_method: 'S256' }),
    );
    expect(localhost.status).toBe(302);
    expect(localhost.location!.startsWith(`${UI.error}?error=invalid_request`)).toBe(true);
  });
});

describe('client credentials', () => {
  it('gives an access token for the client itself, scope and audience checked, no refresh or ID token', async () => {
    const client = await createClient(h.provider, {
      grant_types: ['client_credentials'],
      scope: 'read write',
      audience: ['https://api.test'],
      // No redirect URI, so no post-logout URI either (Hydra refuses one that shares no redirect URI's origin).
      redirect_uris: [],
      post_logout_redirect_uris: [],
    });
    const plain = await token(h.provider, { grant_type: 'client_credentials' }, client);
    expect(plain.body).toMatchObject({ expires_in: 3599, scope: '', token_type: 'bearer' });
    expect(plain.body.refresh_token).toBeUndefined();
    expect(plain.body.id_token).toBeUndefined();
    const scoped = await token(h.provider, { grant_type: 'client_credentials', scope: 'read', audience: 'https://api.test' }, client);
    const introspection = await fetch(`${h.provider.adminUrl}/admin/oauth2/introspect`, {
      method: 'POST',
      body: new URLSearchParams({ token: scoped.body.access_token }),
    });
    expect(await introspection.json()).toMatchObject({ active: true, scope: 'read', sub: client.id, client_id: client.id, aud: ['https://api.test'] });
    const refused = await token(h.provider, { grant_type: 'client_credentials', scope: 'admin' }, client);
    expect(refused).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
  });
});

describe('authorization errors', () => {
  it('sends client errors to the redirect URI (303) and unknown clients or redirect URIs to the error UI (302)', async () => {
    const client = await createClient(h.provider);
    const browser = newBrowser(h.provider);
    const short = await browser.get(authorizeUrl(h.provider, client.id, { state: 'abc' }));
    expect(short.status).toBe(303);
    expect(short.location!.startsWith(`${REDIRECT_URI}?error=invalid_state&error_description=The+state+is+missing`)).toBe(true);
    const scope = await browser.get(authorizeUrl(h.provider, client.id, { scope: 'openid admin' }));
    expect(param(scope.location, 'error_description')).toBe(
      "The requested scope is invalid, unknown, or malformed. The OAuth 2.0 Client is not allowed to request scope 'admin'.",
    );
    const unknown = await browser.get(authorizeUrl(h.provider, 'nobody'));
    expect(unknown.status).toBe(302);
    expect(param(unknown.location, 'error')).toBe('invalid_client');
    expect(unknown.location!.startsWith(UI.error)).toBe(true);
    const badRedirect = await browser.get(authorizeUrl(h.provider, client.id, { redirect_uri: `${RP}/elsewhere` }));
    expect(badRedirect.status).toBe(302);
    expect(param(badRedirect.location, 'error')).toBe('invalid_request');
  });

  it('tells the client a rejected login or consent, and a CSRF cookie from another browser', async () => {
    const client = await createClient(h.provider);
    const browser = newBrowser(h.provider);
    const start = await browser.get(authorizeUrl(h.provider, client.id));
    const challenge = param(start.location, 'login_challenge');
    const reject = await admin(h.provider, 'PUT', `/admin/oauth2/auth/requests/login/reject?login_challenge=${challenge}`, {
      error: 'access_denied',
      error_description: 'The user said no.',
    });
    expect(reject.status).toBe(200);
    const denied = await browser.get(reject.body.redirect_to);
    expect(denied.status).toBe(303);
    expect(param(denied.location, 'error')).toBe('access_denied');
    expect(param(denied.location, 'error_description')).toBe('The user said no.');

    const again = await browser.get(authorizeUrl(h.provider, client.id));
    const accept = await admin(h.provider, 'PUT', `/admin/oauth2/auth/requests/login/accept?login_challenge=${param(again.location, 'login_challenge')}`, {
      subject: 'user-1',
    });
    const stranger = newBrowser(h.provider);
    const forged = await stranger.get(accept.body.redirect_to);
    expect(forged.status).toBe(303);
    expect(param(forged.location, 'error')).toBe('request_forbidden');
  });
});
