// Details where the stand-in follows Kratos v1.3.1 (the version it is held to) rather than the newer
// Kratos the contract was written from: the WebAuthn script, CSRF error details, logout's 401 body, the
// error flow, and the require_verified_address login hook.
import { runInNewContext } from 'node:vm';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConfig } from '../../../embedded/identity/index.ts';
import { APP, Browser, call, CookieJar, csrfOf, flowIdOf, sdk, startTestIdentity } from './helpers.ts';

type Svc = Awaited<ReturnType<typeof startTestIdentity>>;
let svc: Svc;
let api: ReturnType<typeof sdk>;
let n = 0;
const uniqueEmail = (prefix = 'v131') => `${prefix}${++n}-${Date.now()}@example.com`;
const PASSWORD = 'correct horse battery staple';
const REQUIRE_VERIFIED = { selfservice: { flows: { login: { after: { hooks: [{ hook: 'require_verified_address' }] } } } } };

beforeAll(async () => {
  svc = await startTestIdentity({ config: REQUIRE_VERIFIED });
  api = sdk(svc.publicUrl, svc.adminUrl);
});
afterAll(async () => {
  await svc.close();
});

async function createUser(verified: boolean): Promise<{ id: string; email: string }> {
  const email = uniqueEmail();
  const r = await call(
    undefined,
    api.identity.createIdentity({
      createIdentityBody: {
        schema_id: 'default',
        traits: { email },
        credentials: { password: { config: { password: PASSWORD } } },
        ...(verified ? { verifiable_addresses: [{ value: email, verified: true, via: 'email', status: 'completed' }] } : {}),
      } as any,
    }),
  );
  expect(r.status).toBe(201);
  return { id: r.data.id, email };
}

