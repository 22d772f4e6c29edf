// Logout (contract §11): the browser logout URL and following it (redirect, and the JSON variant),
// with and without return_to; without a session; a wrong token; and the API logout
// (DELETE /self-service/logout/api) with a session token from an API login flow, a bad token and none.
import type { Scenario } from '../harness.ts';
import { asFlow, signedInBrowser, STRONG_PASSWORD, newIdentity } from './steps.ts';

type LogoutFlow = { logout_url?: string; logout_token?: string };

export const logoutScenarios: Scenario[] = [
  {
    name: 'logout (browser): the logout URL, then the browser follows it and the session is gone',
    async run(ctx) {
      const { client } = await signedInBrowser(ctx);
      const created = await client.getJson(ctx.pub('/self-service/logout/browser'));
      const url = (created.body as LogoutFlow).logout_url;
      if (!url) throw new Error('no logout_url');
      await client.get(url, { variant: 'browser' });
      await client.getJson(ctx.pub('/sessions/whoami'));
      await client.get(url, { variant: 'browser' });
    },
  },
  {
    name: 'logout (SDK-style JSON) with return_to: 204, and a disallowed return_to',
    async run(ctx) {
      const { client } = await signedInBrowser(ctx);
      await client.getJson(ctx.pub(`/self-service/logout/browser?return_to=${encodeURIComponent('https://evil.example/')}`));
      const created = await client.getJson(ctx.pub(`/self-service/logout/browser?return_to=${encodeURIComponent(`${ctx.target.appUrl}/bye`)}`));
      const url = (created.body as LogoutFlow).logout_url;
      if (!url) throw new Error('no logout_url');
      await client.getJson(url);
      await client.getJson(ctx.pub('/sessions/whoami'));
    },
  },
  {
    name: 'logout (browser) with return_to: redirected there',
    async run(ctx) {
      const { client } = await signedInBrowser(ctx);
      const created = await client.getJson(ctx.pub(`/self-service/logout/browser?return_to=${encodeURIComponent(`${ctx.target.appUrl}/bye`)}`));
      const url = (created.body as LogoutFlow).logout_url;
      if (!url) throw new Error('no logout_url');
      await client.get(url, { variant: 'browser' });
    },
  },
  {
    name: 'logout without a session (JSON and browser), and with a wrong token',
    async run(ctx) {
      const anonymous = ctx.browser();
      await anonymous.getJson(ctx.pub('/self-service/logout/browser'));
      await anonymous.get(ctx.pub('/self-service/logout/browser'), { variant: 'browser' });
      await anonymous.getJson(ctx.pub('/self-service/logout?token=ory_lo_nope'));
      const { client } = await signedInBrowser(ctx);
      await client.getJson(ctx.pub('/self-service/logout?token=ory_lo_nope'));
      await client.getJson(ctx.pub('/self-service/logout'));
      await client.get(ctx.pub('/self-service/logout?token=ory_lo_nope'), { variant: 'browser' });
    },
  },
  {
    name: 'API logout (DELETE /self-service/logout/api): a session token from an API login, then it is revoked',
    async run(ctx) {
      const identity = await newIdentity(ctx);
      const api = ctx.admin;
      const flow = asFlow(await api.getJson(ctx.pub('/self-service/login/api')));
      const login = await api.postJson(flow.ui.action, { method: 'password', identifier: identity.email, password: STRONG_PASSWORD });
      const token = (login.body as { session_token?: string }).session_token;
      if (!token) throw new Error(`no session token: ${login.status}`);
      await api.getJson(ctx.pub('/sessions/whoami'), { headers: { 'x-session-token': token } });
      await api.request('DELETE', ctx.pub('/self-service/logout/api'), { json: { session_token: token } });
      await api.getJson(ctx.pub('/sessions/whoami'), { headers: { 'x-session-token': token } });
      await api.request('DELETE', ctx.pub('/self-service/logout/api'), { json: { session_token: token } });
    },
  },
  {
    name: 'API logout without a valid session token: unknown token, no token, no body',
    async run(ctx) {
      await ctx.admin.request('DELETE', ctx.pub('/self-service/logout/api'), { json: { session_token: 'ory_st_nope' } });
      await ctx.admin.request('DELETE', ctx.pub('/self-service/logout/api'), { json: {} });
      await ctx.admin.request('DELETE', ctx.pub('/self-service/logout/api'), { variant: 'json' });
    },
  },
];
