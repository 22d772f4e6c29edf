// Edge cases of the contract beyond §20: retries, replaced flows, anti-enumeration, logout errors,
// provider nodes, disabled registration, cookie re-issue after an admin extend.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestClock } from '../../../embedded/clock.ts';
import { call, codeIn, CookieJar, csrfOf, latestMail, node, sdk, startTestIdentity } from './helpers.ts';

type Svc = Awaited<ReturnType<typeof startTestIdentity>>;
let svc: Svc;
let api: ReturnType<typeof sdk>;
const clock = createTestClock();
beforeAll(async () => {
  svc = await startTestIdentity({ clock });
  api = sdk(svc.publicUrl, svc.adminUrl);
});
afterAll(async () => {
  await svc.close();
});

let n = 0;
async function makeUser(): Promise<string> {
  const email = `edge${++n}@example.com`;
  await call(
    undefined,
    api.identity.createIdentity({
      createIdentityBody: { schema_id: 'default', traits: { email }, credentials: { password: { config: { password: 'edge case phrase' } } } },
    }),
  );
  return email;
}

describe('recovery and verification retries', () => {
  it('recovery: unknown address answers like a known one, without mail; too many codes → new flow via 303', async () => {
    const jar = new CookieJar();
    let r = await call(jar, api.frontend.createBrowserRecoveryFlow({}, { headers: { cookie: jar.header() } }));
    const id = r.data.id;
    r = await call(
      jar,
      api.frontend.updateRecoveryFlow({
        flow: id,
        cookie: jar.header(),
        updateRecoveryFlowBody: { method: 'code', email: 'ghost@example.com', csrf_token: csrfOf(r.data) },
      }),
    );
    expect(r.status).toBe(200);
    expect(r.data.state).toBe('sent_email');
    expect(r.data.ui.messages[0].id).toBe(1060003);
    expect(await latestMail(svc.adminUrl, 'ghost@example.com')).toBeUndefined();
    for (let i = 0; i < 5; i++) {
      r = await call(
        jar,
        api.frontend.updateRecoveryFlow({
          flow: id,
          cookie: jar.header(),
          updateRecoveryFlowBody: { method: 'code', code: '111111', csrf_token: csrfOf(r.data) },
        }),
      );
      expect(r.status).toBe(200);
      expect(r.data.id).toBe(id);
    }
    r = await call(
      jar,
      api.frontend.updateRecoveryFlow({
        flow: id,
        cookie: jar.header(),
        updateRecoveryFlowBody: { method: 'code', code: '111111', csrf_token: csrfOf(r.data) },
      }),
    );
    expect(r.status).toBe(200); // axios followed the 303 to the new flow
    expect(r.data.id).not.toBe(id);
    expect(r.data.ui.messages[0]).toMatchObject({ id: 4000001, text: 'The request was submitted too often. Please request another code.' });
  });

  it('recovery: an e-mail submitted to a passed flow gets a new flow with 4060001', async () => {
    const email = await makeUser();
    const jar = new CookieJar();
    let r = await call(jar, api.frontend.createBrowserRecoveryFlow({}, { headers: { cookie: jar.header() } }));
    const id = r.data.id;
    r = await call(
      jar,
      api.frontend.updateRecoveryFlow({ flow: id, cookie: jar.header(), updateRecoveryFlowBody: { method: 'code', email, csrf_token: csrfOf(r.data) } }),
    );
    const csrf = csrfOf(r.data);
    r = await call(
      jar,
      api.frontend.updateRecoveryFlow({
        flow: id,
        cookie: jar.header(),
        updateRecoveryFlowBody: { method: 'code', code: codeIn((await latestMail(svc.adminUrl, email)).body), csrf_token: csrf },
      }),
    );
    expect(r.status).toBe(422);
    const j2 = new CookieJar();
    const fresh = await call(j2, api.frontend.createBrowserRecoveryFlow({}, { headers: { cookie: j2.header() } }));
    // Re-using the passed flow from a signed-out browser.
    const res = await fetch(`${svc.publicUrl}/self-service/recovery?flow=${id}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { accept: 'application/json', 'content-type': 'application/json', cookie: j2.header() },
      body: JSON.stringify({ method: 'code', email, csrf_token: csrfOf(fresh.data) }),
    });
    expect(res.status).toBe(303);
    const loc = res.headers.get('location')!;
    const nf = await call(j2, api.frontend.getRecoveryFlow({ id: new URL(loc).searchParams.get('id')!, cookie: j2.header() }));
    expect(nf.data.ui.messages[0].id).toBe(4060001);
  });

  it('verification: a used code or a passed flow → 410 self_service_flow_replaced with use_flow_id', async () => {
    const email = await makeUser();
    const jar = new CookieJar();
    let r = await call(jar, api.frontend.createBrowserVerificationFlow({}, { headers: { cookie: jar.header() } }));
    const id = r.data.id;
    r = await call(
      jar,
      api.frontend.updateVerificationFlow({
        flow: id,
        cookie: jar.header(),
        updateVerificationFlowBody: { method: 'code', email, csrf_token: csrfOf(r.data) },
      }),
    );
    expect(r.data.ui.nodes.map((x: any) => `${x.attributes.name}(${x.attributes.type})`)).toEqual([
      'method(hidden)',
      'code(text)',
      'method(submit)',
      'csrf_token(hidden)',
      'email(submit)',
    ]);
    const code = codeIn((await latestMail(svc.adminUrl, email)).body);
    r = await call(
      jar,
      api.frontend.updateVerificationFlow({ flow: id, cookie: jar.header(), updateVerificationFlowBody: { method: 'code', code, csrf_token: csrfOf(r.data) } }),
    );
    expect(r.data.state).toBe('passed_challenge');
    // The success UI has no csrf node any more; any masked token of this browser is valid.
    const other = await call(jar, api.frontend.createBrowserVerificationFlow({}, { headers: { cookie: jar.header() } }));
    r = await call(
      jar,
      api.frontend.updateVerificationFlow({
        flow: id,
        cookie: jar.header(),
        updateVerificationFlowBody: { method: 'code', code, csrf_token: csrfOf(other.data) },
      }),
    );
    expect(r.status).toBe(410);
    expect(r.data.error).toMatchObject({
      id: 'self_service_flow_replaced',
      code: 410,
      reason: 'An error occured, please use the new flow.',
      message: 'self-service flow replaced',
    });
    const nf = await call(jar, api.frontend.getVerificationFlow({ id: r.data.use_flow_id, cookie: jar.header() }));
    expect(nf.data.ui.messages[0].id).toBe(4070002);
  });

  it('settings: changing the e-mail sends a verification code to the new address', async () => {
    const email = await makeUser();
    const jar = new CookieJar();
    let r = await call(jar, api.frontend.createBrowserLoginFlow({ cookie: jar.header() }));
    r = await call(
      jar,
      api.frontend.updateLoginFlow({
        flow: r.data.id,
        cookie: jar.header(),
        updateLoginFlowBody: { method: 'password', identifier: email, password: 'edge case phrase', csrf_token: csrfOf(r.data) },
      }),
    );
    r = await call(jar, api.frontend.createBrowserSettingsFlow({ cookie: jar.header() }));
    r = await call(
      jar,
      api.frontend.updateSettingsFlow({
        flow: r.data.id,
        cookie: jar.header(),
        updateSettingsFlowBody: { method: 'profile', traits: { email: `new-${email}` }, csrf_token: csrfOf(r.data) },
      }),
    );
    expect(r.status).toBe(200);
    expect(r.data.identity.verifiable_addresses).toEqual([expect.objectContaining({ value: `new-${email}`, verified: false, status: 'sent' })]);
    expect((await latestMail(svc.adminUrl, `new-${email}`)).template_type).toBe('verification_code_valid');
    // The new address is the login identifier now.
    const j2 = new CookieJar();
    r = await call(j2, api.frontend.createBrowserLoginFlow({ cookie: j2.header() }));
    r = await call(
      j2,
      api.frontend.updateLoginFlow({
        flow: r.data.id,
        cookie: j2.header(),
        updateLoginFlowBody: { method: 'password', identifier: `NEW-${email}`, password: 'edge case phrase', csrf_token: csrfOf(r.data) },
      }),
    );
    expect(r.status).toBe(200);
  });
});

describe('transient payload and traits', () => {
  it('transient_payload is echoed by the request that carried it, never persisted; traits keep their case', async () => {
    const jar = new CookieJar();
    let r = await call(jar, api.frontend.createBrowserLoginFlow({ cookie: jar.header() }));
    const id = r.data.id;
    r = await call(
      jar,
      api.frontend.updateLoginFlow({
        flow: id,
        cookie: jar.header(),
        updateLoginFlowBody: {
          method: 'password',
          identifier: 'x@example.com',
          password: 'wrong wrong',
          csrf_token: csrfOf(r.data),
          transient_payload: { from: 'test' },
        },
      }),
    );
    expect(r.status).toBe(400);
    expect(r.data.transient_payload).toEqual({ from: 'test' });
    r = await call(jar, api.frontend.getLoginFlow({ id, cookie: jar.header() }));
    expect(r.data.transient_payload).toBeUndefined();
    r = await call(jar, api.frontend.createBrowserRegistrationFlow({}, { headers: { cookie: jar.header() } }));
    r = await call(
      jar,
      api.frontend.updateRegistrationFlow({
        flow: r.data.id,
        cookie: jar.header(),
        updateRegistrationFlowBody: {
          method: 'password',
          traits: { email: 'Mixed.Case@Example.com' },
          password: 'edge case phrase',
          csrf_token: csrfOf(r.data),
        },
      }),
    );
    expect(r.data.identity.traits.email).toBe('Mixed.Case@Example.com');
    expect(r.data.identity.verifiable_addresses[0].value).toBe('mixed.case@example.com');
  });
});

describe('logout and sessions', () => {
  it('missing token 400, wrong token 403, no session 401; whoami re-issues the cookie after an admin extend', async () => {
    const email = await makeUser();
    const jar = new CookieJar();
    let r = await call(jar, api.frontend.createBrowserLoginFlow({ cookie: jar.header() }));
    r = await call(
      jar,
      api.frontend.updateLoginFlow({
        flow: r.data.id,
        cookie: jar.header(),
        updateLoginFlowBody: { method: 'password', identifier: email, password: 'edge case phrase', csrf_token: csrfOf(r.data) },
      }),
    );
    const sessionId = r.data.session.id;
    let res = await fetch(`${svc.publicUrl}/self-service/logout`, { headers: { accept: 'application/json', cookie: jar.header() } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.reason).toBe('Please include a token in the URL query.');
    r = await call(jar, api.frontend.updateLogoutFlow({ token: 'ory_lo_wrong', cookie: jar.header() }));
    expect(r.status).toBe(403);
    expect(r.data.error.reason).toBe('Unable to log out because the logout token in the URL query does not match the session cookie.');
    r = await call(undefined, api.frontend.updateLogoutFlow({ token: 'ory_lo_wrong' }));
    expect(r.status).toBe(401);
    expect(r.data.error.id).toBe('session_inactive');
    // No re-issue while the cookie is current; re-issue after extend.
    r = await call(jar, api.frontend.toSession({ cookie: jar.header() }));
    expect(r.headers['set-cookie']).toBeUndefined();
    clock.advance(1000); // so the extended expiry differs from the one in the cookie
    expect((await call(undefined, api.identity.extendSession({ id: sessionId }))).status).toBe(200);
    r = await call(jar, api.frontend.toSession({ cookie: jar.header() }));
    expect(String(r.headers['set-cookie'])).toContain('ory_kratos_session=');
    const lf = await call(jar, api.frontend.createBrowserLogoutFlow({ cookie: jar.header(), returnTo: 'http://app.test/bye' }));
    expect(lf.data.logout_url).toBe(
      `${svc.publicUrl}/self-service/logout?token=${lf.data.logout_token}&return_to=${encodeURIComponent('http://app.test/bye')}`,
    );
    res = await fetch(lf.data.logout_url, { redirect: 'manual', headers: { cookie: jar.header() } });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('http://app.test/bye');
    const sc = res.headers.getSetCookie().join('\n');
    expect(sc).toMatch(/ory_kratos_session=; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0/);
    expect(sc).toMatch(/csrf_token_/);
  });
});

describe('configuration-driven nodes', () => {
  it('oidc provider nodes appear when providers are configured; disabled registration is refused', async () => {
    const s = await startTestIdentity({
      config: {
        selfservice: {
          methods: {
            oidc: {
              enabled: true,
              config: {
                providers: [
                  { id: 'google', label: 'Google' },
                  { id: 'microsoft', label: 'Microsoft' },
                ],
              },
            },
          },
          flows: { registration: { enabled: false } },
        },
      },
    });
    try {
      const a = sdk(s.publicUrl, s.adminUrl);
      const jar = new CookieJar();
      let r = await call(jar, a.frontend.createBrowserLoginFlow({ cookie: jar.header() }));
      expect(r.data.ui.nodes[0]).toEqual({
        type: 'input',
        group: 'oidc',
        attributes: { name: 'provider', type: 'submit', value: 'google', disabled: false, node_type: 'input' },
        messages: [],
        meta: { label: { id: 1010002, text: 'Sign in with Google', type: 'info', context: { provider: 'Google', provider_id: 'google' } } },
      });
      expect(r.data.ui.nodes.map((x: any) => x.attributes.name)).toEqual(['provider', 'provider', 'csrf_token', 'identifier', 'password', 'method']);
      r = await call(jar, a.frontend.createBrowserRegistrationFlow({}, { headers: { cookie: jar.header() } }));
      expect(r.status).toBe(400);
      expect(r.data.error).toMatchObject({
        id: 'self_service_flow_disabled',
        reason: 'Registration is not allowed because it was disabled.',
        message: 'registration flow disabled',
      });
      await call(
        undefined,
        a.identity.createIdentity({
          createIdentityBody: {
            schema_id: 'default',
            traits: { email: 'oidc@example.com' },
            credentials: { password: { config: { password: 'edge case phrase' } } },
          },
        }),
      );
      r = await call(jar, a.frontend.createBrowserLoginFlow({ cookie: jar.header() }));
      r = await call(
        jar,
        a.frontend.updateLoginFlow({
          flow: r.data.id,
          cookie: jar.header(),
          updateLoginFlowBody: { method: 'password', identifier: 'oidc@example.com', password: 'edge case phrase', csrf_token: csrfOf(r.data) },
        }),
      );
      r = await call(jar, a.frontend.createBrowserSettingsFlow({ cookie: jar.header() }));
      expect(r.data.ui.nodes.filter((x: any) => x.group === 'oidc').map((x: any) => [x.attributes.name, x.attributes.value, x.meta.label.text])).toEqual([
        ['link', 'google', 'Link Google'],
        ['link', 'microsoft', 'Link Microsoft'],
      ]);
      expect(node(r.data, 'link').meta.label).toEqual({ id: 1050002, text: 'Link Google', type: 'info', context: { provider: 'Google' } });
    } finally {
      await s.close();
    }
  });
});
