// Password policy, unified registration, link methods, tokenizer templates, SMTP delivery and the
// settings continuity after a refresh login.
import { createServer, type Server } from 'node:net';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { APP, Browser, call, CookieJar, csrfOf, flowIdOf, latestMail, node, sdk, startTestIdentity } from './helpers.ts';
import { createTestClock } from '../../../embedded/clock.ts';

type Svc = Awaited<ReturnType<typeof startTestIdentity>>;

describe('password policy', () => {
  let svc: Svc;
  let api: ReturnType<typeof sdk>;
  beforeAll(async () => {
    svc = await startTestIdentity();
    api = sdk(svc.publicUrl, svc.adminUrl);
  });
  afterAll(async () => {
    await svc.close();
  });

  it('rejects short, long, identifier-like and breached passwords with the catalogue ids', async () => {
    const jar = new CookieJar();
    let r = await call(jar, api.frontend.createBrowserRegistrationFlow({}, { headers: { cookie: jar.header() } }));
    const id = r.data.id;
    const cases: [string, number, string][] = [
      ['short', 4000032, 'The password must be at least 8 characters long, but got 5.'],
      ['x'.repeat(73), 4000033, 'The password must be at most 72 characters long, but got 73.'],
      ['policy.user@example.com1', 4000031, 'The password can not be used because it is too similar to the identifier.'],
      ['password123', 4000034, 'The password has been found in data breaches and must no longer be used.'],
      ['qwertyuiop', 4000034, 'The password has been found in data breaches and must no longer be used.'],
    ];
    for (const [password, msgId, text] of cases) {
      r = await call(
        jar,
        api.frontend.updateRegistrationFlow({
          flow: id,
          cookie: jar.header(),
          updateRegistrationFlowBody: { method: 'password', traits: { email: 'policy.user@example.com' }, password, csrf_token: csrfOf(r.data) },
        }),
      );
      expect(r.status, password).toBe(400);
      expect(node(r.data, 'password').messages[0], password).toMatchObject({ id: msgId, text, type: 'error' });
      expect(node(r.data, 'password').attributes.value).toBeUndefined();
    }
    r = await call(
      jar,
      api.frontend.updateRegistrationFlow({
        flow: id,
        cookie: jar.header(),
        updateRegistrationFlowBody: {
          method: 'password',
          traits: { email: 'policy.user@example.com' },
          password: 'a genuinely unusual phrase',
          csrf_token: csrfOf(r.data),
        },
      }),
    );
    expect(r.status).toBe(200);
    // Duplicate identifier → 4000007.
    const j2 = new CookieJar();
    r = await call(j2, api.frontend.createBrowserRegistrationFlow({}, { headers: { cookie: j2.header() } }));
    r = await call(
      j2,
      api.frontend.updateRegistrationFlow({
        flow: r.data.id,
        cookie: j2.header(),
        updateRegistrationFlowBody: {
          method: 'password',
          traits: { email: 'POLICY.user@example.com' },
          password: 'a genuinely unusual phrase',
          csrf_token: csrfOf(r.data),
        },
      }),
    );
    expect(r.status).toBe(400);
    expect(r.data.ui.messages).toEqual([
      { id: 4000007, text: 'An account with the same identifier (email, phone, username, ...) exists already.', type: 'error' },
    ]);
  });

  it('settings: new password equal to the old one → 4000039', async () => {
    await call(
      undefined,
      api.identity.createIdentity({
        createIdentityBody: {
          schema_id: 'default',
          traits: { email: 'same@example.com' },
          credentials: { password: { config: { password: 'the same old phrase' } } },
        },
      }),
    );
    const jar = new CookieJar();
    let r = await call(jar, api.frontend.createBrowserLoginFlow({ cookie: jar.header() }));
    await call(
      jar,
      api.frontend.updateLoginFlow({
        flow: r.data.id,
        cookie: jar.header(),
        updateLoginFlowBody: { method: 'password', identifier: 'same@example.com', password: 'the same old phrase', csrf_token: csrfOf(r.data) },
      }),
    );
    r = await call(jar, api.frontend.createBrowserSettingsFlow({ cookie: jar.header() }));
    r = await call(
      jar,
      api.frontend.updateSettingsFlow({
        flow: r.data.id,
        cookie: jar.header(),
        updateSettingsFlowBody: { method: 'password', password: 'the same old phrase', csrf_token: csrfOf(r.data) },
      }),
    );
    expect(r.status).toBe(400);
    expect(node(r.data, 'password').messages[0].id).toBe(4000039);
  });
});

