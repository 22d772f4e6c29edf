// Bad input never yields a 5xx: Kratos's error envelope with a 4xx.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar, startTestIdentity } from './helpers.ts';

let svc: Awaited<ReturnType<typeof startTestIdentity>>;
beforeAll(async () => {
  svc = await startTestIdentity();
});
afterAll(async () => {
  await svc.close();
});

async function expectEnvelope(res: Response, status: number) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/json');
  expect(res.headers.has('ory-error-id')).toBe(true);
  const body = (await res.json()) as any;
  expect(body.error.code).toBe(status);
  expect(typeof body.error.message).toBe('string');
  return body;
}

async function newLoginFlow() {
  const jar = new CookieJar();
  const r = await fetch(`${svc.publicUrl}/self-service/login/browser`, { headers: { accept: 'application/json' } });
  jar.absorb(r.headers.getSetCookie());
  return { jar, flow: (await r.json()) as any };
}

describe('bad input', () => {
  it('malformed JSON, JSON that is not an object, wrong content type and oversized bodies', async () => {
    const { jar, flow } = await newLoginFlow();
    const post = (body: string, ct: string) =>
      fetch(flow.ui.action, { method: 'POST', headers: { accept: 'application/json', 'content-type': ct, cookie: jar.header() }, body });
    let body = await expectEnvelope(await post('{"method":', 'application/json'), 400);
    expect(body.error.reason).toMatch(/^Unable to decode JSON payload/);
    await expectEnvelope(await post('[1,2]', 'application/json'), 400);
    await expectEnvelope(await post('method=password', 'text/plain'), 415);
    await expectEnvelope(await post('a'.repeat(2 * 1024 * 1024), 'application/json'), 413);
    body = await expectEnvelope(
      await fetch(`${svc.adminUrl}/admin/identities`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"schema_id":"default","traits":{"email":"a@b.co"},"surprise":1}',
      }),
      400,
    );
    // v1.3.1: the decoder's text is the error's message, and there is no reason.
    expect(body.error.message).toBe('json: unknown field "surprise"');
    await expectEnvelope(
      await fetch(`${svc.adminUrl}/admin/identities`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"schema_id":"default","traits":"nope"}',
      }),
      400,
    );
    await expectEnvelope(await fetch(`${svc.adminUrl}/admin/identities`, { method: 'POST', headers: { 'content-type': 'text/xml' }, body: '<a/>' }), 415);
  });

  it('odd field types are form errors, not crashes', async () => {
    const { jar, flow } = await newLoginFlow();
    const csrf = flow.ui.nodes.find((n: any) => n.attributes.name === 'csrf_token').attributes.value;
    const res = await fetch(flow.ui.action, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json', cookie: jar.header() },
      body: JSON.stringify({ method: 'password', identifier: { $ne: 1 }, password: ['x'], csrf_token: csrf }),
    });
    expect(res.status).toBe(400);
    const f = (await res.json()) as any;
    expect(f.ui.nodes.find((n: any) => n.attributes.name === 'identifier').messages[0].id).toBe(4000002);
    const reg = (await (
      await fetch(`${svc.publicUrl}/self-service/registration/browser`, { headers: { accept: 'application/json', cookie: jar.header() } })
    ).json()) as any;
    const r2 = await fetch(reg.ui.action, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json', cookie: jar.header() },
      body: JSON.stringify({ method: 'profile', traits: { email: 42, name: 'x'.repeat(40), extra: true }, csrf_token: csrf }),
    });
    expect(r2.status).toBe(400);
    const g = (await r2.json()) as any;
    expect(g.ui.nodes.find((n: any) => n.attributes.name === 'traits.email').messages[0]).toMatchObject({
      id: 4000026,
      text: 'expected string, but got integer',
    });
    expect(g.ui.nodes.find((n: any) => n.attributes.name === 'traits.name').messages[0]).toMatchObject({
      id: 4000017,
      text: 'length must be <= 32, but got 40',
    });
    expect(g.ui.messages[0].id).toBe(4000001);
  });

  it('non-UUID ids, unknown routes and methods, broken URLs', async () => {
    await expectEnvelope(await fetch(`${svc.publicUrl}/self-service/login/flows?id=garbage`), 404);
    const body = await expectEnvelope(
      await fetch(`${svc.publicUrl}/self-service/login?flow=garbage`, { method: 'POST', headers: { accept: 'application/json' } }),
      400,
    );
    expect(body.error.reason).toBe('The flow query parameter is missing or malformed.');
    await expectEnvelope(
      await fetch(`${svc.publicUrl}/self-service/settings?flow=00000000-0000-4000-8000-000000000000`, {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/json' },
        body: '{}',
      }),
      404,
    );
    await expectEnvelope(await fetch(`${svc.adminUrl}/admin/identities/not-a-uuid`), 404);
    await expectEnvelope(
      await fetch(`${svc.adminUrl}/admin/identities/not-a-uuid`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '[]' }),
      404,
    );
    await expectEnvelope(await fetch(`${svc.adminUrl}/admin/sessions/not-a-uuid`), 400);
    await expectEnvelope(await fetch(`${svc.publicUrl}/nope`), 404);
    await expectEnvelope(await fetch(`${svc.publicUrl}/self-service/login/flows`, { method: 'DELETE' }), 405);
    await expectEnvelope(await fetch(`${svc.adminUrl}/admin/identities/%E0%A4%A`), 404);
    await expectEnvelope(await fetch(`${svc.publicUrl}/self-service/errors?id=unknown`), 404);
    const created = (await (
      await fetch(`${svc.adminUrl}/admin/identities`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"schema_id":"default","traits":{"email":"patch@example.com"}}',
      })
    ).json()) as any;
    await expectEnvelope(
      await fetch(`${svc.adminUrl}/admin/identities/${created.id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: '{"op":"replace"}',
      }),
      400,
    );
    await expectEnvelope(
      await fetch(`${svc.adminUrl}/admin/identities/${created.id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: '[{"op":"replace","path":"/id","value":"x"}]',
      }),
      400,
    );
    await expectEnvelope(
      await fetch(`${svc.adminUrl}/admin/identities/${created.id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: '[{"op":"replace","path":"/traits/email","value":"not-an-email"}]',
      }),
      400,
    );
    await expectEnvelope(
      await fetch(`${svc.adminUrl}/admin/recovery/link`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ identity_id: created.id, expires_in: 'soon' }),
      }),
      400,
    );
    await expectEnvelope(
      await fetch(`${svc.adminUrl}/admin/recovery/link`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ identity_id: '00000000-0000-4000-8000-000000000000' }),
      }),
      400,
    );
    await expectEnvelope(
      await fetch(`${svc.adminUrl}/admin/recovery/code`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ identity_id: '00000000-0000-4000-8000-000000000000' }),
      }),
      404,
    );
    await expectEnvelope(await fetch(`${svc.publicUrl}/sessions/whoami?tokenize_as=unknown`, { headers: { 'x-session-token': 'ory_st_nope' } }), 401);
  });

  it('a browser (non-JSON) error goes to the error UI with the stored error', async () => {
    const res = await fetch(`${svc.publicUrl}/self-service/login?flow=garbage`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=b',
    });
    expect(res.status).toBe(303);
    const id = new URL(res.headers.get('location')!).searchParams.get('id')!;
    const e = (await (await fetch(`${svc.publicUrl}/self-service/errors?id=${id}`)).json()) as any;
    expect(e).toMatchObject({ id, error: { code: 400, reason: 'The flow query parameter is missing or malformed.' } });
  });
});
