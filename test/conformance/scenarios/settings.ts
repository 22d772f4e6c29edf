// Settings (contract §8): profile and password, as JSON and as browser form posts (blank optional
// fields included); validation errors; no session; and session_refresh_required once the session is
// older than privileged_session_max_age (set tiny for that scenario), then the refresh sign-in.
import type { Scenario } from '../harness.ts';
import type { ScenarioConfig } from '../targets.ts';
import { asFlow, createFlow, getFlow, navigateToFlow, signedInBrowser, STRONG_PASSWORD, submitForm, submitJson, until } from './steps.ts';

const TINY_PRIVILEGE: ScenarioConfig = { selfservice: { flows: { settings: { privileged_session_max_age: '1s' } } } };
const NEW_PASSWORD = 'Amber-Lantern-Falcon-27';

export const settingsScenarios: Scenario[] = [
  {
    name: 'settings profile (JSON): change the name',
    async run(ctx) {
      const { identity, client } = await signedInBrowser(ctx);
      const flow = await createFlow(ctx, client, 'settings');
      await submitJson(client, flow, { method: 'profile', traits: { email: identity.email, name: 'Grace' } });
      await getFlow(ctx, client, 'settings', flow.id);
      await client.getJson(ctx.pub('/sessions/whoami'));
    },
  },
  {
    name: 'settings profile (browser form): blank optional fields',
    async run(ctx) {
      const { identity, client } = await signedInBrowser(ctx);
      const flow = await navigateToFlow(ctx, client, 'settings');
      await submitForm(client, flow, [
        ['traits.email', identity.email],
        ['traits.name', ''],
        ['traits.avatarRemoteId', ''],
        ['traits.loginService', ''],
        ['method', 'profile'],
      ]);
      await getFlow(ctx, client, 'settings', flow.id);
      await ctx.admin.getJson(ctx.adm(`/admin/identities/${identity.id}`));
    },
  },
  {
    name: 'settings profile: an invalid e-mail and a name too long',
    async run(ctx) {
      const { identity, client } = await signedInBrowser(ctx);
      const flow = await createFlow(ctx, client, 'settings');
      await submitJson(client, flow, { method: 'profile', traits: { email: 'not-an-email', name: 'Ada' } });
      await submitJson(client, flow, { method: 'profile', traits: { email: identity.email, name: 'x'.repeat(40) } });
    },
  },
  {
    name: 'settings password (JSON): too short, then a new one',
    async run(ctx) {
      const { client } = await signedInBrowser(ctx);
      const flow = await createFlow(ctx, client, 'settings');
      const short = asFlow(await submitJson(client, flow, { method: 'password', password: 'short' }));
      await submitJson(client, short, { method: 'password', password: NEW_PASSWORD });
    },
  },
  {
    name: 'settings password (browser form): a new password',
    async run(ctx) {
      const { client } = await signedInBrowser(ctx);
      const flow = await navigateToFlow(ctx, client, 'settings');
      await submitForm(client, flow, { password: NEW_PASSWORD, method: 'password' });
      await getFlow(ctx, client, 'settings', flow.id);
    },
  },
  {
    name: 'settings without a session (JSON 401, browser to login), and another identity’s flow',
    async run(ctx) {
      const anonymous = ctx.browser();
      await anonymous.getJson(ctx.pub('/self-service/settings/browser'));
      await anonymous.get(ctx.pub('/self-service/settings/browser'), { variant: 'browser' });
      const { client } = await signedInBrowser(ctx);
      const flow = await createFlow(ctx, client, 'settings');
      await getFlow(ctx, anonymous, 'settings', flow.id);
      await anonymous.postJson(flow.ui.action, { method: 'password', password: NEW_PASSWORD });
      const { client: other } = await signedInBrowser(ctx);
      await getFlow(ctx, other, 'settings', flow.id);
    },
  },
  {
    name: 'settings: session_refresh_required past privileged_session_max_age, then the refresh sign-in',
    config: TINY_PRIVILEGE,
    async run(ctx) {
      const { identity, client } = await signedInBrowser(ctx);
      const session = await client.getJson(ctx.pub('/sessions/whoami'), { record: false });
      await until(Date.parse((session.body as { authenticated_at: string }).authenticated_at) + 1_100);
      const flow = await createFlow(ctx, client, 'settings');
      await submitJson(client, flow, { method: 'password', password: NEW_PASSWORD });
      await submitForm(client, flow, { password: NEW_PASSWORD, method: 'password' });
      await submitJson(client, flow, { method: 'profile', traits: { email: identity.email, name: 'Grace' } });
      const refresh = await createFlow(ctx, client, 'login', `?refresh=true&return_to=${encodeURIComponent(`${ctx.target.appUrl}/profile-settings`)}`);
      await submitJson(client, refresh, { method: 'password', identifier: identity.email, password: STRONG_PASSWORD });
      const again = asFlow(await getFlow(ctx, client, 'settings', flow.id));
      await submitJson(client, again, { method: 'password', password: NEW_PASSWORD });
    },
  },
];
