// Sessions (contract §12): whoami without and with a session (cookie, and the session token of an
// API login), with tokenize_as (the JWT compared by its header and claim keys and the shape of
// `iss`), an unknown template; and the current browser's session list.
import type { Scenario } from '../harness.ts';
import { asFlow, newIdentity, signedInBrowser, STRONG_PASSWORD } from './steps.ts';

export const sessionScenarios: Scenario[] = [
  {
    name: 'whoami without a session, and with a cookie that is not a session',
    async run(ctx) {
      const anonymous = ctx.browser();
      await anonymous.getJson(ctx.pub('/sessions/whoami'));
      anonymous.jar.cookies.set('ory_kratos_session', 'not-a-session');
      await anonymous.getJson(ctx.pub('/sessions/whoami'));
      await ctx.admin.getJson(ctx.pub('/sessions/whoami'), { headers: { 'x-session-token': 'ory_st_nope' } });
    },
  },
  {
    name: 'whoami with a session cookie',
    async run(ctx) {
      const { client } = await signedInBrowser(ctx);
      await client.getJson(ctx.pub('/sessions/whoami'));
      await client.get(ctx.pub('/sessions/whoami'), { variant: 'browser' });
    },
  },
  {
    name: 'whoami tokenize_as: the JWTs of both templates (keys, iss), and an unknown template',
    async run(ctx) {
      const { client } = await signedInBrowser(ctx);
      await client.getJson(ctx.pub('/sessions/whoami?tokenize_as=authorization'));
      await client.getJson(ctx.pub('/sessions/whoami?tokenize_as=authentication'));
      await client.getJson(ctx.pub('/sessions/whoami?tokenize_as=unknown'));
      await ctx.browser().getJson(ctx.pub('/sessions/whoami?tokenize_as=authorization'));
    },
  },
  {
    name: 'whoami with the session token of an API login (X-Session-Token and Bearer)',
    async run(ctx) {
      const identity = await newIdentity(ctx);
      const flow = asFlow(await ctx.admin.getJson(ctx.pub('/self-service/login/api')));
      const login = await ctx.admin.postJson(flow.ui.action, { method: 'password', identifier: identity.email, password: STRONG_PASSWORD });
      const token = (login.body as { session_token?: string }).session_token;
      if (!token) throw new Error(`no session token: ${login.status}`);
      await ctx.admin.getJson(ctx.pub('/sessions/whoami'), { headers: { 'x-session-token': token } });
      await ctx.admin.getJson(ctx.pub('/sessions/whoami?tokenize_as=authorization'), { headers: { authorization: `Bearer ${token}` } });
    },
  },
];
