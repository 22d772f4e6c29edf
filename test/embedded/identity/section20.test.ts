// Contract §20: one test per point a naive Kratos stand-in gets wrong.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestClock } from '../../../embedded/clock.ts';
import { APP, Browser, call, codeIn, CookieJar, csrfOf, flowIdOf, latestMail, node, sdk, startTestIdentity } from './helpers.ts';

type Svc = Awaited<ReturnType<typeof startTestIdentity>>;
let svc: Svc;
let api: ReturnType<typeof sdk>;
let n = 0;
const uniqueEmail = () => `user${++n}-${Date.now()}@example.com`;
const PASSWORD = 'correct horse battery staple';

beforeAll(async () => {
  svc = await startTestIdentity();
  api = sdk(svc.publicUrl, svc.adminUrl);
});
afterAll(async () => {
  await svc.close();
});

async function register(email = uniqueEmail(), password = PASSWORD): Promise<string> {
  const r = await call(
    undefined,
    api.identity.createIdentity({ createIdentityBody: { schema_id: 'default', traits: { email }, credentials: { password: { config: { password } } } } }),
  );
  expect(r.status).toBe(201);
  return email;
}

async function login(jar: CookieJar, email: string, password = PASSWORD) {
  let r = await call(jar, api.frontend.createBrowserLoginFlow({ cookie: jar.header() }));
  r = await call(
    jar,
    api.frontend.updateLoginFlow({
      flow: r.data.id,
      cookie: jar.header(),
      updateLoginFlowBody: { method: 'password', identifier: email, password, csrf_token: csrfOf(r.data) },
    }),
  );
  expect(r.status).toBe(200);
  return r;
}