describe('unified registration, link methods', () => {
  let svc: Svc;
  let api: ReturnType<typeof sdk>;
  beforeAll(async () => {
    svc = await startTestIdentity({
      config: { selfservice: { flows: { registration: { style: 'unified' }, recovery: { use: 'link' }, verification: { use: 'link' } } } },
    });
    api = sdk(svc.publicUrl, svc.adminUrl);
  });
  afterAll(async () => {
    await svc.close();
  });

  it('unified: traits and password in one screen, in Kratos order', async () => {
    const jar = new CookieJar();
    let r = await call(jar, api.frontend.createBrowserRegistrationFlow({}, { headers: { cookie: jar.header() } }));
    // v1.3.1 (enable_legacy_one_step): the traits are in the password group.
    expect(r.data.ui.nodes.map((x: any) => `${x.attributes.name}[${x.group}]`)).toEqual([
      'csrf_token[default]',
      'traits.email[password]',
      'password[password]',
      'traits.name[password]',
      'traits.avatarRemoteId[password]',
      'traits.loginService[password]',
      'method[password]',
    ]);
    expect(node(r.data, 'method').meta.label).toEqual({ id: 1040001, text: 'Sign up', type: 'info' });
    r = await call(
      jar,
      api.frontend.updateRegistrationFlow({
        flow: r.data.id,
        cookie: jar.header(),
        updateRegistrationFlowBody: {
          method: 'password',
          traits: { email: 'linkuser@example.com', loginService: 'EMAIL_PASSWORD' },
          password: 'a genuinely unusual phrase',
          csrf_token: csrfOf(r.data),
        },
      }),
    );
    expect(r.status).toBe(200);
  });

  it('verification and recovery by link', async () => {
    const mail = await latestMail(svc.adminUrl, 'linkuser@example.com');
    expect(mail.template_type).toBe('verification_valid');
    const b = new Browser();
    const link = /(http\S+token=\w+)/.exec(mail.body)![1]!;
    let res = await b.get(link);
    expect(res.status).toBe(303);
    const vflow = (await b.flowJson(`${svc.publicUrl}/self-service/verification/flows?id=${flowIdOf(res.headers.get('location'))}`)).data;
    expect(vflow.state).toBe('passed_challenge');
    expect(vflow.ui).toMatchObject({ method: 'GET', action: `${APP}/` });
    // v1.3.1 keeps the CSRF node before the continue link.
    expect(vflow.ui.nodes[0].attributes.name).toBe('csrf_token');
    expect(vflow.ui.nodes.slice(1)).toEqual([
      {
        type: 'a',
        group: 'link',
        attributes: { href: `${APP}/`, title: { id: 1070009, text: 'Continue', type: 'info' }, id: 'continue', node_type: 'a' },
        messages: [],
        meta: { label: { id: 1070009, text: 'Continue', type: 'info' } },
      },
    ]);

    res = await b.get(`${svc.publicUrl}/self-service/recovery/browser`);
    const rid = flowIdOf(res.headers.get('location'));
    let flow = (await b.flowJson(`${svc.publicUrl}/self-service/recovery/flows?id=${rid}`)).data;
    expect(flow.active).toBe('link');
    res = await b.post(flow.ui.action, { method: 'link', email: 'linkuser@example.com', csrf_token: csrfOf(flow) });
    flow = (await b.flowJson(`${svc.publicUrl}/self-service/recovery/flows?id=${rid}`)).data;
    expect(flow.state).toBe('sent_email');
    expect(flow.ui.messages[0].id).toBe(1060002);
    const rmail = await latestMail(svc.adminUrl, 'linkuser@example.com');
    expect(rmail.template_type).toBe('recovery_valid');
    res = await b.get(/(http\S+token=\w+)/.exec(rmail.body)![1]!);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(new RegExp(`^${APP}/profile-settings\\?flow=`));
    expect(b.jar.get('ory_kratos_session')).toBeTruthy();
  });
});

