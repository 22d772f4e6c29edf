// The admin API of the OAuth2 stand-in: every error case of the login and consent requests (with real
// Hydra v2.3.0's texts), expiry on the test clock, consent and login sessions, token revocation,
// client CRUD, introspection, and every answer checked against Hydra's OpenAPI document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itWithContract } from '../../support/shared-contracts.ts';
import { hydraContract, HYDRA_OPENAPI } from './contract.ts';
import { admin, authorizeUrl, createClient, exchangeCode, newBrowser, param, runFlow, startHarness, type Harness } from './support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const INVALID_REQUEST =
  'The request is missing a required parameter, includes an invalid parameter value, includes a parameter more than once, or is otherwise malformed.';
const NOT_FOUND = { error: 'Not Found', error_description: 'Unable to locate the requested resource' };

async function loginChallenge(clientId: string): Promise<string> {
  const start = await newBrowser(h.provider).get(authorizeUrl(h.provider, clientId));
  return param(start.location, 'login_challenge');
}

async function introspect(value: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${h.provider.adminUrl}/admin/oauth2/introspect`, { method: 'POST', body: new URLSearchParams({ token: value }) });
  return (await response.json()) as Record<string, unknown>;
}

describe('login and consent requests', () => {
  it('answers a missing, unknown or expired challenge and an empty subject as Hydra does', async () => {
    const client = await createClient(h.provider);
    for (const path of ['/admin/oauth2/auth/requests/login', '/admin/oauth2/auth/requests/consent', '/admin/oauth2/auth/requests/login/accept']) {
      const answer = await admin(h.provider, path.endsWith('accept') ? 'PUT' : 'GET', path, path.endsWith('accept') ? { subject: 'x' } : undefined);
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({
        error: 'invalid_request',
        error_description: `${INVALID_REQUEST} Query parameter 'challenge' is not defined but should have been.`,
      });
    }
    expect(await admin(h.provider, 'GET', '/admin/oauth2/auth/requests/login?login_challenge=garbage')).toMatchObject({ status: 404, body: NOT_FOUND });
    expect(await admin(h.provider, 'GET', '/admin/oauth2/auth/requests/consent?consent_challenge=garbage')).toMatchObject({ status: 404, body: NOT_FOUND });
    expect(await admin(h.provider, 'PUT', '/admin/oauth2/auth/requests/login/reject?login_challenge=garbage', {})).toMatchObject({
      status: 404,
      body: NOT_FOUND,
    });
    // Real Hydra v2.3.0's odd answer to a consent accept it cannot decode.
    expect(await admin(h.provider, 'PUT', '/admin/oauth2/auth/requests/consent/accept?consent_challenge=garbage', {})).toMatchObject({
      status: 400,
      body: { error: 'error', error_description: 'The error is unrecognizable' },
    });

    const challenge = await loginChallenge(client.id);
    expect((await admin(h.provider, 'GET', `/admin/oauth2/auth/requests/login?challenge=${challenge}`)).status).toBe(200);
    const empty = await admin(h.provider, 'PUT', `/admin/oauth2/auth/requests/login/accept?login_challenge=${challenge}`, { subject: '' });
    expect(empty).toMatchObject({
      status: 400,
      body: { error: 'invalid_request', error_description: `${INVALID_REQUEST} Field 'subject' must not be empty.` },
    });
    const malformed = await admin(h.provider, 'PUT', `/admin/oauth2/auth/requests/login/accept?login_challenge=${challenge}`, '{"subject":');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error_description).toContain('Unable to decode body because:');

    h.clock.advance(31 * 60_000);
    const expired = await admin(h.provider, 'GET', `/admin/oauth2/auth/requests/login?login_challenge=${challenge}`);
    expect(expired).toMatchObject({
      status: 401,
      body: { error: 'request_unauthorized', error_description: 'The request could not be authorized. The login request has expired, please try again.' },
    });
  });

  it('expires a consent request after 30 minutes and keeps answering a handled one (v2.3.0 has no 410 for them)', async () => {
    const client = await createClient(h.provider);
    const browser = newBrowser(h.provider);
    const start = await browser.get(authorizeUrl(h.provider, client.id));
    const challenge = param(start.location, 'login_challenge');
    const accepted = await admin(h.provider, 'PUT', `/admin/oauth2/auth/requests/login/accept?login_challenge=${challenge}`, { subject: 'user-9' });
    expect((await admin(h.provider, 'GET', `/admin/oauth2/auth/requests/login?login_challenge=${challenge}`)).status).toBe(200);
    const consent = param((await browser.get(accepted.body.redirect_to)).location, 'consent_challenge');
    h.clock.advance(29 * 60_000);
    expect((await admin(h.provider, 'GET', `/admin/oauth2/auth/requests/consent?consent_challenge=${consent}`)).status).toBe(200);
    h.clock.advance(2 * 60_000);
    expect(await admin(h.provider, 'GET', `/admin/oauth2/auth/requests/consent?consent_challenge=${consent}`)).toMatchObject({
      status: 401,
      body: { error: 'request_unauthorized', error_description: 'The request could not be authorized. The consent request has expired, please try again.' },
    });
  });

  it('sends the admin paths without the /admin prefix to the prefixed ones (307)', async () => {
    const answer = await admin(h.provider, 'GET', '/oauth2/auth/requests/login?login_challenge=x');
    expect(answer.status).toBe(307);
    expect(answer.headers.get('location')).toBe(`${h.provider.adminUrl}/admin/oauth2/auth/requests/login?login_challenge=x`);
  });
});

describe('sessions and tokens', () => {
  it('lists and revokes remembered consents (their tokens too) and forgets remembered logins', async () => {
    const client = await createClient(h.provider);
    const browser = newBrowser(h.provider);
    const { final } = await runFlow(h.provider, browser, client.id, { login: () => ({ subject: 'user-s', remember: true }) });
    const tokens = await exchangeCode(h.provider, client, param(final.location, 'code'));
    expect((await admin(h.provider, 'GET', '/admin/oauth2/auth/sessions/consent')).status).toBe(400);
    const list = await admin(h.provider, 'GET', '/admin/oauth2/auth/sessions/consent?subject=user-s');
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).toMatchObject({
      grant_scope: ['openid', 'offline_access'],
      remember: true,
      consent_request: { subject: 'user-s', client: { client_id: client.id } },
    });

    expect(await admin(h.provider, 'DELETE', '/admin/oauth2/auth/sessions/consent?subject=user-s')).toMatchObject({
      status: 400,
      body: { error_description: `${INVALID_REQUEST} Query parameter both 'client' and 'all' is not defined but one of them should have been.` },
    });
    expect((await admin(h.provider, 'DELETE', `/admin/oauth2/auth/sessions/consent?subject=user-s&client=${client.id}`)).status).toBe(204);
    expect((await admin(h.provider, 'GET', '/admin/oauth2/auth/sessions/consent?subject=user-s')).body).toEqual([]);
    expect(await introspect(tokens.body.access_token)).toEqual({ active: false });

    expect(await admin(h.provider, 'DELETE', '/admin/oauth2/auth/sessions/login')).toMatchObject({
      status: 400,
      body: { error_description: `${INVALID_REQUEST} Either 'subject' or 'sid' query parameters need to be defined.` },
    });
    expect((await admin(h.provider, 'DELETE', '/admin/oauth2/auth/sessions/login?subject=user-s')).status).toBe(204);
    const next = await runFlow(h.provider, browser, client.id);
    expect(next.loginRequest.skip).toBe(false);
    expect(next.consentRequest.skip).toBe(false);
  });

  it('revokes every token of a client, and introspects unknown tokens as inactive', async () => {
    const client = await createClient(h.provider);
    const { final } = await runFlow(h.provider, newBrowser(h.provider), client.id);
    const tokens = await exchangeCode(h.provider, client, param(final.location, 'code'));
    expect((await introspect(tokens.body.refresh_token)).token_use).toBe('refresh_token');
    expect(await admin(h.provider, 'DELETE', '/admin/oauth2/tokens')).toMatchObject({ status: 400 });
    expect((await admin(h.provider, 'DELETE', `/admin/oauth2/tokens?client_id=${client.id}`)).status).toBe(204);
    expect(await introspect(tokens.body.access_token)).toEqual({ active: false });
    expect(await introspect(tokens.body.refresh_token)).toEqual({ active: false });
    expect(await introspect('ory_at_nothing.here')).toEqual({ active: false });
    const empty = await fetch(`${h.provider.adminUrl}/admin/oauth2/introspect`, { method: 'POST', body: new URLSearchParams() });
    expect(empty.status).toBe(400);
  });
});

describe('clients', () => {
  it('creates with a chosen id (secret shown once), lists with paging headers, reads, replaces, patches and deletes', async () => {
    const created = await admin(h.provider, 'POST', '/admin/clients', {
      client_id: 'chosen-id',
      client_name: 'Demo',
      redirect_uris: ['http://127.0.0.1:5555/callback'],
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe('/admin/clients/chosen-id');
    expect(created.body).toMatchObject({
      client_id: 'chosen-id',
      token_endpoint_auth_method: 'client_secret_basic',
      contacts: null,
      skip_logout_consent: null,
    });
    expect(created.body.client_secret).toEqual(expect.any(String));
    expect((await admin(h.provider, 'POST', '/admin/clients', { client_id: 'chosen-id' })).status).toBe(409);

    const read = await admin(h.provider, 'GET', '/admin/clients/chosen-id');
    expect(read.body.client_secret).toBeUndefined();
    expect(read.body.contacts).toEqual([]);
    const page = await admin(h.provider, 'GET', '/admin/clients?page_size=1');
    expect(page.body).toHaveLength(1);
    expect(Number(page.headers.get('x-total-count'))).toBeGreaterThan(1);
    expect(page.headers.get('link')).toContain('rel="next"');

    const replaced = await admin(h.provider, 'PUT', '/admin/clients/chosen-id', { client_name: 'Renamed', redirect_uris: ['http://127.0.0.1:5555/callback'] });
    expect(replaced).toMatchObject({ status: 200, body: { client_id: 'chosen-id', client_name: 'Renamed' } });
    const patched = await admin(h.provider, 'PATCH', '/admin/clients/chosen-id', [{ op: 'replace', path: '/client_name', value: 'Patched' }]);
    expect(patched).toMatchObject({ status: 200, body: { client_name: 'Patched' } });
    const secretStillWorks = await fetch(`${h.provider.publicUrl}/oauth2/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`chosen-id:${created.body.client_secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: 'nope' }),
    });
    expect((await secretStillWorks.json()).error).toBe('invalid_grant');

    expect((await admin(h.provider, 'DELETE', '/admin/clients/chosen-id')).status).toBe(204);
    expect(await admin(h.provider, 'GET', '/admin/clients/chosen-id')).toMatchObject({
      status: 404,
      body: { error: 'Unable to locate the resource', error_description: '' },
    });
  });
});

itWithContract('answers as Hydra’s OpenAPI document describes', HYDRA_OPENAPI, async () => {
  const contract = hydraContract();
  const check = (method: string, path: string, answer: { status: number; body: unknown }) => contract.response(method, path, answer.status, answer.body);
  const created = await admin(h.provider, 'POST', '/admin/clients', {
    redirect_uris: ['http://127.0.0.1:5555/callback'],
    grant_types: ['authorization_code', 'refresh_token'],
    scope: 'openid offline_access',
  });
  check('POST', '/admin/clients', created);
  const client = { id: created.body.client_id as string, secret: created.body.client_secret as string };
  check('GET', '/admin/clients', await admin(h.provider, 'GET', '/admin/clients'));
  check('GET', '/admin/clients/{id}', await admin(h.provider, 'GET', `/admin/clients/${client.id}`));
  check('GET', '/admin/clients/{id}', await admin(h.provider, 'GET', '/admin/clients/unknown'));

  const browser = newBrowser(h.provider);
  const start = await browser.get(authorizeUrl(h.provider, client.id));
  const challenge = param(start.location, 'login_challenge');
  check('GET', '/admin/oauth2/auth/requests/login', await admin(h.provider, 'GET', `/admin/oauth2/auth/requests/login?login_challenge=${challenge}`));
  check('GET', '/admin/oauth2/auth/requests/login', await admin(h.provider, 'GET', '/admin/oauth2/auth/requests/login'));
  const accept = await admin(h.provider, 'PUT', `/admin/oauth2/auth/requests/login/accept?login_challenge=${challenge}`, {
    subject: 'user-c',
    remember: true,
    amr: ['pwd'],
  });
  check('PUT', '/admin/oauth2/auth/requests/login/accept', accept);
  const consentChallenge = param((await browser.get(accept.body.redirect_to)).location, 'consent_challenge');
  check(
    'GET',
    '/admin/oauth2/auth/requests/consent',
    await admin(h.provider, 'GET', `/admin/oauth2/auth/requests/consent?consent_challenge=${consentChallenge}`),
  );
  const consent = await admin(h.provider, 'PUT', `/admin/oauth2/auth/requests/consent/accept?consent_challenge=${consentChallenge}`, {
    grant_scope: ['openid', 'offline_access'],
    remember: true,
    session: { id_token: { email: 'c@example.com' } },
  });
  check('PUT', '/admin/oauth2/auth/requests/consent/accept', consent);
  const code = param((await browser.get(consent.body.redirect_to)).location, 'code');
  const tokens = await exchangeCode(h.provider, client, code);
  check('POST', '/oauth2/token', tokens);
  check('POST', '/admin/oauth2/introspect', { status: 200, body: await introspect(tokens.body.access_token) });
  check('GET', '/admin/oauth2/auth/sessions/consent', await admin(h.provider, 'GET', '/admin/oauth2/auth/sessions/consent?subject=user-c'));
  const userinfo = await fetch(`${h.provider.publicUrl}/userinfo`, { headers: { authorization: `Bearer ${tokens.body.access_token}` } });
  check('GET', '/userinfo', { status: userinfo.status, body: await userinfo.json() });
  // Not the discovery document: real Hydra v2.3.0's lacks device_authorization_endpoint, which the
  // (newer) document requires, and the stand-in serves v2.3.0's.

  const logout = await browser.get(`${h.provider.publicUrl}/oauth2/sessions/logout?id_token_hint=${tokens.body.id_token}`);
  const logoutChallenge = param(logout.location, 'logout_challenge');
  check('GET', '/admin/oauth2/auth/requests/logout', await admin(h.provider, 'GET', `/admin/oauth2/auth/requests/logout?logout_challenge=${logoutChallenge}`));
  check(
    'PUT',
    '/admin/oauth2/auth/requests/logout/accept',
    await admin(h.provider, 'PUT', `/admin/oauth2/auth/requests/logout/accept?logout_challenge=${logoutChallenge}`),
  );
});