describe('contract §20', () => {
  it('1. JSON success of registration step one, and of screen=previous, is 400 with the flow', async () => {
    const jar = new CookieJar();
    let r = await call(jar, api.frontend.createBrowserRegistrationFlow({}, { headers: { cookie: jar.header() } }));
    const id = r.data.id;
    // v1.3.1's order: the traits, then csrf_token, then the profile submit.
    expect(r.data.ui.nodes.map((x: any) => `${x.attributes.name}[${x.group}]`)).toEqual([
      'traits.email[default]',
      'traits.name[default]',
      'traits.avatarRemoteId[default]',
      'traits.loginService[default]',
      'csrf_token[default]',
      'method[profile]',
    ]);
    r = await call(
      jar,
      api.frontend.updateRegistrationFlow({
        flow: id,
        cookie: jar.header(),
        updateRegistrationFlowBody: { method: 'profile', csrf_token: csrfOf(r.data), traits: { email: uniqueEmail(), name: 'Ada' } } as any,
      }),
    );
    expect(r.status).toBe(400);
    expect(r.data.id).toBe(id);
    expect(r.data.error).toBeUndefined();
    expect(r.data.state).toBe('choose_method');
    expect(r.data.ui.messages).toEqual([{ id: 1040009, text: 'Please choose a credential to authenticate yourself with.', type: 'info' }]);
    // v1.3.1's stepTwoNodes (password, its submit, Back), then a hidden node per posted trait (no label),
    // then csrf_token.
    expect(r.data.ui.nodes.map((x: any) => `${x.attributes.name}(${x.attributes.type})[${x.group}]`)).toEqual([
      'password(password)[password]',
      'method(submit)[password]',
      'screen(submit)[profile]',
      'traits.email(hidden)[default]',
      'traits.name(hidden)[default]',
      'csrf_token(hidden)[default]',
    ]);
    expect(node(r.data, 'traits.email').meta).toEqual({});
    expect(r.data.transient_payload).toEqual({});
    expect(node(r.data, 'screen').meta.label).toEqual({ id: 1040008, text: 'Back', type: 'info' });
    r = await call(
      jar,
      api.frontend.updateRegistrationFlow({
        flow: id,
        cookie: jar.header(),
        // The Back button posts screen=previous without a method (v1.3.1: method=profile would win).
        updateRegistrationFlowBody: { screen: 'previous', csrf_token: csrfOf(r.data), traits: { email: 'x@example.com' } } as any,
      }),
    );
    expect(r.status).toBe(400);
    expect(r.data.id).toBe(id);
    expect(node(r.data, 'traits.email').attributes).toMatchObject({ type: 'email', value: 'x@example.com' });
    expect(r.data.ui.messages).toBeUndefined();
  });

  it('2. JSON validation failures return the flow with 400, only non-form errors use the envelope', async () => {
    const jar = new CookieJar();
    let r = await call(jar, api.frontend.createBrowserRegistrationFlow({}, { headers: { cookie: jar.header() } }));
    const id = r.data.id;
    r = await call(
      jar,
      api.frontend.updateRegistrationFlow({
        flow: id,
        cookie: jar.header(),
        updateRegistrationFlowBody: { method: 'profile', csrf_token: csrfOf(r.data), traits: { email: 'not-an-email', name: 'Ada' } } as any,
      }),
    );
    expect(r.status).toBe(400);
    expect(r.data.id).toBe(id);
    // v1.3.1: the JSON schema validator's text under 4000001 (no 4000040 yet).
    expect(node(r.data, 'traits.email').messages).toEqual([
      { id: 4000001, text: '"not-an-email" is not valid "email"', type: 'error', context: { reason: '"not-an-email" is not valid "email"' } },
    ]);
    expect(node(r.data, 'traits.email').attributes.value).toBe('not-an-email');
    // Password too short → 4000032 on the password node.
    r = await call(
      jar,
      api.frontend.updateRegistrationFlow({
        flow: id,
        cookie: jar.header(),
        updateRegistrationFlowBody: { method: 'password', csrf_token: csrfOf(r.data), traits: { email: uniqueEmail() }, password: 'short' },
      }),
    );
    expect(r.status).toBe(400);
    expect(node(r.data, 'password').messages[0]).toEqual({
      id: 4000032,
      text: 'The password must be at least 8 characters long, but got 5.',
      type: 'error',
      context: { actual_length: 5, min_length: 8 },
    });
    // Login: missing password → 4000002 on the node.
    r = await call(jar, api.frontend.createBrowserLoginFlow({ cookie: jar.header() }));
    r = await call(
      jar,
      api.frontend.updateLoginFlow({
        flow: r.data.id,
        cookie: jar.header(),
        updateLoginFlowBody: { method: 'password', identifier: 'a@example.com', password: '', csrf_token: csrfOf(r.data) },
      }),
    );
    expect(r.status).toBe(400);
    expect(node(r.data, 'password').messages).toEqual([
      { id: 4000002, text: 'Property password is missing.', type: 'error', context: { property: 'password' } },
    ]);
    // A CSRF failure is not a form error: envelope.
    r = await call(
      jar,
      api.frontend.updateLoginFlow({
        flow: r.data.id,
        cookie: jar.header(),
        updateLoginFlowBody: { method: 'password', identifier: 'a@example.com', password: 'x', csrf_token: 'bogus' },
      }),
    );
    expect(r.status).toBe(403);
    expect(r.data.error.id).toBe('security_csrf_violation');
    expect(r.data.ui).toBeUndefined();
    // Unknown flow: 404 envelope.
    r = await call(
      jar,
      api.frontend.updateLoginFlow({
        flow: '00000000-0000-4000-8000-000000000000',
        cookie: jar.header(),
        updateLoginFlowBody: { method: 'password', identifier: 'a', password: 'b', csrf_token: 'c' },
      }),
    );
    expect(r.status).toBe(404);
    expect(r.data.error.code).toBe(404);
  });

  it('3. browser-form validation redirects are 303, except registration (302)', async () => {
    const b = new Browser();
    const P = svc.publicUrl;
    let res = await b.get(`${P}/self-service/login/browser`);
    const loginId = flowIdOf(res.headers.get('location'));
    let flow = (await b.flowJson(`${P}/self-service/login/flows?id=${loginId}`)).data;
    res = await b.post(flow.ui.action, { method: 'password', identifier: 'nobody@example.com', password: 'whatever123', csrf_token: csrfOf(flow) });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${APP}/sign-in?flow=${loginId}`);

    res = await b.get(`${P}/self-service/registration/browser`);
    const regId = flowIdOf(res.headers.get('location'));
    flow = (await b.flowJson(`${P}/self-service/registration/flows?id=${regId}`)).data;
    res = await b.post(flow.ui.action, { method: 'profile', csrf_token: csrfOf(flow), 'traits.email': 'not-an-email' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${APP}/sign-up?flow=${regId}`);

    res = await b.get(`${P}/self-service/recovery/browser`);
    const recId = flowIdOf(res.headers.get('location'));
    flow = (await b.flowJson(`${P}/self-service/recovery/flows?id=${recId}`)).data;
    res = await b.post(flow.ui.action, { method: 'code', csrf_token: csrfOf(flow), email: 'not-an-email' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${APP}/forgot-password?flow=${recId}`);

    res = await b.get(`${P}/self-service/verification/browser`);
    const verId = flowIdOf(res.headers.get('location'));
    flow = (await b.flowJson(`${P}/self-service/verification/flows?id=${verId}`)).data;
    res = await b.post(flow.ui.action, { method: 'code', csrf_token: csrfOf(flow), email: 'not-an-email' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${APP}/sign-up/verification?flow=${verId}`);

    const email = await register();
    const b2 = new Browser();
    res = await b2.get(`${P}/self-service/login/browser`);
    flow = (await b2.flowJson(`${P}/self-service/login/flows?id=${flowIdOf(res.headers.get('location'))}`)).data;
    res = await b2.post(flow.ui.action, { method: 'password', identifier: email, password: PASSWORD, csrf_token: csrfOf(flow) });
    expect(res.status).toBe(303);
    res = await b2.get(`${P}/self-service/settings/browser`);
    const setId = flowIdOf(res.headers.get('location'));
    flow = (await b2.flowJson(`${P}/self-service/settings/flows?id=${setId}`)).data;
    res = await b2.post(flow.ui.action, { method: 'password', password: 'short', csrf_token: csrfOf(flow) });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${APP}/profile-settings?flow=${setId}`);
  });

  it('4. getting a browser flow without the CSRF cookie is 403', async () => {
    const jar = new CookieJar();
    const flows = {
      login: await call(jar, api.frontend.createBrowserLoginFlow({ cookie: jar.header() })),
      registration: await call(jar, api.frontend.createBrowserRegistrationFlow({}, { headers: { cookie: jar.header() } })),
      recovery: await call(jar, api.frontend.createBrowserRecoveryFlow({}, { headers: { cookie: jar.header() } })),
      verification: await call(jar, api.frontend.createBrowserVerificationFlow({}, { headers: { cookie: jar.header() } })),
    };
    const getters = {
      login: (id: string, cookie?: string) => api.frontend.getLoginFlow({ id, cookie }),
      registration: (id: string, cookie?: string) => api.frontend.getRegistrationFlow({ id, cookie }),
      recovery: (id: string, cookie?: string) => api.frontend.getRecoveryFlow({ id, cookie }),
      verification: (id: string, cookie?: string) => api.frontend.getVerificationFlow({ id, cookie }),
    };
    for (const [kind, created] of Object.entries(flows)) {
      const get = getters[kind as keyof typeof getters];
      const without = await call(undefined, get(created.data.id));
      expect(without.status, kind).toBe(403);
      expect(without.data.error.id).toBe('security_csrf_violation');
      // v1.3.1 gives every CSRF violation the same details (its shared details map, csrf.ts).
      expect(without.data.error.details.reject_reason).toMatch(/do not match/);
      const other = new CookieJar();
      await call(other, api.frontend.createBrowserLoginFlow({ cookie: other.header() }));
      expect((await call(undefined, get(created.data.id, other.header()))).status).toBe(403);
      expect((await call(undefined, get(created.data.id, jar.header()))).status).toBe(200);
    }
  });

  it('5. the CSRF check uses the body csrf_token; masked tokens differ per response and all validate', async () => {
    const jar = new CookieJar();
    const email = await register();
    let r = await call(jar, api.frontend.createBrowserLoginFlow({ cookie: jar.header() }));
    const id = r.data.id;
    const t1 = csrfOf(r.data);
    const t2 = csrfOf((await call(jar, api.frontend.getLoginFlow({ id, cookie: jar.header() }))).data);
    const t3 = csrfOf((await call(jar, api.frontend.getLoginFlow({ id, cookie: jar.header() }))).data);
    expect(new Set([t1, t2, t3]).size).toBe(3);
    expect(t1).toHaveLength(88);
    expect(jar.get('csrf_token_')).toHaveLength(44);
    // Header only (no body token) is rejected.
    r = await call(
      jar,
      api.frontend.updateLoginFlow(
        { flow: id, cookie: jar.header(), updateLoginFlowBody: { method: 'password', identifier: email, password: 'wrong-password-1' } as any },
        { headers: { 'X-CSRF-Token': t1 } },
      ),
    );
    expect(r.status).toBe(403);
    expect(r.data.error.details.hint).toBe(
      'The anti-CSRF cookie was found but the CSRF token was not included in the HTTP request body (csrf_token) nor in the HTTP Header (X-CSRF-Token).',
    );
    // Every masked value validates.
    for (const t of [t1, t2]) {
      r = await call(
        jar,
        api.frontend.updateLoginFlow({
          flow: id,
          cookie: jar.header(),
          updateLoginFlowBody: { method: 'password', identifier: email, password: 'wrong-password-1', csrf_token: t },
        }),
      );
      expect(r.status).toBe(400);
    }
    r = await call(
      jar,
      api.frontend.updateLoginFlow({
        flow: id,
        cookie: jar.header(),
        updateLoginFlowBody: { method: 'password', identifier: email, password: PASSWORD, csrf_token: t3 },
      }),
    );
    expect(r.status).toBe(200);
    // A token from another browser does not.
    const other = new CookieJar();
    const o = await call(other, api.frontend.createBrowserLoginFlow({ cookie: other.header() }));
    const j3 = new CookieJar();
    const f3 = await call(j3, api.frontend.createBrowserLoginFlow({ cookie: j3.header() }));
    r = await call(
      j3,
      api.frontend.updateLoginFlow({
        flow: f3.data.id,
        cookie: j3.header(),
        updateLoginFlowBody: { method: 'password', identifier: email, password: PASSWORD, csrf_token: csrfOf(o.data) },
      }),
    );
    expect(r.status).toBe(403);
    expect(r.data.error.details.reject_reason).toMatch(/do not match/);
  });

  it('7. login submit while signed in: 400 + flow with 4000001; registration submit while signed in: 400 envelope', async () => {
    const jar = new CookieJar();
    const email = await register();
    const login1 = await call(jar, api.frontend.createBrowserLoginFlow({ cookie: jar.header() }));
    const reg = await call(jar, api.frontend.createBrowserRegistrationFlow({}, { headers: { cookie: jar.header() } }));
    await login(jar, email);
    let r = await call(
      jar,
      api.frontend.updateLoginFlow({
        flow: login1.data.id,
        cookie: jar.header(),
        updateLoginFlowBody: { method: 'password', identifier: email, password: PASSWORD, csrf_token: csrfOf(login1.data) },
      }),
    );
    expect(r.status).toBe(400);
    expect(r.data.id).toBe(login1.data.id);
    const text = 'A valid session was detected and thus login is not possible. Did you forget to set `?refresh=true`?';
    expect(r.data.ui.messages).toEqual([{ id: 4000001, text, type: 'error', context: { reason: text } }]);
    r = await call(
      jar,
      api.frontend.updateRegistrationFlow({
        flow: reg.data.id,
        cookie: jar.header(),
        updateRegistrationFlowBody: { method: 'password', traits: { email: uniqueEmail() }, password: PASSWORD, csrf_token: csrfOf(reg.data) },
      }),
    );
    expect(r.status).toBe(400);
    expect(r.data.error).toMatchObject({
      id: 'session_already_available',
      code: 400,
      reason: 'A valid session was detected and thus registration is not possible.',
    });
    expect(r.data.ui).toBeUndefined();
    // Creating a login flow while signed in: 400 envelope.
    r = await call(jar, api.frontend.createBrowserLoginFlow({ cookie: jar.header() }));
    expect(r.status).toBe(400);
    expect(r.data.error.id).toBe('session_already_available');
  });

  it('8. whoami 401 has no error.id; settings and logout 401 carry session_inactive (and no CredentialsMissing in v1.3.1)', async () => {
    let r = await call(undefined, api.frontend.toSession({}));
    expect(r.status).toBe(401);
    expect(r.data).toEqual({
      error: {
        code: 401,
        status: 'Unauthorized',
        reason: 'No valid session credentials found in the request.',
        message: 'The request could not be authorized',
      },
    });
    expect(r.headers['ory-error-id']).toBe('');
    r = await call(undefined, api.frontend.createBrowserSettingsFlow({}));
    expect(r.status).toBe(401);
    expect(r.data.error).toMatchObject({
      id: 'session_inactive',
      code: 401,
      reason: 'No active session was found in this request.',
      message: 'request does not have a valid authentication session',
    });
    // v1.3.1 keeps "credentials missing" unexported: only newer Kratos writes a CredentialsMissing member.
    expect(Object.keys(r.data)).toEqual(['error']);
    expect(r.headers['ory-error-id']).toBe('session_inactive');
    r = await call(undefined, api.frontend.createBrowserLogoutFlow({}));
    expect(r.status).toBe(401);
    expect(r.data.error.id).toBe('session_inactive');
    expect(Object.keys(r.data)).toEqual(['error']);
  });

  it('9. wrong recovery/verification code is 200 + flow with 4060006/4070006; recovery success via JSON is 422', async () => {
    const email = await register();
    const jar = new CookieJar();
    let r = await call(jar, api.frontend.createBrowserRecoveryFlow({}, { headers: { cookie: jar.header() } }));
    const recId = r.data.id;
    expect(r.data.active).toBe('code');
    r = await call(
      jar,
      api.frontend.updateRecoveryFlow({ flow: recId, cookie: jar.header(), updateRecoveryFlowBody: { method: 'code', email, csrf_token: csrfOf(r.data) } }),
    );
    expect(r.data.ui.nodes.map((x: any) => `${x.attributes.name}(${x.attributes.type})`)).toEqual([
      'csrf_token(hidden)',
      'code(text)',
      'method(hidden)',
      'method(submit)',
      'email(submit)',
    ]);
    r = await call(
      jar,
      api.frontend.updateRecoveryFlow({
        flow: recId,
        cookie: jar.header(),
        updateRecoveryFlowBody: { method: 'code', code: '000000', csrf_token: csrfOf(r.data) },
      }),
    );
    expect(r.status).toBe(200);
    expect(r.data.ui.messages).toEqual([{ id: 4060006, text: 'The recovery code is invalid or has already been used. Please try again.', type: 'error' }]);
    const mail = await latestMail(svc.adminUrl, email);
    r = await call(
      jar,
      api.frontend.updateRecoveryFlow({
        flow: recId,
        cookie: jar.header(),
        updateRecoveryFlowBody: { method: 'code', code: codeIn(mail.body), csrf_token: csrfOf(r.data) },
      }),
    );
    expect(r.status).toBe(422);
    expect(r.data.error).toMatchObject({
      id: 'browser_location_change_required',
      code: 422,
      status: 'Unprocessable Entity',
      message: 'browser location change required',
    });
    expect(r.data.redirect_browser_to).toMatch(new RegExp(`^${APP}/profile-settings\\?flow=`));

    const vjar = new CookieJar();
    r = await call(vjar, api.frontend.createBrowserVerificationFlow({}, { headers: { cookie: vjar.header() } }));
    const verId = r.data.id;
    expect(r.data.ui.nodes.map((x: any) => x.attributes.name)).toEqual(['email', 'method', 'csrf_token']);
    r = await call(
      vjar,
      api.frontend.updateVerificationFlow({
        flow: verId,
        cookie: vjar.header(),
        updateVerificationFlowBody: { method: 'code', email, csrf_token: csrfOf(r.data) },
      }),
    );
    expect(r.status).toBe(200);
    expect(r.data.ui.messages[0].id).toBe(1080003);
    r = await call(
      vjar,
      api.frontend.updateVerificationFlow({
        flow: verId,
        cookie: vjar.header(),
        updateVerificationFlowBody: { method: 'code', code: '000000', csrf_token: csrfOf(r.data) },
      }),
    );
    expect(r.status).toBe(200);
    expect(r.data.ui.messages).toEqual([{ id: 4070006, text: 'The verification code is invalid or has already been used. Please try again.', type: 'error' }]);
  });

  it('10. no session after registration unless the session hook is configured', async () => {
    const jar = new CookieJar();
    let r = await call(jar, api.frontend.createBrowserRegistrationFlow({}, { headers: { cookie: jar.header() } }));
    r = await call(
      jar,
      api.frontend.updateRegistrationFlow({
        flow: r.data.id,
        cookie: jar.header(),
        updateRegistrationFlowBody: { method: 'password', traits: { email: uniqueEmail() }, password: PASSWORD, csrf_token: csrfOf(r.data) },
      }),
    );
    expect(r.status).toBe(200);
    expect(r.data.session).toBeUndefined();
    expect(String(r.headers['set-cookie'] ?? '')).not.toContain('ory_kratos_session');
    expect((await call(jar, api.frontend.toSession({ cookie: jar.header() }))).status).toBe(401);

    const withHook = await startTestIdentity({
      config: { selfservice: { flows: { registration: { after: { password: { hooks: [{ hook: 'session' }] } } } } } },
    });
    try {
      const api2 = sdk(withHook.publicUrl, withHook.adminUrl);
      const j2 = new CookieJar();
      r = await call(j2, api2.frontend.createBrowserRegistrationFlow({}, { headers: { cookie: j2.header() } }));
      r = await call(
        j2,
        api2.frontend.updateRegistrationFlow({
          flow: r.data.id,
          cookie: j2.header(),
          updateRegistrationFlowBody: { method: 'password', traits: { email: uniqueEmail() }, password: PASSWORD, csrf_token: csrfOf(r.data) },
        }),
      );
      expect(r.status).toBe(200);
      expect(r.data.session.identity.id).toBe(r.data.identity.id);
      expect((await call(j2, api2.frontend.toSession({ cookie: j2.header() }))).status).toBe(200);
    } finally {
      await withHook.close();
    }
  });

  it('11. settings success (JSON) is 200 with state success and 1050001; the browser goes back to the settings UI', async () => {
    const email = await register();
    const jar = new CookieJar();
    await login(jar, email);
    let r = await call(jar, api.frontend.createBrowserSettingsFlow({ cookie: jar.header() }));
    const id = r.data.id;
    expect(r.data.state).toBe('show_form');
    r = await call(
      jar,
      api.frontend.updateSettingsFlow({
        flow: id,
        cookie: jar.header(),
        updateSettingsFlowBody: { method: 'profile', traits: { email, name: 'Renamed' }, csrf_token: csrfOf(r.data) },
      }),
    );
    expect(r.status).toBe(200);
    expect(r.data.state).toBe('success');
    expect(r.data.ui.messages).toEqual([{ id: 1050001, text: 'Your changes have been saved!', type: 'success' }]);
    expect(node(r.data, 'traits.name').attributes.value).toBe('Renamed');
    expect(r.data.identity.traits.name).toBe('Renamed');
    expect(String(r.headers['set-cookie'])).toContain('ory_kratos_session=');
    // The address, made through the admin API, was never mailed (status pending): v1.3.1's verification
    // hook mails it on this save and lists the flow before redirect_browser_to.
    expect(r.data.continue_with).toEqual([
      {
        action: 'show_verification_ui',
        flow: { id: expect.any(String), verifiable_address: email, url: expect.stringContaining(`${APP}/sign-up/verification?flow=`) },
      },
      { action: 'redirect_browser_to', redirect_browser_to: `${APP}/profile-settings?flow=${id}` },
    ]);
  });

  it('13. Set-Cookie appears on 2xx, 3xx and 4xx (400/410/422) answers and the SDK exposes it', async () => {
    // 400 on a first visit still sets the anti-CSRF cookie.
    let r = await call(undefined, api.frontend.createBrowserLoginFlow({ returnTo: 'https://evil.example/x' }));
    expect(r.status).toBe(400);
    expect(String(r.headers['set-cookie'])).toMatch(/^csrf_token_[0-9a-f]{64}=/);
    // 422 (recovery success) carries the session cookie and a new CSRF cookie.
    const email = await register();
    const jar = new CookieJar();
    r = await call(jar, api.frontend.createBrowserRecoveryFlow({}, { headers: { cookie: jar.header() } }));
    const recId = r.data.id;
    r = await call(
      jar,
      api.frontend.updateRecoveryFlow({ flow: recId, cookie: jar.header(), updateRecoveryFlowBody: { method: 'code', email, csrf_token: csrfOf(r.data) } }),
    );
    const before = jar.get('csrf_token_');
    r = await call(
      jar,
      api.frontend.updateRecoveryFlow({
        flow: recId,
        cookie: jar.header(),
        updateRecoveryFlowBody: { method: 'code', code: codeIn((await latestMail(svc.adminUrl, email)).body), csrf_token: csrfOf(r.data) },
      }),
    );
    expect(r.status).toBe(422);
    const sc = (r.headers['set-cookie'] as string[]).join('\n');
    expect(sc).toMatch(/ory_kratos_session=[^;]+; Path=\/; Expires=[^;]+; Max-Age=\d+; HttpOnly; SameSite=Lax/);
    expect(sc).toMatch(/csrf_token_[0-9a-f]{64}=[A-Za-z0-9+/=]{44}; Path=\/; Max-Age=31536000; HttpOnly; SameSite=Lax/);
    expect(jar.get('csrf_token_')).not.toBe(before);
    // 3xx (browser login) carries the session cookie, rotated on every login.
    const b = new Browser();
    let res = await b.get(`${svc.publicUrl}/self-service/login/browser`);
    expect(res.headers.getSetCookie().join()).toMatch(/csrf_token_/);
    let flow = (await b.flowJson(`${svc.publicUrl}/self-service/login/flows?id=${flowIdOf(res.headers.get('location'))}`)).data;
    res = await b.post(flow.ui.action, { method: 'password', identifier: email, password: PASSWORD, csrf_token: csrfOf(flow) });
    expect(res.status).toBe(303);
    expect(res.headers.getSetCookie().join()).toMatch(/ory_kratos_session=/);
    const first = b.jar.get('ory_kratos_session');
    res = await b.get(`${svc.publicUrl}/self-service/login/browser?refresh=true`);
    flow = (await b.flowJson(`${svc.publicUrl}/self-service/login/flows?id=${flowIdOf(res.headers.get('location'))}`)).data;
    expect(flow.refresh).toBe(true);
    expect(flow.ui.messages[0].id).toBe(1010003);
    res = await b.post(flow.ui.action, { method: 'password', identifier: email, password: PASSWORD, csrf_token: csrfOf(flow) });
    expect(res.status).toBe(303);
    expect(b.jar.get('ory_kratos_session')).not.toBe(first);
  });

  it('14. return_to is validated at creation and at completion; an empty allow-list rejects app URLs', async () => {
    let r = await call(undefined, api.frontend.createBrowserLoginFlow({ returnTo: 'https://evil.example/x' }));
    expect(r.status).toBe(400);
    expect(r.data.error).toEqual({
      id: 'self_service_flow_return_to_forbidden',
      code: 400,
      status: 'Bad Request',
      reason: 'Requested return_to URL "https://evil.example/x" is not allowed.',
      message: 'The request was malformed or contained invalid parameters',
    });
    for (const p of ['registration', 'recovery', 'verification', 'settings']) {
      const res = await fetch(`${svc.publicUrl}/self-service/${p}/browser?return_to=${encodeURIComponent('https://evil.example/x')}`, {
        headers: { accept: 'application/json' },
      });
      expect(res.status, p).toBe(400);
      expect(((await res.json()) as any).error.id).toBe('self_service_flow_return_to_forbidden');
    }
    // Browser variant: 303 to the error UI, the error is readable through getFlowError.
    const b = new Browser();
    const res = await b.get(`${svc.publicUrl}/self-service/login/browser?return_to=${encodeURIComponent('https://evil.example/x')}`);
    expect(res.status).toBe(303);
    const loc = new URL(res.headers.get('location')!);
    expect(`${loc.origin}${loc.pathname}`).toBe(`${APP}/error`);
    const fe = await call(undefined, api.frontend.getFlowError({ id: loc.searchParams.get('id')! }));
    expect(fe.status).toBe(200);
    expect(fe.data.error.id).toBe('self_service_flow_return_to_forbidden');

    // Completion re-validates: the allow-list changes after creation → default return URL.
    const email = await register();
    const jar = new CookieJar();
    r = await call(jar, api.frontend.createBrowserLoginFlow({ cookie: jar.header(), returnTo: `${APP}/dashboard` }));
    const saved = svc.config.selfservice.allowed_return_urls;
    svc.config.selfservice.allowed_return_urls = [];
    try {
      r = await call(
        jar,
        api.frontend.updateLoginFlow({
          flow: r.data.id,
          cookie: jar.header(),
          updateLoginFlowBody: { method: 'password', identifier: email, password: PASSWORD, csrf_token: csrfOf(r.data) },
        }),
      );
      expect(r.status).toBe(200);
      expect(r.data.continue_with[0].redirect_browser_to).toBe(`${APP}/`);
      // Empty allow-list: every app URL is rejected at creation.
      r = await call(undefined, api.frontend.createBrowserLoginFlow({ returnTo: `${APP}/dashboard` }));
      expect(r.status).toBe(400);
      expect(r.data.error.id).toBe('self_service_flow_return_to_forbidden');
    } finally {
      svc.config.selfservice.allowed_return_urls = saved;
    }
  });

  it('15. organization_id: null on login/registration (v1.3.1: not on settings); ui.messages omitted when empty, node messages always []', async () => {
    const email = await register();
    const jar = new CookieJar();
    const l = await call(jar, api.frontend.createBrowserLoginFlow({ cookie: jar.header() }));
    const g = await call(jar, api.frontend.createBrowserRegistrationFlow({}, { headers: { cookie: jar.header() } }));
    const rec = await call(jar, api.frontend.createBrowserRecoveryFlow({}, { headers: { cookie: jar.header() } }));
    await login(jar, email);
    const s = await call(jar, api.frontend.createBrowserSettingsFlow({ cookie: jar.header() }));
    for (const f of [l.data, g.data, s.data]) {
      if (f !== s.data) expect(f).toHaveProperty('organization_id', null);
      expect('messages' in f.ui).toBe(false);
      for (const x of f.ui.nodes) {
        expect(x.messages).toEqual([]);
        expect(x.meta).toBeDefined();
        expect(x.type).toBe(x.attributes.node_type);
      }
    }
    expect('organization_id' in rec.data).toBe(false);
    expect('organization_id' in s.data).toBe(false);
    expect(Object.keys(l.data)).toEqual([
      'id',
      'organization_id',
      'type',
      'expires_at',
      'issued_at',
      'request_url',
      'ui',
      'created_at',
      'updated_at',
      'refresh',
      'requested_aal',
      'state',
    ]);
    expect(s.data.ui.nodes.map((x: any) => `${x.attributes.name}[${x.group}]`)).toEqual([
      'csrf_token[default]',
      'traits.email[profile]',
      'traits.name[profile]',
      'traits.avatarRemoteId[profile]',
      'traits.loginService[profile]',
      'method[profile]',
      'password[password]',
      'method[password]',
    ]);
  });
});

describe('contract §20 with short lifespans', () => {
  let short: Svc;
  let api2: ReturnType<typeof sdk>;
  const clock = createTestClock();
  beforeAll(async () => {
    short = await startTestIdentity({
      clock,
      config: {
        selfservice: {
          flows: {
            login: { lifespan: '1200ms' },
            registration: { lifespan: '1200ms' },
            settings: { lifespan: '1200ms', privileged_session_max_age: '1ms' },
            recovery: { lifespan: '1200ms' },
            verification: { lifespan: '1200ms' },
          },
        },
      },
    });
    api2 = sdk(short.publicUrl, short.adminUrl);
  });
  afterAll(async () => {
    await short.close();
  });

  it('6. expired submit: login/registration/settings → 410 with use_flow_id; recovery/verification → 303 to the new flow', async () => {
    const email = `exp-${Date.now()}@example.com`;
    await call(
      undefined,
      api2.identity.createIdentity({
        createIdentityBody: { schema_id: 'default', traits: { email }, credentials: { password: { config: { password: PASSWORD } } } },
      }),
    );
    const jar = new CookieJar();
    let r = await call(jar, api2.frontend.createBrowserLoginFlow({ cookie: jar.header() }));
    r = await call(
      jar,
      api2.frontend.updateLoginFlow({
        flow: r.data.id,
        cookie: jar.header(),
        updateLoginFlowBody: { method: 'password', identifier: email, password: PASSWORD, csrf_token: csrfOf(r.data) },
      }),
    );
    const settings = await call(jar, api2.frontend.createBrowserSettingsFlow({ cookie: jar.header() }));
    const anon = new CookieJar();
    const login = await call(anon, api2.frontend.createBrowserLoginFlow({ cookie: anon.header() }));
    const reg = await call(anon, api2.frontend.createBrowserRegistrationFlow({ returnTo: `${APP}/after` }, { headers: { cookie: anon.header() } }));
    const rec = await call(anon, api2.frontend.createBrowserRecoveryFlow({}, { headers: { cookie: anon.header() } }));
    const ver = await call(anon, api2.frontend.createBrowserVerificationFlow({}, { headers: { cookie: anon.header() } }));
    clock.advance(1300);

    r = await call(
      anon,
      api2.frontend.updateLoginFlow({
        flow: login.data.id,
        cookie: anon.header(),
        updateLoginFlowBody: { method: 'password', identifier: email, password: PASSWORD, csrf_token: csrfOf(login.data) },
      }),
    );
    expect(r.status).toBe(410);
    expect(r.data.error).toMatchObject({ id: 'self_service_flow_expired', code: 410, status: 'Gone', message: 'self-service flow expired' });
    expect(r.data.use_flow_id).not.toBe(login.data.id);
    expect(typeof r.data.since).toBe('number');
    expect(r.data.expired_at).toBe(login.data.expires_at);
    let nf = await call(anon, api2.frontend.getLoginFlow({ id: r.data.use_flow_id, cookie: anon.header() }));
    expect(nf.status).toBe(200);
    expect(nf.data.ui.messages[0].id).toBe(4010001);
    expect(nf.data.ui.messages[0].text).toMatch(/^The login flow expired \d+\.\d\d minutes ago, please try again\.$/);

    r = await call(
      anon,
      api2.frontend.updateRegistrationFlow({
        flow: reg.data.id,
        cookie: anon.header(),
        updateRegistrationFlowBody: { method: 'profile', traits: { email: 'x@example.com' }, csrf_token: csrfOf(reg.data) } as any,
      }),
    );
    expect(r.status).toBe(410);
    nf = await call(anon, api2.frontend.getRegistrationFlow({ id: r.data.use_flow_id, cookie: anon.header() }));
    expect(nf.data.ui.messages[0].id).toBe(4040001);
    expect(nf.data.return_to).toBe(`${APP}/after`);

    r = await call(
      jar,
      api2.frontend.updateSettingsFlow({
        flow: settings.data.id,
        cookie: jar.header(),
        updateSettingsFlowBody: { method: 'profile', traits: { email }, csrf_token: csrfOf(settings.data) },
      }),
    );
    expect(r.status).toBe(410);
    nf = await call(jar, api2.frontend.getSettingsFlow({ id: r.data.use_flow_id, cookie: jar.header() }));
    expect(nf.data.ui.messages[0].id).toBe(4050001);

    // Recovery/verification: the JSON caller gets a 303 to the new flow, axios follows it → 200 new flow.
    r = await call(
      anon,
      api2.frontend.updateRecoveryFlow({
        flow: rec.data.id,
        cookie: anon.header(),
        updateRecoveryFlowBody: { method: 'code', email, csrf_token: csrfOf(rec.data) },
      }),
    );
    expect(r.status).toBe(200);
    expect(r.data.id).not.toBe(rec.data.id);
    expect(r.data.ui.messages[0].id).toBe(4060005);
    const raw = await fetch(`${short.publicUrl}/self-service/verification?flow=${ver.data.id}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { accept: 'application/json', 'content-type': 'application/json', cookie: anon.header() },
      body: JSON.stringify({ method: 'code', email, csrf_token: csrfOf(ver.data) }),
    });
    expect(raw.status).toBe(303);
    expect(raw.headers.get('location')).toMatch(new RegExp(`^${short.publicUrl}/self-service/verification/flows\\?id=`));
    // v1.3.1 gives the new verification flow a new anti-CSRF token (verification/error.go RegenerateToken):
    // the new flow reads with the new cookie (a follow carrying the old one would be refused).
    expect(raw.headers.getSetCookie().some((c) => c.startsWith('csrf_token_'))).toBe(true);
    const oldCookies = anon.header();
    anon.absorb(raw.headers.getSetCookie());
    r = await call(anon, api2.frontend.getVerificationFlow({ id: new URL(raw.headers.get('location')!).searchParams.get('id')!, cookie: anon.header() }));
    expect(r.status).toBe(200);
    expect(r.data.ui.messages[0].id).toBe(4070005);

    // Expired GET: 410 with details.redirect_to (read with the cookie the registration flow was made with).
    r = await call(undefined, api2.frontend.getRegistrationFlow({ id: reg.data.id, cookie: oldCookies }));
    expect(r.status).toBe(410);
    expect(r.data.error.details).toEqual({
      redirect_to: `${short.publicUrl}/self-service/registration/browser?return_to=${encodeURIComponent(`${APP}/after`)}`,
      return_to: `${APP}/after`,
    });
  });

  it('12. privileged session: password and (v1.3.1) any profile change of an identity with a verifiable address; 403 carries redirect_browser_to', async () => {
    const email = `priv-${Date.now()}@example.com`;
    await call(
      undefined,
      api2.identity.createIdentity({
        createIdentityBody: { schema_id: 'default', traits: { email }, credentials: { password: { config: { password: PASSWORD } } } },
      }),
    );
    const jar = new CookieJar();
    let r = await call(jar, api2.frontend.createBrowserLoginFlow({ cookie: jar.header() }));
    r = await call(
      jar,
      api2.frontend.updateLoginFlow({
        flow: r.data.id,
        cookie: jar.header(),
        updateLoginFlowBody: { method: 'password', identifier: email, password: PASSWORD, csrf_token: csrfOf(r.data) },
      }),
    );
    expect(r.status).toBe(200);
    clock.advance(5); // past privileged_session_max_age (1ms)
    const s = await call(jar, api2.frontend.createBrowserSettingsFlow({ cookie: jar.header() }));
    const id = s.data.id;
    r = await call(
      jar,
      api2.frontend.updateSettingsFlow({
        flow: id,
        cookie: jar.header(),
        updateSettingsFlowBody: { method: 'profile', traits: { email, name: 'Only name' }, csrf_token: csrfOf(s.data) },
      }),
    );
    // v1.3.1 compares the verifiable addresses with reflect.DeepEqual, which a reloaded address never
    // passes: a name alone needs a privileged session too.
    expect(r.status).toBe(403);
    const expected = `${short.publicUrl}/self-service/login/browser?refresh=true&return_to=${encodeURIComponent(`${short.publicUrl}/self-service/settings?flow=${id}`)}`;
    expect(r.data.redirect_browser_to).toBe(expected);
    r = await call(
      jar,
      api2.frontend.updateSettingsFlow({
        flow: id,
        cookie: jar.header(),
        updateSettingsFlowBody: { method: 'profile', traits: { email: `new-${email}` }, csrf_token: csrfOf(s.data) },
      }),
    );
    expect(r.status).toBe(403);
    expect(r.data.error).toMatchObject({
      id: 'session_refresh_required',
      code: 403,
      reason: 'The login session is too old and thus not allowed to update these fields. Please re-authenticate.',
    });
    expect(r.data.redirect_browser_to).toBe(expected);
    r = await call(
      jar,
      api2.frontend.updateSettingsFlow({
        flow: id,
        cookie: jar.header(),
        updateSettingsFlowBody: { method: 'password', password: 'brand new passphrase 9', csrf_token: csrfOf(s.data) },
      }),
    );
    expect(r.status).toBe(403);
    expect(r.data.redirect_browser_to).toBe(expected);
    // Browser variant: 303 there, the change is parked and applied after the refresh login.
    const b = new Browser();
    b.jar = jar;
    const res = await b.post(`${short.publicUrl}/self-service/settings?flow=${id}`, {
      method: 'password',
      password: 'brand new passphrase 9',
      csrf_token: csrfOf(s.data),
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(expected);
    expect(b.jar.get('ory_kratos_continuity')).toBeTruthy();
  });
});
