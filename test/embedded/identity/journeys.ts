// The issue's bar as two reusable journeys: registration → verification mail → code → login →
// settings password change → logout → recovery → new password; once through @ory/client, once with
// plain browser form posts and redirects.
import { expect } from 'vitest';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { APP, Browser, call, codeIn, CookieJar, csrfOf, flowIdOf, latestMail, node, sdk } from './helpers.ts';

export interface Env {
  publicUrl: string;
  adminUrl: string;
  apiKey?: string;
}

export async function sdkJourney(env: Env, email: string): Promise<void> {
  const { frontend, identity } = sdk(env.publicUrl, env.adminUrl, env.apiKey);
  const jar = new CookieJar();

  // Registration, profile_first: step 1 answers 400 with the credential screen.
  let r = await call(jar, frontend.createBrowserRegistrationFlow({ returnTo: `${APP}/welcome` }, { headers: { cookie: jar.header() } }));
  expect(r.status).toBe(200);
  const regId = r.data.id;
  r = await call(
    jar,
    frontend.updateRegistrationFlow({
      flow: regId,
      cookie: jar.header(),
      updateRegistrationFlowBody: { method: 'profile', csrf_token: csrfOf(r.data), traits: { email, name: 'Ada' } } as any,
    }),
  );
  expect(r.status).toBe(400);
  expect(r.data.ui.messages[0].id).toBe(1040009);
  r = await call(
    jar,
    frontend.updateRegistrationFlow({
      flow: regId,
      cookie: jar.header(),
      updateRegistrationFlowBody: { method: 'password', csrf_token: csrfOf(r.data), traits: { email, name: 'Ada' }, password: 'correct horse battery staple' },
    }),
  );
  expect(r.status).toBe(200);
  expect(r.data.identity.traits.email).toBe(email);
  expect(r.data.session).toBeUndefined();
  expect(jar.get('ory_kratos_session')).toBeUndefined();
  const showVerification = r.data.continue_with.find((c: any) => c.action === 'show_verification_ui');
  expect(showVerification.flow.verifiable_address).toBe(email);
  // v1.3.1 lists redirect_browser_to first, then the verification hook's show_verification_ui.
  expect(r.data.continue_with[0]).toEqual({ action: 'redirect_browser_to', redirect_browser_to: `${APP}/welcome` });
  expect(r.data.continue_with.at(-1)).toBe(showVerification);
  const identityId = r.data.identity.id;

  // Verification mail → code.
  const mail = await latestMail(env.adminUrl, email, env.apiKey);
  expect(mail.template_type).toBe('verification_code_valid');
  r = await call(jar, frontend.getVerificationFlow({ id: showVerification.flow.id, cookie: jar.header() }));
  expect(r.status).toBe(200);
  expect(r.data.state).toBe('sent_email');
  r = await call(
    jar,
    frontend.updateVerificationFlow({
      flow: r.data.id,
      cookie: jar.header(),
      updateVerificationFlowBody: { method: 'code', code: codeIn(mail.body), csrf_token: csrfOf(r.data) },
    }),
  );
  expect(r.status).toBe(200);
  expect(r.data.state).toBe('passed_challenge');
  expect(r.data.ui.messages[0]).toEqual({ id: 1080002, text: 'You successfully verified your email address.', type: 'success' });
  const admin = await call(undefined, identity.getIdentity({ id: identityId }));
  expect(admin.data.verifiable_addresses[0]).toMatchObject({ verified: true, status: 'completed' });

  // Login.
  r = await call(jar, frontend.createBrowserLoginFlow({ cookie: jar.header(), returnTo: `${APP}/dashboard` }));
  expect(r.status).toBe(200);
  r = await call(
    jar,
    frontend.updateLoginFlow({
      flow: r.data.id,
      cookie: jar.header(),
      updateLoginFlowBody: { method: 'password', identifier: email, password: 'correct horse battery staple', csrf_token: csrfOf(r.data) },
    }),
  );
  expect(r.status).toBe(200);
  expect(r.data.session.identity.id).toBe(identityId);
  expect(r.data.continue_with).toEqual([{ action: 'redirect_browser_to', redirect_browser_to: `${APP}/dashboard` }]);
  expect(jar.get('ory_kratos_session')).toBeTruthy();

  // Whoami + tokenizer.
  r = await call(jar, frontend.toSession({ cookie: jar.header(), tokenizeAs: 'authorization' }));
  expect(r.status).toBe(200);
  expect(r.headers['x-kratos-authenticated-identity-id']).toBe(identityId);
  const jwks = createRemoteJWKSet(new URL(`${env.publicUrl}/.well-known/jwks.json`));
  const { payload, protectedHeader } = await jwtVerify(r.data.tokenized, jwks, { issuer: `${env.publicUrl}/`, audience: 'accounts-backend' });
  expect(protectedHeader.alg).toBe('ES256');
  expect(protectedHeader.kid).toBeTruthy();
  expect(payload).toMatchObject({ sub: identityId, sid: r.data.id, email });
  expect(payload.exp! - payload.iat!).toBe(1680);

  // Settings: password change.
  r = await call(jar, frontend.createBrowserSettingsFlow({ cookie: jar.header() }));
  expect(r.status).toBe(200);
  r = await call(
    jar,
    frontend.updateSettingsFlow({
      flow: r.data.id,
      cookie: jar.header(),
      updateSettingsFlowBody: { method: 'password', password: 'another long passphrase 2', csrf_token: csrfOf(r.data) },
    }),
  );
  expect(r.status).toBe(200);
  expect(r.data.state).toBe('success');
  expect(r.data.ui.messages).toEqual([{ id: 1050001, text: 'Your changes have been saved!', type: 'success' }]);

  // Logout.
  r = await call(jar, frontend.createBrowserLogoutFlow({ cookie: jar.header() }));
  expect(r.status).toBe(200);
  r = await call(jar, frontend.updateLogoutFlow({ token: r.data.logout_token, cookie: jar.header() }));
  expect(r.status).toBe(204);
  expect(jar.get('ory_kratos_session')).toBeUndefined();
  r = await call(jar, frontend.toSession({ cookie: jar.header() }));
  expect(r.status).toBe(401);

  // Recovery by code → 422 to the settings UI → new password.
  r = await call(jar, frontend.createBrowserRecoveryFlow({}, { headers: { cookie: jar.header() } }));
  expect(r.status).toBe(200);
  const recId = r.data.id;
  r = await call(
    jar,
    frontend.updateRecoveryFlow({ flow: recId, cookie: jar.header(), updateRecoveryFlowBody: { method: 'code', email, csrf_token: csrfOf(r.data) } }),
  );
  expect(r.status).toBe(200);
  expect(r.data.state).toBe('sent_email');
  const rmail = await latestMail(env.adminUrl, email, env.apiKey);
  expect(rmail.template_type).toBe('recovery_code_valid');
  r = await call(
    jar,
    frontend.updateRecoveryFlow({
      flow: recId,
      cookie: jar.header(),
      updateRecoveryFlowBody: { method: 'code', code: codeIn(rmail.body), csrf_token: csrfOf(r.data) },
    }),
  );
  expect(r.status).toBe(422);
  expect(r.data.error.id).toBe('browser_location_change_required');
  const settingsId = flowIdOf(r.data.redirect_browser_to);
  expect(r.data.redirect_browser_to.startsWith(`${APP}/profile-settings?flow=`)).toBe(true);
  expect(jar.get('ory_kratos_session')).toBeTruthy();
  r = await call(jar, frontend.getSettingsFlow({ id: settingsId, cookie: jar.header() }));
  expect(r.status).toBe(200);
  expect(r.data.ui.messages[0].id).toBe(1060001);
  r = await call(
    jar,
    frontend.updateSettingsFlow({
      flow: settingsId,
      cookie: jar.header(),
      updateSettingsFlowBody: { method: 'password', password: 'recovered passphrase 3', csrf_token: csrfOf(r.data) },
    }),
  );
  expect(r.status).toBe(200);
  expect(r.data.state).toBe('success');

  // The new password works, the old one does not.
  const jar2 = new CookieJar();
  r = await call(jar2, frontend.createBrowserLoginFlow({ cookie: jar2.header() }));
  const loginId = r.data.id;
  r = await call(
    jar2,
    frontend.updateLoginFlow({
      flow: loginId,
      cookie: jar2.header(),
      updateLoginFlowBody: { method: 'password', identifier: email, password: 'another long passphrase 2', csrf_token: csrfOf(r.data) },
    }),
  );
  expect(r.status).toBe(400);
  expect(r.data.ui.messages[0].id).toBe(4000006);
  r = await call(
    jar2,
    frontend.updateLoginFlow({
      flow: loginId,
      cookie: jar2.header(),
      updateLoginFlowBody: { method: 'password', identifier: email, password: 'recovered passphrase 3', csrf_token: csrfOf(r.data) },
    }),
  );
  expect(r.status).toBe(200);
  expect(r.data.session.identity.id).toBe(identityId);
}

