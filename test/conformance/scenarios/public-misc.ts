// The public API's other routes the app and its pages use: the WebAuthn helper script, the identity
// schemas, health and version, and the admin routes asked on the public port (307 to the admin port).
import type { Scenario } from '../harness.ts';

export const publicMiscScenarios: Scenario[] = [
  {
    name: 'public: /.well-known/ory/webauthn.js is served',
    async run(ctx) {
      await ctx.browser().get(ctx.pub('/.well-known/ory/webauthn.js'));
    },
  },
  {
    name: 'public: identity schemas (list, by id, unknown id)',
    async run(ctx) {
      const client = ctx.browser();
      await client.getJson(ctx.pub('/schemas'));
      await client.getJson(ctx.pub('/schemas/ZGVmYXVsdA'));
      await client.getJson(ctx.pub('/schemas/dW5rbm93bg'));
    },
  },
  {
    name: 'health and version; paths outside /admin on the admin port; an admin path on the public port',
    async run(ctx) {
      const client = ctx.browser();
      await client.getJson(ctx.pub('/health/alive'));
      await client.getJson(ctx.pub('/health/ready'));
      await client.getJson(ctx.pub('/version'));
      await ctx.admin.getJson(ctx.adm('/admin/health/ready'));
      await ctx.admin.getJson(ctx.adm('/admin/version'));
      await ctx.admin.getJson(ctx.adm('/health/ready'));
      await ctx.admin.getJson(ctx.adm('/identities?page_size=1'));
      await ctx.admin.getJson(ctx.adm('/admin/self-service/login/browser'));
      await ctx.admin.getJson(ctx.adm('/admin/sessions/whoami'));
      await client.getJson(ctx.pub('/admin/identities'));
    },
  },
];
