// Logout on the OAuth2 stand-in: RP-initiated (id_token_hint, a registered post_logout_redirect_uri,
// state) and OP-initiated, the logout UI's challenge, accept and reject, what following the accepted
// request ends (the login session, its cookie, the identity service's session), and the validation
// errors real Hydra v2.3.0 sends to the error UI.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createClient, exchangeCode, newBrowser, param, RP, runFlow, startHarness, UI, type Harness } from './support.ts';
import type { Browser } from '../../support/http.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

async function signedIn(subject = 'user-1'): Promise<{ browser: Browser; idToken: string; clientId: string; sid: string }> {
  const client = await createClient(h.provider);
  const browser = newBrowser(h.provider);
  const { final, loginRequest } = await runFlow(h.provider, browser, client.id, {
    login: () => ({ subject, remember: true, identity_provider_session_id: `kratos-${subject}` }),
  });
  const tokens = await exchangeCode(h.provider, client, param(final.location, 'code'));
  return { browser, idToken: tokens.body.id_token, clientId: client.id, sid: loginRequest.session_id };
}

const logoutUrl = (query: Record<string, string> = {}) => `${h.provider.publicUrl}/oauth2/sessions/logout?${new URLSearchParams(query)}`;

describe('RP-initiated logout', () => {
  it('asks the logout UI, then ends the login session, its cookie and the identity session, and returns to the client with state', async () => {
    const { browser, idToken, clientId, sid } = await signedIn('user-rp');
    const start = await browser.get(logoutUrl({ id_token_hint: idToken, post_logout_redirect_uri: `${RP}/`, state: 'bye-state' }));
    expect(start.status).toBe(302);
    expect(start.location).toMatch(new RegExp(`^${UI.logout}\\?logout_challenge=[0-9a-f-]{36}$`));
    const challenge = param(start.location, 'logout_challenge');
    const request = await admin(h.provider, 'GET', `/admin/oauth2/auth/requests/logout?logout_challenge=${challenge}`);
    expect(request.status).toBe(200);
    expect(request.body).toMatchObject({
      challenge,
      subject: 'user-rp',
      sid,
      rp_initiated: true,
      expires_at: null,
      requested_at: null,
      client: { client_id: clientId },
    });
    expect(request.body.request_url).toMatch(/^\/oauth2\/sessions\/logout\?id_token_hint=/);
    expect(request.body.client.client_secret).toBeUndefined();

    const accept = await admin(h.provider, 'PUT', `/admin/oauth2/auth/requests/logout/accept?logout_challenge=${challenge}`);
    expect(accept.status).toBe(200);
    expect(accept.body.redirect_to).toMatch(new RegExp(`^${h.provider.publicUrl}/oauth2/sessions/logout\\?logout_verifier=`));
    expect(browser.cookies.has('ory_hydra_session_dev')).toBe(true);
    const done = await browser.get(accept.body.redirect_to);
    expect(done.status).toBe(302);
    expect(done.location).toBe(`${RP}/?state=bye-state`);
    expect(browser.cookies.has('ory_hydra_session_dev')).toBe(false);
    expect(h.identityDeletes).toContain('/admin/sessions/kratos-user-rp');
    // Handled: the admin API now answers 410 with the request URL.
    const again = await admin(h.provider, 'GET', `/admin/oauth2/auth/requests/logout?logout_challenge=${challenge}`);
    expect(again).toMatchObject({ status: 410, body: { redirect_to: request.body.request_url } });

    // The hinted session is gone: straight to the post-logout URI, no UI.
    const later = await newBrowser(h.provider).get(logoutUrl({ id_token_hint: idToken, post_logout_redirect_uri: `${RP}/`, state: 'again-state' }));
    expect(later).toMatchObject({ status: 302, location: `${RP}/?state=again-state` });
  });

  it('sends invalid requests to the error UI with Hydra’s texts', async () => {
    const { browser, idToken } = await signedIn('user-bad');
    const cases: [Record<string, string>, string][] = [
      [{ state: 'abcdefghij' }, 'Logout failed because query parameter state is set but id_token_hint is missing.'],
      [{ post_logout_redirect_uri: `${RP}/` }, 'Logout failed because query parameter post_logout_redirect_uri is set but id_token_hint is missing.'],
      [
        { id_token_hint: idToken, post_logout_redirect_uri: `${RP}/elsewhere` },
        'Logout failed because query parameter post_logout_redirect_uri is not a whitelisted as a post_logout_redirect_uri for the client.',
      ],
    ];
    for (const [query, hint] of cases) {
      const answer = await browser.get(logoutUrl(query));
      expect(answer.status).toBe(302);
      expect(answer.location!.startsWith(`${UI.error}?error=invalid_request`)).toBe(true);
      expect(param(answer.location, 'error_description')).toMatch(new RegExp(`${hint.replace(/[.?]/g, '\\$&')}$`));
    }
    const forged = await browser.get(logoutUrl({ id_token_hint: `${idToken.slice(0, -4)}AAAA` }));
    expect(param(forged.location, 'error')).toBe('invalid_request');
    const unknownVerifier = await browser.get(logoutUrl({ logout_verifier: 'garbage' }));
    expect(param(unknownVerifier.location, 'error')).toBe('Not Found');
  });
});

describe('OP-initiated logout', () => {
  it('goes straight to the post-logout page without a session, else through the logout UI (client null)', async () => {
    const none = await newBrowser(h.provider).get(logoutUrl());
    expect(none).toMatchObject({ status: 302, location: UI.postLogout });

    const { browser, sid } = await signedIn('user-op');
    const start = await browser.get(logoutUrl());
    const challenge = param(start.location, 'logout_challenge');
    const request = await admin(h.provider, 'GET', `/admin/oauth2/auth/requests/logout?logout_challenge=${challenge}`);
    expect(request.body).toMatchObject({ subject: 'user-op', sid, rp_initiated: false, client: null });
    const accept = await admin(h.provider, 'PUT', `/admin/oauth2/auth/requests/logout/accept?logout_challenge=${challenge}`);
    const done = await browser.get(accept.body.redirect_to);
    expect(done).toMatchObject({ status: 302, location: UI.postLogout });
    const client = await createClient(h.provider);
    const next = await runFlow(h.provider, browser, client.id);
    expect(next.loginRequest.skip).toBe(false);
  });

  it('rejects with 204 and keeps the session; unknown challenges are 404', async () => {
    const { browser } = await signedIn('user-stay');
    const challenge = param((await browser.get(logoutUrl())).location, 'logout_challenge');
    const reject = await admin(h.provider, 'PUT', `/admin/oauth2/auth/requests/logout/reject?logout_challenge=${challenge}`);
    expect(reject.status).toBe(204);
    expect(reject.body).toBeUndefined();
    expect(browser.cookies.has('ory_hydra_session_dev')).toBe(true);
    const client = await createClient(h.provider);
    expect((await runFlow(h.provider, browser, client.id)).loginRequest.skip).toBe(true);

    const unknown = { error: 'Unable to locate the resource', error_description: '' };
    expect(await admin(h.provider, 'GET', '/admin/oauth2/auth/requests/logout?logout_challenge=garbage')).toMatchObject({ status: 404, body: unknown });
    expect(await admin(h.provider, 'PUT', '/admin/oauth2/auth/requests/logout/accept?logout_challenge=garbage')).toMatchObject({ status: 404, body: unknown });
    expect(await admin(h.provider, 'PUT', '/admin/oauth2/auth/requests/logout/reject?logout_challenge=garbage')).toMatchObject({
      status: 404,
      body: { error: 'Not Found', error_description: 'Unable to locate the requested resource' },
    });
  });
});