describe('/.well-known/ory/webauthn.js', () => {
  it('is served like v1.3.1 serves it: 200, text/javascript, no-cache, and defines the entry points once', async () => {
    const r = await fetch(`${svc.publicUrl}/.well-known/ory/webauthn.js`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/javascript; charset=UTF-8');
    expect(r.headers.get('cache-control')).toBe('private, no-cache, no-store, must-revalidate');
    // nosurf wraps the public routes (not the health checks): Vary: Cookie, and an anti-CSRF cookie.
    expect(r.headers.get('vary')).toBe('Cookie');
    expect(r.headers.getSetCookie().some((c) => c.startsWith('csrf_token_'))).toBe(true);
    const health = await fetch(`${svc.publicUrl}/health/alive`);
    expect(health.headers.get('vary')).toBeNull();
    expect(health.headers.getSetCookie()).toEqual([]);
    const window: Record<string, unknown> = {};
    const warnings: string[] = [];
    const script = await r.text();
    runInNewContext(script, { window, console: { warn: (m: string) => warnings.push(m) } });
    for (const name of [
      'oryWebAuthnLogin',
      'oryWebAuthnRegistration',
      'oryPasskeyLogin',
      'oryPasskeyLoginAutocompleteInit',
      'oryPasskeyRegistration',
      'oryPasskeySettingsRegistration',
    ]) {
      expect(typeof window[name], name).toBe('function');
      expect(window[`__${name}`]).toBe(window[name]);
    }
    expect(window.__oryWebAuthnInitialized).toBe(true);
    (window.oryWebAuthnLogin as () => void)();
    expect(warnings).toHaveLength(1);
  });
});

describe('CSRF violations', () => {
  const V131_DETAILS = {
    docs: 'https://www.ory.sh/kratos/docs/debug/csrf',
    hint: 'The anti-CSRF cookie was found but the CSRF token was not included in the HTTP request body (csrf_token) nor in the HTTP Header (X-CSRF-Token).',
    reject_reason:
      'The HTTP Cookie Header was set and a CSRF token was sent but they do not match. We recommend deleting all cookies for this domain and retrying the flow.',
  };

  it('carry the same details whatever went wrong (v1.3.1 shares one details map among them)', async () => {
    const jar = new CookieJar();
    const flow = await call(jar, api.frontend.createBrowserLoginFlow({ cookie: jar.header() }));
    const submit = (cookie: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      fetch(flow.data.ui.action, {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/json', cookie, ...headers },
        body: JSON.stringify({ method: 'password', identifier: 'a@example.com', password: PASSWORD, ...body }),
      });
    const answers = [
      await submit('', { csrf_token: csrfOf(flow.data) }), // no Cookie header
      await submit('other=1', { csrf_token: csrfOf(flow.data) }, { origin: APP }), // no anti-CSRF cookie
      await submit(jar.header(), {}), // no token
      await submit(jar.header(), { csrf_token: 'A'.repeat(88) }), // a wrong token
      await fetch(`${svc.publicUrl}/self-service/login/flows?id=${flow.data.id}`, { headers: { accept: 'application/json' } }), // getFlow, no cookie
    ];
    for (const r of answers) {
      expect(r.status).toBe(403);
      const body = (await r.json()) as any;
      expect(body.error.id).toBe('security_csrf_violation');
      expect(body.error.details).toEqual(V131_DETAILS);
    }
  });
});

describe('logout without a session', () => {
  it('401 session_inactive with the envelope alone (no CredentialsMissing member in v1.3.1), with or without credentials', async () => {
    for (const cookie of ['', 'ory_kratos_session=not-a-session']) {
      const r = await fetch(`${svc.publicUrl}/self-service/logout?token=x`, { headers: { accept: 'application/json', cookie } });
      expect(r.status).toBe(401);
      const body = (await r.json()) as any;
      expect(Object.keys(body)).toEqual(['error']);
      expect(body.error).toMatchObject({ id: 'session_inactive', code: 401 });
    }
  });
});

describe('the error flow (/self-service/errors)', () => {
  it('stores browser errors as id, error, created_at, updated_at with Go timestamps; `error` is read before `id`', async () => {
    const b = new Browser();
    const res = await b.get(`${svc.publicUrl}/self-service/login/browser?return_to=${encodeURIComponent('https://evil.example/')}`);
    expect(res.status).toBe(303);
    const id = new URL(res.headers.get('location')!).searchParams.get('id')!;
    const r = await fetch(`${svc.publicUrl}/self-service/errors?error=${id}&id=not-this-one`);
    expect(r.status).toBe(200);
    const body = (await r.json()) as any;
    expect(Object.keys(body)).toEqual(['id', 'error', 'created_at', 'updated_at']);
    expect(body.id).toBe(id);
    expect(Object.keys(body.error)).toEqual(['id', 'code', 'status', 'reason', 'message']);
    // RFC 3339 as Go writes it: no trailing zeros in the fraction.
    expect(body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d*[1-9])?Z$/);
    expect(body.updated_at).toBe(body.created_at);
  });

  it('stub:500 is a fresh container: a new UUID each time and Go zero timestamps', async () => {
    const get = async () => (await (await fetch(`${svc.publicUrl}/self-service/errors?id=stub:500`)).json()) as any;
    const [a, b] = [await get(), await get()];
    expect(a.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(b.id).not.toBe(a.id);
    expect(a).toEqual({
      id: a.id,
      error: {
        code: 500,
        status: 'Internal Server Error',
        reason: 'This is a stub error.',
        message: 'An internal server error occurred, please contact the system administrator',
      },
      created_at: '0001-01-01T00:00:00Z',
      updated_at: '0001-01-01T00:00:00Z',
    });
  });
});

describe('require_verified_address (login after hook)', () => {
  it('is on in the product configuration and in the stand-in defaults', () => {
    const configFile = fileURLToPath(new URL('../../../embedded/identity/identity.config.yaml', import.meta.url));
    expect(buildConfig({ configFile }).selfservice.flows.login.after.hooks).toEqual([{ hook: 'require_verified_address' }]);
    expect(buildConfig().selfservice.flows.login.after.hooks).toEqual([{ hook: 'require_verified_address' }]);
  });

  it('browser form: 303 back to the same flow, which shows 4000010 and no session; the flow still signs in once verified', async () => {
    const { id, email } = await createUser(false);
    const b = new Browser();
    let res = await b.get(`${svc.publicUrl}/self-service/login/browser`);
    const flowId = flowIdOf(res.headers.get('location'));
    let flow = (await b.flowJson(`${svc.publicUrl}/self-service/login/flows?id=${flowId}`)).data;
    res = await b.post(flow.ui.action, { csrf_token: csrfOf(flow), identifier: email, password: PASSWORD, method: 'password' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${APP}/sign-in?flow=${flowId}`);
    expect(b.jar.get('ory_kratos_session')).toBeUndefined();
    flow = (await b.flowJson(`${svc.publicUrl}/self-service/login/flows?id=${flowId}`)).data;
    expect(flow.ui.messages).toEqual([{ id: 4000010, text: 'Account not active yet. Did you forget to verify your email address?', type: 'error' }]);
    expect(flow.ui.nodes.every((x: any) => x.messages.length === 0)).toBe(true);
    expect(flow).toMatchObject({ active: 'password', state: 'choose_method' });

    await call(undefined, api.identity.patchIdentity({ id, jsonPatch: [{ op: 'replace', path: '/verifiable_addresses/0/verified', value: true }] }));
    res = await b.post(flow.ui.action, { csrf_token: csrfOf(flow), identifier: email, password: PASSWORD, method: 'password' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${APP}/`);
    expect(b.jar.get('ory_kratos_session')).toBeTruthy();
  });

  it('JSON: 400 with the flow carrying 4000010; a wrong password is still 4000006 first', async () => {
    const { email } = await createUser(false);
    const jar = new CookieJar();
    const flow = await call(jar, api.frontend.createBrowserLoginFlow({ cookie: jar.header() }));
    const submit = (password: string) =>
      call(
        jar,
        api.frontend.updateLoginFlow({
          flow: flow.data.id,
          cookie: jar.header(),
          updateLoginFlowBody: { method: 'password', identifier: email, password, csrf_token: csrfOf(flow.data) },
        }),
      );
    let r = await submit('not the password at all');
    expect(r.data.ui.messages[0].id).toBe(4000006);
    r = await submit(PASSWORD);
    expect(r.status).toBe(400);
    expect(r.data.id).toBe(flow.data.id);
    expect(r.data.ui.messages).toEqual([{ id: 4000010, text: 'Account not active yet. Did you forget to verify your email address?', type: 'error' }]);
    expect(jar.get('ory_kratos_session')).toBeUndefined();
  });

  it('a verified account signs in; method hooks (after.password.hooks) replace the global list', async () => {
    const { email } = await createUser(true);
    const jar = new CookieJar();
    let flow = await call(jar, api.frontend.createBrowserLoginFlow({ cookie: jar.header() }));
    let r = await call(
      jar,
      api.frontend.updateLoginFlow({
        flow: flow.data.id,
        cookie: jar.header(),
        updateLoginFlowBody: { method: 'password', identifier: email, password: PASSWORD, csrf_token: csrfOf(flow.data) },
      }),
    );
    expect(r.status).toBe(200);

    const other = await startTestIdentity({
      config: {
        selfservice: {
          flows: { login: { after: { hooks: [{ hook: 'require_verified_address' }], password: { hooks: [{ hook: 'revoke_active_sessions' }] } } } },
        },
      },
    });
    try {
      const otherApi = sdk(other.publicUrl, other.adminUrl);
      const unverified = uniqueEmail();
      await call(
        undefined,
        otherApi.identity.createIdentity({
          createIdentityBody: { schema_id: 'default', traits: { email: unverified }, credentials: { password: { config: { password: PASSWORD } } } },
        }),
      );
      const jar2 = new CookieJar();
      flow = await call(jar2, otherApi.frontend.createBrowserLoginFlow({ cookie: jar2.header() }));
      r = await call(
        jar2,
        otherApi.frontend.updateLoginFlow({
          flow: flow.data.id,
          cookie: jar2.header(),
          updateLoginFlowBody: { method: 'password', identifier: unverified, password: PASSWORD, csrf_token: csrfOf(flow.data) },
        }),
      );
      expect(r.status).toBe(200);
    } finally {
      await other.close();
    }
  });
});