export async function browserJourney(env: Env, email: string): Promise<void> {
  const b = new Browser();
  const P = env.publicUrl;

  // Registration: navigation → 303 to the app's page; the page reads the flow; the form posts to ui.action.
  let res = await b.get(`${P}/self-service/registration/browser`);
  expect(res.status).toBe(303);
  expect(res.headers.get('location')!.startsWith(`${APP}/sign-up?flow=`)).toBe(true);
  const regId = flowIdOf(res.headers.get('location'));
  let flow = (await b.flowJson(`${P}/self-service/registration/flows?id=${regId}`)).data;
  res = await b.post(flow.ui.action, { method: 'profile', csrf_token: csrfOf(flow), 'traits.email': email, 'traits.name': 'Bea' });
  expect(res.status).toBe(303);
  expect(res.headers.get('location')).toBe(`${APP}/sign-up?flow=${regId}`);
  flow = (await b.flowJson(`${P}/self-service/registration/flows?id=${regId}`)).data;
  expect(node(flow, 'traits.email').attributes).toMatchObject({ type: 'hidden', value: email });
  res = await b.post(flow.ui.action, {
    method: 'password',
    csrf_token: csrfOf(flow),
    'traits.email': email,
    'traits.name': 'Bea',
    password: 'correct horse battery staple',
  });
  expect(res.status).toBe(303);
  // show_verification_ui hook: the browser goes to the verification page.
  expect(res.headers.get('location')!.startsWith(`${APP}/sign-up/verification?flow=`)).toBe(true);
  const verId = flowIdOf(res.headers.get('location'));

  // The e-mail link fills the code and sends the browser to the page, where the user confirms.
  const mail = await latestMail(env.adminUrl, email, env.apiKey);
  const link = /(http\S+verification\?flow=\S+)/.exec(mail.body)![1]!;
  res = await b.get(link);
  expect(res.status).toBe(303);
  expect(res.headers.get('location')).toBe(`${APP}/sign-up/verification?flow=${verId}`);
  flow = (await b.flowJson(`${P}/self-service/verification/flows?id=${verId}`)).data;
  expect(node(flow, 'code').attributes.value).toBe(codeIn(mail.body));
  res = await b.post(flow.ui.action, { method: 'code', code: node(flow, 'code').attributes.value, csrf_token: csrfOf(flow) });
  expect(res.status).toBe(303);
  flow = (await b.flowJson(`${P}/self-service/verification/flows?id=${verId}`)).data;
  expect(flow.state).toBe('passed_challenge');

  // Login.
  res = await b.get(`${P}/self-service/login/browser?return_to=${encodeURIComponent(`${APP}/dashboard`)}`);
  expect(res.status).toBe(303);
  const loginId = flowIdOf(res.headers.get('location'));
  flow = (await b.flowJson(`${P}/self-service/login/flows?id=${loginId}`)).data;
  res = await b.post(flow.ui.action, { method: 'password', identifier: email, password: 'wrong password here', csrf_token: csrfOf(flow) });
  expect(res.status).toBe(303);
  expect(res.headers.get('location')).toBe(`${APP}/sign-in?flow=${loginId}`);
  flow = (await b.flowJson(`${P}/self-service/login/flows?id=${loginId}`)).data;
  expect(flow.ui.messages[0].id).toBe(4000006);
  res = await b.post(flow.ui.action, { method: 'password', identifier: email, password: 'correct horse battery staple', csrf_token: csrfOf(flow) });
  expect(res.status).toBe(303);
  expect(res.headers.get('location')).toBe(`${APP}/dashboard`);
  expect(b.jar.get('ory_kratos_session')).toBeTruthy();

  // Settings password change → back to the settings UI.
  res = await b.get(`${P}/self-service/settings/browser`);
  expect(res.status).toBe(303);
  const setId = flowIdOf(res.headers.get('location'));
  flow = (await b.flowJson(`${P}/self-service/settings/flows?id=${setId}`)).data;
  res = await b.post(flow.ui.action, { method: 'password', password: 'another long passphrase 2', csrf_token: csrfOf(flow) });
  expect(res.status).toBe(303);
  expect(res.headers.get('location')).toBe(`${APP}/profile-settings?flow=${setId}`);
  flow = (await b.flowJson(`${P}/self-service/settings/flows?id=${setId}`)).data;
  expect(flow.state).toBe('success');

  // Logout.
  const lo = (await b.flowJson(`${P}/self-service/logout/browser`)).data;
  res = await b.get(lo.logout_url);
  expect(res.status).toBe(303);
  expect(res.headers.get('location')).toBe(`${APP}/`);
  expect(b.jar.get('ory_kratos_session')).toBeUndefined();

  // Recovery by code.
  res = await b.get(`${P}/self-service/recovery/browser`);
  expect(res.status).toBe(303);
  const recId = flowIdOf(res.headers.get('location'));
  flow = (await b.flowJson(`${P}/self-service/recovery/flows?id=${recId}`)).data;
  res = await b.post(flow.ui.action, { method: 'code', email, csrf_token: csrfOf(flow) });
  expect(res.status).toBe(303);
  const rmail = await latestMail(env.adminUrl, email, env.apiKey);
  flow = (await b.flowJson(`${P}/self-service/recovery/flows?id=${recId}`)).data;
  res = await b.post(flow.ui.action, { method: 'code', code: codeIn(rmail.body), csrf_token: csrfOf(flow) });
  expect(res.status).toBe(303);
  expect(res.headers.get('location')!.startsWith(`${APP}/profile-settings?flow=`)).toBe(true);
  const recSettings = flowIdOf(res.headers.get('location'));
  flow = (await b.flowJson(`${P}/self-service/settings/flows?id=${recSettings}`)).data;
  expect(flow.ui.messages[0].id).toBe(1060001);
  res = await b.post(flow.ui.action, { method: 'password', password: 'recovered passphrase 3', csrf_token: csrfOf(flow) });
  expect(res.status).toBe(303);

  // New password signs in.
  const b2 = new Browser();
  res = await b2.get(`${P}/self-service/login/browser`);
  const l2 = flowIdOf(res.headers.get('location'));
  flow = (await b2.flowJson(`${P}/self-service/login/flows?id=${l2}`)).data;
  res = await b2.post(flow.ui.action, { method: 'password', identifier: email, password: 'recovered passphrase 3', csrf_token: csrfOf(flow) });
  expect(res.status).toBe(303);
  expect(res.headers.get('location')).toBe(`${APP}/`);
  expect(b2.jar.get('ory_kratos_session')).toBeTruthy();
}
