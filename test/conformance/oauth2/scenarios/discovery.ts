// Discovery (contract ory-hydra.md §5.3–5.4): the OpenID configuration (at both well-known paths), the
// JWKS its ID tokens are verified with, and the health endpoints of both ports.
import type { OAuth2Scenario } from '../harness.ts';

export const discoveryScenarios: OAuth2Scenario[] = [
  {
    name: 'discovery document at /.well-known/openid-configuration and /.well-known/oauth-authorization-server',
    async run(ctx) {
      await ctx.admin.getJson(ctx.pub('/.well-known/openid-configuration'));
      await ctx.admin.getJson(ctx.pub('/.well-known/oauth-authorization-server'));
    },
  },
  {
    name: 'JWKS: the public signing keys of the ID tokens',
    async run(ctx) {
      await ctx.admin.getJson(ctx.pub('/.well-known/jwks.json'));
    },
  },
  {
    name: 'health: /health/ready and /health/alive on both ports; an admin path without /admin, and on the public port',
    async run(ctx) {
      for (const base of [ctx.pub(''), ctx.adm('')]) {
        await ctx.admin.getJson(`${base}/health/ready`);
        await ctx.admin.getJson(`${base}/health/alive`);
      }
      // An admin path without its /admin prefix on the admin port, and on the public port.
      await ctx.admin.getJson(ctx.adm('/clients'));
      await ctx.admin.getJson(ctx.pub('/admin/clients'));
    },
  },
];
