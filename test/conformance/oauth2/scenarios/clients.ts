// OAuth2 client management at the admin API (contract ory-hydra.md §5.8): create (the secret is in
// the answer once, never again), read, list, patch, replace, delete; which client ids and secrets a
// caller may choose; what is refused.
import type { OAuth2Scenario } from '../harness.ts';
import { CALLBACK } from './steps.ts';

const confidential = (name: string) => ({
  client_name: name,
  redirect_uris: [CALLBACK],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  scope: 'openid offline_access',
  token_endpoint_auth_method: 'client_secret_basic',
});

const idOf = (body: unknown) => String((body as { client_id?: unknown }).client_id);

export const clientScenarios: OAuth2Scenario[] = [
  {
    name: 'client: create (secret once) → get (no secret) → list by name → patch → put → delete → gone',
    async run(ctx) {
      const created = await ctx.admin.postJson(ctx.adm('/admin/clients'), confidential('conformance-crud'));
      const id = encodeURIComponent(idOf(created.body));
      await ctx.admin.getJson(ctx.adm(`/admin/clients/${id}`));
      await ctx.admin.getJson(ctx.adm('/admin/clients?client_name=conformance-crud'));
      await ctx.admin.request('PATCH', ctx.adm(`/admin/clients/${id}`), {
        json: [
          { op: 'replace', path: '/client_name', value: 'conformance-crud-renamed' },
          { op: 'add', path: '/redirect_uris/-', value: 'http://client.conformance.test/second' },
        ],
      });
      await ctx.admin.request('PUT', ctx.adm(`/admin/clients/${id}`), { json: { ...confidential('conformance-crud-replaced'), scope: 'openid' } });
      await ctx.admin.getJson(ctx.adm(`/admin/clients/${id}`));
      await ctx.admin.request('DELETE', ctx.adm(`/admin/clients/${id}`), { variant: 'json' });
      await ctx.admin.getJson(ctx.adm(`/admin/clients/${id}`));
      await ctx.admin.request('DELETE', ctx.adm(`/admin/clients/${id}`), { variant: 'json' });
      await ctx.admin.request('PATCH', ctx.adm(`/admin/clients/${id}`), { json: [{ op: 'replace', path: '/client_name', value: 'x' }] });
    },
  },
  {
    name: 'client: a chosen client_id and client_secret, the same id again, a public client (no secret)',
    async run(ctx) {
      const chosen = { ...confidential('conformance-chosen'), client_id: 'conformance-chosen-id', client_secret: 'a-chosen-secret-of-some-length' };
      await ctx.admin.postJson(ctx.adm('/admin/clients'), chosen);
      await ctx.admin.postJson(ctx.adm('/admin/clients'), chosen);
      await ctx.admin.getJson(ctx.adm('/admin/clients/conformance-chosen-id'));
      await ctx.admin.postJson(ctx.adm('/admin/clients'), { ...confidential('conformance-public'), token_endpoint_auth_method: 'none' });
      await ctx.admin.postJson(ctx.adm('/admin/clients'), { ...confidential('conformance-empty-id'), client_id: '' });
    },
  },
  {
    name: 'client: refused registrations (short secret, a redirect URI with a fragment, an unknown auth method, a malformed body)',
    async run(ctx) {
      await ctx.admin.postJson(ctx.adm('/admin/clients'), { ...confidential('conformance-short'), client_secret: 'abc' });
      await ctx.admin.postJson(ctx.adm('/admin/clients'), { ...confidential('conformance-fragment'), redirect_uris: ['http://client.conformance.test/cb#x'] });
      await ctx.admin.postJson(ctx.adm('/admin/clients'), { ...confidential('conformance-method'), token_endpoint_auth_method: 'magic' });
      await ctx.admin.request('POST', ctx.adm('/admin/clients'), { variant: 'json', headers: { 'content-type': 'application/json' }, raw: '{not json' });
      await ctx.admin.getJson(ctx.adm('/admin/clients/no-such-client'));
    },
  },
];