describe('tokenizer and sessions', () => {
  let svc: Svc;
  let api: ReturnType<typeof sdk>;
  beforeAll(async () => {
    svc = await startTestIdentity();
    api = sdk(svc.publicUrl, svc.adminUrl);
  });
  afterAll(async () => {
    await svc.close();
  });

  it('authentication template, unknown template, JWKS, listing and revoking my other sessions', async () => {
    await call(
      undefined,
      api.identity.createIdentity({
        createIdentityBody: {
          schema_id: 'default',
          traits: { email: 'tok@example.com' },
          credentials: { password: { config: { password: 'token me please' } } },
        },
      }),
    );
    const jar = new CookieJar();
    let r = await call(jar, api.frontend.createBrowserLoginFlow({ cookie: jar.header() }));
    r = await call(
      jar,
      api.frontend.updateLoginFlow({
        flow: r.data.id,
        cookie: jar.header(),
        updateLoginFlowBody: { method: 'password', identifier: 'tok@example.com', password: 'token me please', csrf_token: csrfOf(r.data) },
      }),
    );
    const session = r.data.session;
    r = await call(jar, api.frontend.toSession({ cookie: jar.header(), tokenizeAs: 'authentication' }));
    const claims = decodeJwt(r.data.tokenized);
    expect(claims).toMatchObject({ iss: `${svc.publicUrl}/`, aud: 'accounts', sub: session.identity.id, sid: session.id, email: 'tok@example.com' });
    expect(claims.nbf).toBe(claims.iat);
    expect(typeof claims.jti).toBe('string');
    const header = decodeProtectedHeader(r.data.tokenized);
    const jwks = (await (await fetch(`${svc.publicUrl}/.well-known/jwks.json`)).json()) as any;
    expect(jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', kid: header.kid, alg: 'ES256', use: 'sig' });
    expect(jwks.keys[0].d).toBeUndefined();
    r = await call(jar, api.frontend.toSession({ cookie: jar.header(), tokenizeAs: 'nope' }));
    expect(r.status).toBe(400);
    expect(r.data.error.reason).toBe('Unable to find tokenizer template "nope".');
    const list = await call(undefined, api.identity.listIdentitySessions({ id: session.identity.id }));
    expect(list.data[0].id).toBe(session.id);
    // Second device, list and revoke it from the first.
    const jar2 = new CookieJar();
    r = await call(jar2, api.frontend.createBrowserLoginFlow({ cookie: jar2.header() }));
    r = await call(
      jar2,
      api.frontend.updateLoginFlow({
        flow: r.data.id,
        cookie: jar2.header(),
        updateLoginFlowBody: { method: 'password', identifier: 'tok@example.com', password: 'token me please', csrf_token: csrfOf(r.data) },
      }),
    );
    r = await call(jar, api.frontend.listMySessions({ cookie: jar.header() }));
    expect(r.data.map((s: any) => s.id)).toHaveLength(1);
    r = await call(jar, api.frontend.disableMyOtherSessions({ cookie: jar.header() }));
    expect(r.data).toEqual({ count: 1 });
    expect((await call(jar2, api.frontend.toSession({ cookie: jar2.header() }))).status).toBe(401);
    expect((await call(jar, api.frontend.toSession({ cookie: jar.header() }))).status).toBe(200);
  });

  it('settings change parked during re-authentication is applied when the browser comes back', async () => {
    const clock = createTestClock();
    const short = await startTestIdentity({ clock, config: { selfservice: { flows: { settings: { privileged_session_max_age: '300ms' } } } } });
    try {
      const a = sdk(short.publicUrl, short.adminUrl);
      await call(
        undefined,
        a.identity.createIdentity({
          createIdentityBody: {
            schema_id: 'default',
            traits: { email: 'cont@example.com' },
            credentials: { password: { config: { password: 'first long phrase' } } },
          },
        }),
      );
      const b = new Browser();
      const P = short.publicUrl;
      let res = await b.get(`${P}/self-service/login/browser`);
      let flow = (await b.flowJson(`${P}/self-service/login/flows?id=${flowIdOf(res.headers.get('location'))}`)).data;
      await b.post(flow.ui.action, { method: 'password', identifier: 'cont@example.com', password: 'first long phrase', csrf_token: csrfOf(flow) });
      res = await b.get(`${P}/self-service/settings/browser`);
      const sid = flowIdOf(res.headers.get('location'));
      flow = (await b.flowJson(`${P}/self-service/settings/flows?id=${sid}`)).data;
      clock.advance(350);
      res = await b.post(flow.ui.action, { method: 'password', password: 'second long phrase', csrf_token: csrfOf(flow) });
      expect(res.status).toBe(303);
      res = await b.get(res.headers.get('location')!);
      expect(res.status).toBe(303);
      const lid = flowIdOf(res.headers.get('location'));
      const login = (await b.flowJson(`${P}/self-service/login/flows?id=${lid}`)).data;
      expect(login.refresh).toBe(true);
      expect(node(login, 'identifier').attributes).toMatchObject({ type: 'hidden', value: 'cont@example.com' });
      res = await b.post(login.ui.action, { method: 'password', identifier: 'cont@example.com', password: 'first long phrase', csrf_token: csrfOf(login) });
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe(`${P}/self-service/settings?flow=${sid}`);
      res = await b.get(res.headers.get('location')!);
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe(`${APP}/profile-settings?flow=${sid}`);
      flow = (await b.flowJson(`${P}/self-service/settings/flows?id=${sid}`)).data;
      expect(flow.state).toBe('success');
      const j = new CookieJar();
      let r = await call(j, a.frontend.createBrowserLoginFlow({ cookie: j.header() }));
      r = await call(
        j,
        a.frontend.updateLoginFlow({
          flow: r.data.id,
          cookie: j.header(),
          updateLoginFlowBody: { method: 'password', identifier: 'cont@example.com', password: 'second long phrase', csrf_token: csrfOf(r.data) },
        }),
      );
      expect(r.status).toBe(200);
    } finally {
      await short.close();
    }
  });
});

describe('courier over SMTP', () => {
  let smtp: Server;
  const received: string[] = [];
  let svc: Svc;
  beforeAll(async () => {
    smtp = createServer((sock) => {
      let data = false;
      let buf = '';
      sock.write('220 test ESMTP\r\n');
      sock.on('data', (chunk) => {
        buf += chunk.toString('utf8');
        let i: number;
        while ((i = data ? buf.indexOf('\r\n.\r\n') : buf.indexOf('\r\n')) >= 0) {
          if (data) {
            received.push(buf.slice(0, i));
            buf = buf.slice(i + 5);
            data = false;
            sock.write('250 OK queued\r\n');
            continue;
          }
          const line = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const cmd = line.slice(0, 4).toUpperCase();
          if (cmd === 'EHLO' || cmd === 'HELO') sock.write('250-test\r\n250 OK\r\n');
          else if (cmd === 'DATA') {
            data = true;
            sock.write('354 go ahead\r\n');
          } else if (cmd === 'QUIT') {
            sock.end('221 bye\r\n');
          } else sock.write('250 OK\r\n');
        }
      });
    });
    await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', r));
    const port = (smtp.address() as { port: number }).port;
    svc = await startTestIdentity({ smtpUrl: `smtp://127.0.0.1:${port}/?ignoreTLS=true` });
  });
  afterAll(async () => {
    await svc.close();
    await new Promise((r) => smtp.close(r));
  });

  it('stores the message and sends it through nodemailer', async () => {
    const api = sdk(svc.publicUrl, svc.adminUrl);
    await call(undefined, api.identity.createIdentity({ createIdentityBody: { schema_id: 'default', traits: { email: 'smtp@example.com' } } }));
    const jar = new CookieJar();
    const r = await call(jar, api.frontend.createBrowserVerificationFlow({}, { headers: { cookie: jar.header() } }));
    await call(
      jar,
      api.frontend.updateVerificationFlow({
        flow: r.data.id,
        cookie: jar.header(),
        updateVerificationFlowBody: { method: 'code', email: 'smtp@example.com', csrf_token: csrfOf(r.data) },
      }),
    );
    // Delivery is asynchronous: wait until the courier marks the message sent.
    const msg = await vi.waitFor(
      async () => {
        const latest = await latestMail(svc.adminUrl, 'smtp@example.com');
        expect(latest?.status).toBe('sent');
        return latest;
      },
      { timeout: 5000, interval: 10 },
    );
    expect(msg).toMatchObject({ status: 'sent', send_count: 1, template_type: 'verification_code_valid' });
    // The list carries no dispatches (v1.3.1); the message by id does.
    const one = await (await fetch(`${svc.adminUrl}/admin/courier/messages/${msg.id}`)).json();
    expect(one.dispatches[0].status).toBe('success');
    expect(received).toHaveLength(1);
    expect(received[0]).toContain('Subject: Please verify your email address');
    expect(received[0]).toContain('smtp@example.com');
  });
});
