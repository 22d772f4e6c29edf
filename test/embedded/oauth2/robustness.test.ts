// Bad input to the OAuth2 stand-in is answered with a 4xx (or Hydra's redirects), never a 5xx or a hang:
// malformed cookies, bodies, encodings, methods and parameters on every public and admin route.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClient, startHarness, type Harness } from './support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

it('answers malformed requests without a server error', async () => {
  const client = await createClient(h.provider);
  const pub = h.provider.publicUrl;
  const adm = h.provider.adminUrl;
  const cases: [string, RequestInit & { url: string }][] = [
    [
      'bad cookie encoding',
      {
        url: `${pub}/oauth2/auth?client_id=${client.id}&response_type=code&scope=openid&state=abcdefghij&redirect_uri=http://127.0.0.1:5555/callback`,
        headers: { cookie: 'ory_hydra_session_dev=%E0%A4%A' },
      },
    ],
    ['verifier garbage', { url: `${pub}/oauth2/auth?login_verifier=%00%ff` }],
    ['consent verifier garbage', { url: `${pub}/oauth2/auth?consent_verifier=x` }],
    [
      'token with bad basic auth',
      {
        url: `${pub}/oauth2/token`,
        method: 'POST',
        headers: { authorization: 'Basic %%%', 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=authorization_code',
      },
    ],
    [
      'token with undecodable basic',
      { url: `${pub}/oauth2/token`, method: 'POST', headers: { authorization: `Basic ${Buffer.from('%E0%A4%A:x').toString('base64')}` }, body: 'a=b' },
    ],
    ['userinfo with junk bearer', { url: `${pub}/userinfo`, headers: { authorization: 'Bearer ory_at_.' } }],
    ['logout with junk hint', { url: `${pub}/oauth2/sessions/logout?id_token_hint=a.b.c` }],
    ['revoke with JSON', { url: `${pub}/oauth2/revoke`, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"token":1}' }],
    ['introspect with no content type', { url: `${adm}/admin/oauth2/introspect`, method: 'POST', body: 'token=%zz' }],
    ['client create with an array', { url: `${adm}/admin/clients`, method: 'POST', headers: { 'content-type': 'application/json' }, body: '[1,2]' }],
    [
      'client create with wrong types',
      { url: `${adm}/admin/clients`, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"redirect_uris":"x","scope":5}' },
    ],
    [
      'client patch with junk',
      { url: `${adm}/admin/clients/${client.id}`, method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '[{"op":"nope"}]' },
    ],
    ['client id with bad encoding', { url: `${adm}/admin/clients/%E0%A4%A`, method: 'GET' }],
    ['login accept with a list', { url: `${adm}/admin/oauth2/auth/requests/login/accept?login_challenge=x`, method: 'PUT', body: '[]' }],
    ['unknown method', { url: `${adm}/admin/clients`, method: 'DELETE' }],
    ['huge body', { url: `${adm}/admin/clients`, method: 'POST', body: 'x'.repeat(2 * 1024 * 1024) }],
  ];
  for (const [name, { url, ...init }] of cases) {
    const response = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(5000), ...init });
    await response.arrayBuffer();
    expect(response.status, name).toBeLessThan(500);
  }
});
