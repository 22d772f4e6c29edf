// Recovery (contract §9): by code, as JSON and as browser form posts; a wrong code; an unknown
// address; signed in; and the admin-initiated recovery the backend uses (POST /admin/recovery/link)
// and its code variant (POST /admin/recovery/code).
import type { Scenario } from '../harness.ts';
import { asFlow, createFlow, getFlow, mailedCode, navigateToFlow, newIdentity, signedInBrowser, submitForm, submitJson, uniqueEmail } from './steps.ts';

const flowIdOf = (url: unknown) => (typeof url === 'string' ? new URL(url).searchParams.get('flow') : null);

export const recoveryScenarios: Scenario[] = [
  {
    name: 'recovery by code (JSON): send, the mailed code, then the settings flow it opens',
    async run(ctx) {
      const identity = await newIdentity(ctx);
      const client = ctx.browser();
      const flow = await createFlow(ctx, client, 'recovery');
      const sent = asFlow(await submitJson(client, flow, { method: 'code', email: identity.email }));
      const code = await mailedCode(ctx, identity.email);
      const done = await submitJson(client, sent, { method: 'code', code });
      const settings = flowIdOf((done.body as { redirect_browser_to?: string }).redirect_browser_to);
      if (settings) await getFlow(ctx, client, 'settings', settings);
      await client.getJson(ctx.pub('/sessions/whoami'));
    },
  },
  {
    name: 'recovery by code (browser form): send, then the code redirects to the settings UI',
    async run(ctx) {
      const identity = await newIdentity(ctx);
      const client = ctx.browser();
      const flow = await navigateToFlow(ctx, client, 'recovery');
      await submitForm(client, flow, { email: identity.email, method: 'code' });
      const sent = asFlow(await getFlow(ctx, client, 'recovery', flow.id));
      const code = await mailedCode(ctx, identity.email);
      const done = await submitForm(client, sent, { code, method: 'code' });
      const settings = flowIdOf(done.location);
      if (settings) await getFlow(ctx, client, 'settings', settings);
    },
  },
  {
    name: 'recovery by code: a wrong code gives 4060006 and keeps the flow',
    async run(ctx) {
      const identity = await newIdentity(ctx);
      const client = ctx.browser();
      const flow = await createFlow(ctx, client, 'recovery');
      const sent = asFlow(await submitJson(client, flow, { method: 'code', email: identity.email }));
      await mailedCode(ctx, identity.email);
      await submitJson(client, sent, { method: 'code', code: '000000' });
      await getFlow(ctx, client, 'recovery', flow.id);
    },
  },
  {
    name: 'recovery by code: an unknown and an invalid address',
    async run(ctx) {
      const client = ctx.browser();
      const flow = await createFlow(ctx, client, 'recovery');
      await submitJson(client, flow, { method: 'code', email: uniqueEmail('nobody') });
      const other = await createFlow(ctx, client, 'recovery');
      await submitJson(client, other, { method: 'code', email: 'not-an-email' });
      await submitJson(client, other, { method: 'code' });
    },
  },
  {
    name: 'recovery: a signed-in browser cannot start one',
    async run(ctx) {
      const { client } = await signedInBrowser(ctx);
      await client.getJson(ctx.pub('/self-service/recovery/browser'));
      await client.get(ctx.pub('/self-service/recovery/browser'), { variant: 'browser' });
    },
  },
  {
    name: 'admin recovery link (the backend’s call): a browser opening it is signed in and sent to settings',
    async run(ctx) {
      const identity = await newIdentity(ctx);
      const answer = await ctx.admin.postJson(ctx.adm('/admin/recovery/link'), { identity_id: identity.id, expires_in: '5m' });
      const link = (answer.body as { recovery_link?: string }).recovery_link;
      if (!link) throw new Error(`no recovery link: ${answer.status}`);
      const client = ctx.browser();
      const opened = await client.get(link, { variant: 'browser' });
      const settings = flowIdOf(opened.location);
      if (settings) await getFlow(ctx, client, 'settings', settings);
      await client.getJson(ctx.pub('/sessions/whoami'));
      await ctx.browser().get(link, { variant: 'browser' });
    },
  },
  {
    name: 'admin recovery code: the link opens the recovery flow, the code completes it',
    async run(ctx) {
      const identity = await newIdentity(ctx);
      const answer = await ctx.admin.postJson(ctx.adm('/admin/recovery/code'), { identity_id: identity.id });
      const { recovery_link: link, recovery_code: code } = answer.body as { recovery_link?: string; recovery_code?: string };
      if (!link || !code) throw new Error(`no recovery code: ${answer.status}`);
      // The link is the recovery UI's (the app's page) with the flow id: the page reads that flow.
      const client = ctx.browser();
      const id = flowIdOf(link);
      if (!id) throw new Error(`no recovery flow id in ${link}`);
      const flow = asFlow(await getFlow(ctx, client, 'recovery', id));
      await submitJson(client, flow, { method: 'code', code });
    },
  },
  {
    name: 'admin recovery: unknown identity, bad lifetimes and a missing body',
    async run(ctx) {
      const unknown = '6a3f9a34-5a4e-4c9f-8d7e-1f2a3b4c5d6e';
      await ctx.admin.postJson(ctx.adm('/admin/recovery/link'), { identity_id: unknown });
      await ctx.admin.postJson(ctx.adm('/admin/recovery/code'), { identity_id: unknown });
      const identity = await newIdentity(ctx);
      await ctx.admin.postJson(ctx.adm('/admin/recovery/link'), { identity_id: identity.id, expires_in: 'soon' });
      await ctx.admin.postJson(ctx.adm('/admin/recovery/link'), {});
    },
  },
];
