// The token, introspection and revocation endpoints (contract ory-hydra.md §5.2, §5.5–5.7): refresh
// tokens only with offline_access granted and the refresh_token grant; rotation and reuse; client
// authentication errors; introspection of active and inactive tokens; revocation's answers.
import type { OAuth2Scenario } from '../harness.ts';
import { basic, exchangeCode, introspect, journey, registerClient, token, tokensOf, userinfo } from './steps.ts';

export const tokenScenarios: OAuth2Scenario[] = [
  {
    name: 'refresh: with offline_access granted; without it (requested or granted); a client without the refresh_token grant',
    async run(ctx) {
      const client = await registerClient(ctx);
      const withOffline = tokensOf(await exchangeCode(ctx, client, (await journey(ctx, ctx.browser(), client, { subject: 'subject-refresh' })).code));
      const refreshed = tokensOf(await token(ctx, client, { grant_type: 'refresh_token', refresh_token: withOffline.refresh_token ?? '', scope: 'openid' }));
      // The rotated-out refresh token used again: refused, and the chain it started is revoked.
      await token(ctx, client, { grant_type: 'refresh_token', refresh_token: withOffline.refresh_token ?? '' });
      await introspect(ctx, refreshed.refresh_token ?? '');
      await introspect(ctx, refreshed.access_token);
      const notRequested = await journey(ctx, ctx.browser(), client, { subject: 'subject-refresh', params: { scope: 'openid' } });
      const plain = tokensOf(await exchangeCode(ctx, client, notRequested.code));
      await token(ctx, client, { grant_type: 'refresh_token', refresh_token: plain.access_token });
      const notGranted = await journey(ctx, ctx.browser(), client, { subject: 'subject-refresh', consent: { grant_scope: ['openid'] } });
      await exchangeCode(ctx, client, notGranted.code);
      const noGrant = await registerClient(ctx, { grant_types: ['authorization_code'] });
      await exchangeCode(ctx, noGrant, (await journey(ctx, ctx.browser(), noGrant, { subject: 'subject-refresh' })).code);
      await token(ctx, client, { grant_type: 'refresh_token', refresh_token: 'ory_rt_never-issued.signature' });
    },
  },
  {
    name: 'client credentials: a machine client gets an access token (no refresh, no ID token), introspected; a scope it may not ask for; a post-logout URI without redirect URIs',
    async run(ctx) {
      const metadata = { grant_types: ['client_credentials'], response_types: [], scope: 'documents.read', redirect_uris: [] };
      // A post-logout URI on a client without redirect URIs: refused by real Hydra.
      await ctx.admin.postJson(ctx.adm('/admin/clients'), { ...metadata, post_logout_redirect_uris: ['http://client.conformance.test/signed-out'] });
      const machine = await registerClient(ctx, { ...metadata, post_logout_redirect_uris: [] });
      const answer = await token(ctx, machine, { grant_type: 'client_credentials', scope: 'documents.read' });
      await introspect(ctx, tokensOf(answer).access_token);
      await token(ctx, machine, { grant_type: 'client_credentials' });
      await token(ctx, machine, { grant_type: 'client_credentials', scope: 'documents.write' });
      await token(ctx, machine, {
        grant_type: 'authorization_code',
        code: 'ory_ac_never-issued.signature',
        redirect_uri: 'http://client.conformance.test/callback',
      });
    },
  },
  {
    name: 'token endpoint client authentication: wrong secret, unknown client, none, the wrong method, an unsupported or missing grant_type',
    async run(ctx) {
      const client = await registerClient(ctx);
      const { code } = await journey(ctx, ctx.browser(), client, { subject: 'subject-client-auth' });
      const form = { grant_type: 'authorization_code', code, redirect_uri: client.redirect_uri };
      await token(ctx, client, form, basic(client.client_id, 'wrong-secret'));
      await token(ctx, client, form, basic('no-such-client', 'wrong-secret'));
      await token(ctx, client, form, {});
      await token(ctx, client, { ...form, client_id: client.client_id, client_secret: client.client_secret ?? '' }, {});
      await token(ctx, client, { ...form, grant_type: 'password', username: 'a', password: 'b' });
      await token(ctx, client, { code, redirect_uri: client.redirect_uri });
      await token(ctx, client, { ...form, grant_type: 'client_credentials' });
      await ctx.admin.getJson(ctx.pub('/oauth2/token'));
      // A client_secret_post client authenticated with Basic.
      const post = await registerClient(ctx, { token_endpoint_auth_method: 'client_secret_post' });
      const other = await journey(ctx, ctx.browser(), post, { subject: 'subject-client-auth' });
      await exchangeCode(ctx, post, other.code);
      await exchangeCode(ctx, post, other.code, { client_id: post.client_id, client_secret: post.client_secret ?? '' });
    },
  },
  {
    name: 'introspection: active tokens, a scope the token lacks, unknown and empty tokens, no body; userinfo with bad tokens',
    async run(ctx) {
      const client = await registerClient(ctx);
      const tokens = tokensOf(await exchangeCode(ctx, client, (await journey(ctx, ctx.browser(), client, { subject: 'subject-introspect' })).code));
      await introspect(ctx, tokens.access_token, { scope: 'openid' });
      await introspect(ctx, tokens.access_token, { scope: 'openid email' });
      await introspect(ctx, 'ory_at_never-issued.signature');
      await introspect(ctx, '');
      await ctx.admin.request('POST', ctx.adm('/admin/oauth2/introspect'), { variant: 'json' });
      await userinfo(ctx, tokens.refresh_token ?? '');
      await userinfo(ctx, 'ory_at_never-issued.signature');
      await ctx.admin.getJson(ctx.pub('/userinfo'));
      await ctx.admin.postForm(ctx.pub('/userinfo'), {}, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    },
  },
  {
    name: 'revocation: unknown token (200), no token, wrong client secret, another client’s token, a refresh token revokes its access tokens',
    async run(ctx) {
      const client = await registerClient(ctx);
      const other = await registerClient(ctx);
      const tokens = tokensOf(await exchangeCode(ctx, client, (await journey(ctx, ctx.browser(), client, { subject: 'subject-revoke' })).code));
      const auth = basic(client.client_id, client.client_secret ?? '');
      await ctx.admin.postForm(ctx.pub('/oauth2/revoke'), { token: 'ory_at_never-issued.signature' }, { headers: auth });
      await ctx.admin.postForm(ctx.pub('/oauth2/revoke'), {}, { headers: auth });
      await ctx.admin.postForm(ctx.pub('/oauth2/revoke'), { token: tokens.access_token }, { headers: basic(client.client_id, 'wrong-secret') });
      await ctx.admin.postForm(ctx.pub('/oauth2/revoke'), { token: tokens.access_token }, { headers: basic(other.client_id, other.client_secret ?? '') });
      await introspect(ctx, tokens.access_token);
      await ctx.admin.postForm(ctx.pub('/oauth2/revoke'), { token: tokens.refresh_token ?? '' }, { headers: auth });
      await introspect(ctx, tokens.access_token);
      await introspect(ctx, tokens.refresh_token ?? '');
      // Revoking every token of a client at the admin API.
      const again = tokensOf(await exchangeCode(ctx, client, (await journey(ctx, ctx.browser(), client, { subject: 'subject-revoke' })).code));
      await ctx.admin.request('DELETE', ctx.adm(`/admin/oauth2/tokens?client_id=${encodeURIComponent(client.client_id)}`), { variant: 'json' });
      await introspect(ctx, again.access_token);
      await ctx.admin.request('DELETE', ctx.adm('/admin/oauth2/tokens'), { variant: 'json' });
    },
  },
];
