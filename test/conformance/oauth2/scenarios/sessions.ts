// Consent and login sessions at the admin API (contract ory-hydra.md §3.5): the remembered consents of
// a subject listed and revoked (by client, all, with their tokens), the remembered logins revoked (by
// subject, by sid), and the 400s for missing parameters.
import type { OAuth2Scenario } from '../harness.ts';
import { authorizeUrl, exchangeCode, fromLocation, getRequest, introspect, journey, navigate, registerClient, tokensOf } from './steps.ts';

const remembered = { login: { remember: true, remember_for: 3600 }, consent: { remember: true, remember_for: 3600 } };

export const sessionScenarios: OAuth2Scenario[] = [
  {
    name: 'consent sessions: listed per subject (and per login session), revoked per client with their tokens, then all; 400 without a subject',
    async run(ctx) {
      const subject = 'subject-consent-sessions';
      const client = await registerClient(ctx);
      const other = await registerClient(ctx);
      const browser = ctx.browser();
      const tokens = tokensOf(await exchangeCode(ctx, client, (await journey(ctx, browser, client, { subject, ...remembered })).code));
      await journey(ctx, browser, other, { subject, ...remembered });
      const listed = await ctx.admin.getJson(ctx.adm(`/admin/oauth2/auth/sessions/consent?subject=${subject}`));
      const sid = (listed.body as { consent_request?: { login_session_id?: string } }[])[0]?.consent_request?.login_session_id ?? '';
      await ctx.admin.getJson(ctx.adm(`/admin/oauth2/auth/sessions/consent?subject=${subject}&login_session_id=${encodeURIComponent(sid)}`));
      await ctx.admin.getJson(ctx.adm('/admin/oauth2/auth/sessions/consent?subject=nobody-at-all'));
      await ctx.admin.getJson(ctx.adm('/admin/oauth2/auth/sessions/consent'));
      await ctx.admin.request('DELETE', ctx.adm(`/admin/oauth2/auth/sessions/consent?subject=${subject}&client=${encodeURIComponent(client.client_id)}`), {
        variant: 'json',
      });
      await introspect(ctx, tokens.access_token);
      await introspect(ctx, tokens.refresh_token ?? '');
      await ctx.admin.getJson(ctx.adm(`/admin/oauth2/auth/sessions/consent?subject=${subject}`));
      // The revoked client's consent is asked again (skip=false); the other's is still remembered.
      await journey(ctx, browser, client, { subject });
      await ctx.admin.request('DELETE', ctx.adm(`/admin/oauth2/auth/sessions/consent?consent_request_id=not-a-consent`), { variant: 'json' });
      await ctx.admin.request('DELETE', ctx.adm(`/admin/oauth2/auth/sessions/consent?subject=${subject}&all=true`), { variant: 'json' });
      await ctx.admin.getJson(ctx.adm(`/admin/oauth2/auth/sessions/consent?subject=${subject}`));
      await ctx.admin.request('DELETE', ctx.adm(`/admin/oauth2/auth/sessions/consent?subject=${subject}`), { variant: 'json' });
      await ctx.admin.request('DELETE', ctx.adm('/admin/oauth2/auth/sessions/consent'), { variant: 'json' });
    },
  },
  {
    name: 'login sessions: revoked by subject and by sid (the next authorize is not skipped); 400 with neither',
    async run(ctx) {
      const client = await registerClient(ctx);
      const first = ctx.browser();
      await journey(ctx, first, client, { subject: 'subject-login-sessions', ...remembered });
      await ctx.admin.request('DELETE', ctx.adm('/admin/oauth2/auth/sessions/login?subject=subject-login-sessions'), { variant: 'json' });
      await getRequest(ctx, 'login', fromLocation(await navigate(first, authorizeUrl(ctx, client)), 'login_challenge'));
      const second = ctx.browser();
      await journey(ctx, second, client, { subject: 'subject-login-sessions-sid', ...remembered });
      const skipped = await getRequest(ctx, 'login', fromLocation(await navigate(second, authorizeUrl(ctx, client)), 'login_challenge'));
      const sid = (skipped.body as { session_id?: string }).session_id ?? '';
      await ctx.admin.request('DELETE', ctx.adm(`/admin/oauth2/auth/sessions/login?sid=${encodeURIComponent(sid)}`), { variant: 'json' });
      await getRequest(ctx, 'login', fromLocation(await navigate(second, authorizeUrl(ctx, client)), 'login_challenge'));
      await ctx.admin.request('DELETE', ctx.adm('/admin/oauth2/auth/sessions/login'), { variant: 'json' });
      await ctx.admin.request('DELETE', ctx.adm('/admin/oauth2/auth/sessions/login?subject=nobody-at-all'), { variant: 'json' });
    },
  },
];
