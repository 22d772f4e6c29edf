// Admin API through @ory/client's IdentityApi/CourierApi, with the bearer API key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP, Browser, call, CookieJar, csrfOf, flowIdOf, sdk, startTestIdentity } from './helpers.ts';

const KEY = 'admin-secret';
let svc: Awaited<ReturnType<typeof startTestIdentity>>;
let api: ReturnType<typeof sdk>;
beforeAll(async () => {
  svc = await startTestIdentity({ adminApiKey: KEY });
  api = sdk(svc.publicUrl, svc.adminUrl, KEY);
});
afterAll(async () => {
  await svc.close();
});

async function signIn(email: string, password: string) {
  const jar = new CookieJar();
  let r = await call(jar, api.frontend.createBrowserLoginFlow({ cookie: jar.header() }));
  r = await call(
    jar,
    api.frontend.updateLoginFlow({
      flow: r.data.id,
      cookie: jar.header(),
      updateLoginFlowBody: { method: 'password', identifier: email, password, csrf_token: csrfOf(r.data) },
    }),
  );
  return { jar, r };
}

describe('admin API', () => {
  it('requires the bearer API key; public /admin paths redirect to the admin listener', async () => {
    const res = await fetch(`${svc.adminUrl}/admin/identities`);
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).error.code).toBe(401);
    expect((await fetch(`${svc.adminUrl}/admin/identities`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    // v1.3.1: a path of the admin port outside /admin is a 307 to it under /admin (relative Location).
    const bare = await fetch(`${svc.adminUrl}/identities?x=1`, { redirect: 'manual', headers: { authorization: `Bearer ${KEY}` } });
    expect(bare.status).toBe(307);
    expect(bare.headers.get('location')).toBe('/admin/identities?x=1');
    expect((await fetch(`${svc.adminUrl}/identities`, { headers: { authorization: `Bearer ${KEY}` } })).status).toBe(200);
    expect((await fetch(`${svc.adminUrl}/admin/health/ready`)).status).toBe(200);
    const pub = await fetch(`${svc.publicUrl}/admin/identities?x=1`, { redirect: 'manual' });
    expect(pub.status).toBe(307);
    expect(pub.headers.get('location')).toBe(`${svc.adminUrl}/admin/identities?x=1`);
    const adm = await fetch(`${svc.adminUrl}/admin/self-service/login/browser`, { redirect: 'manual' });
    expect(adm.status).toBe(307);
    expect(adm.headers.get('location')).toBe(`${svc.publicUrl}/self-service/login/browser`);
  });

  it('creates (verified address, password), gets with include_credential, lists by identifier, updates, patches, deletes', async () => {
    let r = await call(
      undefined,
      api.identity.createIdentity({
        createIdentityBody: {
          schema_id: 'default',
          traits: { email: 'Admin.Made@Example.com', name: 'Adm', loginService: 'EMAIL_PASSWORD' },
          verifiable_addresses: [{ value: 'admin.made@example.com', verified: true, via: 'email', status: 'completed' }],
          credentials: { password: { config: { password: 'admin chosen passphrase' } } },
        },
      }),
    );
    expect(r.status).toBe(201);
    // v1.3.1: SelfAdminURL + identities/<id>, without /admin.
    expect(r.headers.location).toBe(`${svc.adminUrl}/identities/${r.data.id}`);
    expect(r.data.credentials.password).toMatchObject({ type: 'password', identifiers: ['admin.made@example.com'] });
    expect(r.data.credentials.password.config).toBeUndefined();
    expect(r.data.verifiable_addresses[0]).toMatchObject({ value: 'admin.made@example.com', verified: true, status: 'completed' });
    const id = r.data.id;
    r = await call(undefined, api.identity.getIdentity({ id, includeCredential: ['password'] }));
    expect(r.data.credentials.password.config.hashed_password).toMatch(/^\$argon2id\$v=19\$m=64,t=1,p=1\$/);
    r = await call(undefined, api.identity.listIdentities({ credentialsIdentifier: 'ADMIN.MADE@example.com' }));
    expect(r.data.map((i: any) => i.id)).toEqual([id]);
    expect((await call(undefined, api.identity.listIdentities({ credentialsIdentifier: 'nobody@example.com' }))).data).toEqual([]);
    expect((await signIn('admin.made@example.com', 'admin chosen passphrase')).r.status).toBe(200);
    // Conflict.
    r = await call(
      undefined,
      api.identity.createIdentity({
        createIdentityBody: { schema_id: 'default', traits: { email: 'admin.made@example.com' }, credentials: { password: { config: { password: 'x' } } } },
      }),
    );
    expect(r.status).toBe(409);
    // Schema violation.
    r = await call(
      undefined,
      api.identity.createIdentity({ createIdentityBody: { schema_id: 'default', traits: { email: 'x@example.com', loginService: 'MYSPACE' } } }),
    );
    expect(r.status).toBe(400);
    // Patch.
    r = await call(
      undefined,
      api.identity.patchIdentity({
        id,
        jsonPatch: [
          { op: 'replace', path: '/traits/name', value: 'Patched' },
          { op: 'add', path: '/metadata_public', value: { plan: 'pro' } },
        ],
      }),
    );
    expect(r.status).toBe(200);
    expect(r.data.traits.name).toBe('Patched');
    expect(r.data.metadata_public).toEqual({ plan: 'pro' });
    // Update (PUT): state inactive blocks login; omitted state means active again.
    r = await call(
      undefined,
      api.identity.updateIdentity({
        id,
        updateIdentityBody: { schema_id: 'default', state: 'inactive', traits: { email: 'admin.made@example.com', name: 'Put' } },
      }),
    );
    expect(r.status).toBe(200);
    expect(r.data.state).toBe('inactive');
    expect(r.data.metadata_public).toBeNull();
    const { r: denied } = await signIn('admin.made@example.com', 'admin chosen passphrase');
    // v1.3.1 cannot activate a session for it: 401 "identity is disabled", no flow.
    expect(denied.status).toBe(401);
    expect(denied.data.error).toMatchObject({ code: 401, message: 'identity is disabled', details: { identity_id: id } });
    r = await call(
      undefined,
      api.identity.updateIdentity({ id, updateIdentityBody: { schema_id: 'default', traits: { email: 'admin.made@example.com', name: 'Put' } } as any }),
    );
    expect(r.data.state).toBe('active');
    // Sessions: list and delete.
    const { jar } = await signIn('admin.made@example.com', 'admin chosen passphrase');
    expect((await call(undefined, api.identity.listIdentitySessions({ id }))).data.length).toBeGreaterThan(0);
    r = await call(undefined, api.identity.deleteIdentitySessions({ id }));
    expect(r.status).toBe(204);
    expect((await call(jar, api.frontend.toSession({ cookie: jar.header() }))).status).toBe(401);
    // Delete.
    const { jar: jar2 } = await signIn('admin.made@example.com', 'admin chosen passphrase');
    expect((await call(undefined, api.identity.deleteIdentity({ id }))).status).toBe(204);
    expect((await call(jar2, api.frontend.toSession({ cookie: jar2.header() }))).status).toBe(401);
    expect((await call(undefined, api.identity.getIdentity({ id }))).status).toBe(404);
  });

  it('JSON Patch (RFC 6902): every operation on traits and metadata, atomic on failure, denied and missing paths refused', async () => {
    const created = await call(
      undefined,
      api.identity.createIdentity({
        createIdentityBody: { schema_id: 'default', traits: { email: 'ops@example.com', name: 'Ops' }, metadata_admin: { tags: ['a'] } },
      }),
    );
    const id = created.data.id;
    const patch = (jsonPatch: unknown[]) => call(undefined, api.identity.patchIdentity({ id, jsonPatch: jsonPatch as any }));
    let r = await patch([
      { op: 'test', path: '/traits/name', value: 'Ops' },
      { op: 'add', path: '/metadata_admin/tags/-', value: 'b' },
      { op: 'copy', from: '/traits/name', path: '/metadata_public' },
      { op: 'move', from: '/metadata_admin/tags/0', path: '/metadata_admin/first' },
      { op: 'remove', path: '/traits/name' },
      { op: 'replace', path: '/state', value: 'inactive' },
    ]);
    expect(r.status).toBe(200);
    expect(r.data.traits).toEqual({ email: 'ops@example.com' });
    expect(r.data.metadata_public).toBe('Ops');
    expect(r.data.metadata_admin).toEqual({ tags: ['b'], first: 'a' });
    expect(r.data.state).toBe('inactive');
    // A failing operation leaves the identity as it was, even after operations that succeeded before it.
    for (const [ops, reason] of [
      [
        [
          { op: 'replace', path: '/traits/email', value: 'changed@example.com' },
          { op: 'test', path: '/state', value: 'active' },
        ],
        'The test operation on "/state" failed.',
      ],
      [[{ op: 'remove', path: '/traits/nickname' }], 'The path "/traits/nickname" does not exist.'],
      [[{ op: 'replace', path: '/id', value: '00000000-0000-4000-8000-000000000000' }], 'patch includes denied path: /id'],
      [[{ op: 'add', path: '/credentials/oidc/config', value: {} }], 'patch includes denied path: /credentials/oidc/config'],
      [[{ op: 'add', path: '/traits/__proto__/polluted', value: true }], 'Invalid JSON pointer.'],
      [[{ op: 'jump', path: '/traits/email' }], 'Unsupported or incomplete JSON patch operation "jump".'],
      [[{ op: 'add', path: 'traits', value: 1 }], 'Invalid JSON pointer "traits".'],
    ] as const) {
      r = await patch([...ops]);
      expect(r.status, JSON.stringify(ops)).toBe(400);
      expect(r.data.error.reason).toBe(reason);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    r = await call(undefined, api.identity.getIdentity({ id }));
    expect(r.data.traits).toEqual({ email: 'ops@example.com' });
    expect(r.data.state).toBe('inactive');
  });

  it('deletes an OIDC credential by identifier, refusing the last first factor', async () => {
    let r = await call(
      undefined,
      api.identity.createIdentity({
        createIdentityBody: {
          schema_id: 'default',
          traits: { email: 'social@example.com', loginService: 'GOOGLE' },
          credentials: {
            oidc: {
              config: {
                providers: [
                  { provider: 'google', subject: 'g-123' },
                  { provider: 'apple', subject: 'a-9' },
                ],
              },
            },
          } as any,
        },
      }),
    );
    expect(r.status).toBe(201);
    const id = r.data.id;
    expect(r.data.credentials.oidc.identifiers).toEqual(['google:g-123', 'apple:a-9']);
    r = await call(undefined, api.identity.deleteIdentityCredentials({ id, type: 'oidc', identifier: 'google:g-123' }));
    expect(r.status).toBe(204);
    r = await call(undefined, api.identity.getIdentity({ id, includeCredential: ['oidc'] }));
    expect(r.data.credentials.oidc.identifiers).toEqual(['apple:a-9']);
    expect(r.data.credentials.oidc.config.providers).toEqual([expect.objectContaining({ provider: 'apple', subject: 'a-9' })]);
    r = await call(undefined, api.identity.deleteIdentityCredentials({ id, type: 'oidc', identifier: 'apple:a-9' }));
    expect(r.status).toBe(400);
    expect(r.data.error.reason).toBe('You cannot remove the last first factor credential.');
    expect((await call(undefined, api.identity.deleteIdentityCredentials({ id, type: 'password' }))).status).toBe(404);
  });

  it('recovery link (expires_in) signs the browser in and opens settings; recovery code works without a CSRF cookie', async () => {
    let r = await call(
      undefined,
      api.identity.createIdentity({
        createIdentityBody: {
          schema_id: 'default',
          traits: { email: 'lost@example.com' },
          credentials: { password: { config: { password: 'forgotten passphrase' } } },
        },
      }),
    );
    const id = r.data.id;
    r = await call(undefined, api.identity.createRecoveryLinkForIdentity({ createRecoveryLinkForIdentityBody: { identity_id: id, expires_in: '5m' } }));
    expect(r.status).toBe(200);
    expect(r.data.recovery_link).toMatch(new RegExp(`^${svc.publicUrl}/self-service/recovery\\?flow=[0-9a-f-]{36}&token=\\w+$`));
    const exp = new Date(r.data.expires_at).getTime() - Date.now();
    expect(exp).toBeGreaterThan(4 * 60_000);
    expect(exp).toBeLessThanOrEqual(5 * 60_000);
    const b = new Browser();
    let res = await b.get(r.data.recovery_link);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(new RegExp(`^${APP}/profile-settings\\?flow=`));
    expect(b.jar.get('ory_kratos_session')).toBeTruthy();
    const flow = (await b.flowJson(`${svc.publicUrl}/self-service/settings/flows?id=${flowIdOf(res.headers.get('location'))}`)).data;
    expect(flow.ui.messages[0].id).toBe(1060001);
    // Used link → new flow with 4060004.
    res = await b.get(r.data.recovery_link);
    expect(res.status).toBe(303);

    r = await call(undefined, api.identity.createRecoveryCodeForIdentity({ createRecoveryCodeForIdentityBody: { identity_id: id, expires_in: '10m' } }));
    expect(r.status).toBe(201);
    expect(r.data.recovery_link).toMatch(new RegExp(`^${APP}/forgot-password\\?flow=`));
    expect(r.data.recovery_code).toMatch(/^\d{6}$/);
    const jar = new CookieJar();
    const fid = flowIdOf(r.data.recovery_link);
    const got = await call(jar, api.frontend.getRecoveryFlow({ id: fid }));
    expect(got.status).toBe(200);
    expect(got.data.state).toBe('sent_email');
    const done = await call(
      jar,
      api.frontend.updateRecoveryFlow({ flow: fid, cookie: jar.header(), updateRecoveryFlowBody: { method: 'code', code: r.data.recovery_code } as any }),
    );
    expect(done.status).toBe(422);
    expect(done.data.redirect_browser_to).toMatch(new RegExp(`^${APP}/profile-settings\\?flow=`));
  });

  it('lists courier messages (filter by recipient) and serves the mailbox page', async () => {
    const jar = new CookieJar();
    let r = await call(jar, api.frontend.createBrowserRecoveryFlow({}, { headers: { cookie: jar.header() } }));
    await call(undefined, api.identity.createIdentity({ createIdentityBody: { schema_id: 'default', traits: { email: 'mail@example.com' } } }));
    r = await call(
      jar,
      api.frontend.updateRecoveryFlow({
        flow: r.data.id,
        cookie: jar.header(),
        updateRecoveryFlowBody: { method: 'code', email: 'mail@example.com', csrf_token: csrfOf(r.data) },
      }),
    );
    r = await call(undefined, api.courier.listCourierMessages({ recipient: 'mail@example.com' }));
    expect(r.status).toBe(200);
    expect(r.data).toHaveLength(1);
    expect(r.data[0]).toMatchObject({
      recipient: 'mail@example.com',
      template_type: 'recovery_code_valid',
      type: 'email',
      status: 'sent',
      subject: 'Recover access to your account',
    });
    expect((await call(undefined, api.courier.getCourierMessage({ id: r.data[0].id }))).data.id).toBe(r.data[0].id);
    expect((await fetch(`${svc.adminUrl}/mailbox`)).status).toBe(401);
    const page = await fetch(`${svc.adminUrl}/mailbox?key=${KEY}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain('Recover access to your account');
    expect(html).toContain('mail@example.com');
  });
});
