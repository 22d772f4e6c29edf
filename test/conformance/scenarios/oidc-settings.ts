// OIDC in settings (contract social-oauth2 §1.5): the link and unlink buttons, linking a provider (JSON
// 422 / form 303 to the provider, back to the settings flow with it linked), unlinking it, refusing to
// unlink the last way in, link and unlink together, an unknown or already linked provider, and a session
// older than privileged_session_max_age (403 session_refresh_required).
import type { Scenario } from '../harness.ts';
import type { ScenarioConfig } from '../targets.ts';
import { atProvider, flowAfterRedirect, providerAccount, socialSignIn, submitOidc } from './oidc-steps.ts';
import { createFlow, getFlow, navigateToFlow, signedInBrowser, submitJson, until } from './steps.ts';

const TINY_PRIVILEGE: ScenarioConfig = { selfservice: { flows: { settings: { privileged_session_max_age: '1s' } } } };

export const oidcSettingsScenarios: Scenario[] = [
  {
    name: 'oidc settings link (JSON): 422 to the provider, back to the settings flow with the provider linked; then unlink it',
    async run(ctx) {
      const { identity, client } = await signedInBrowser(ctx);
      const email = providerAccount('microsoft');
      const flow = await createFlow(ctx, client, 'settings');
      const { authorizeUrl } = await submitOidc(client, flow, { method: 'oidc', link: 'microsoft' });
      const answer = await atProvider(client, authorizeUrl, { email });
      const linked = await flowAfterRedirect(ctx, client, answer, 'settings');
      await client.getJson(ctx.pub('/sessions/whoami'));
      await ctx.admin.getJson(ctx.adm(`/admin/identities/${identity.id}?include_credential=oidc`));
      await submitJson(client, linked, { method: 'oidc', unlink: 'microsoft' });
      await ctx.admin.getJson(ctx.adm(`/admin/identities/${identity.id}?include_credential=oidc`));
    },
  },
  {
    name: 'oidc settings link with upstream_parameters (login_hint, prompt, auth_type forwarded) refused by the provider: back on the settings flow with its error; unlinking what was never linked',
    async run(ctx) {
      const { identity, client } = await signedInBrowser(ctx);
      const flow = await createFlow(ctx, client, 'settings');
      const { authorizeUrl } = await submitOidc(client, flow, {
        method: 'oidc',
        link: 'microsoft',
        // The fake Microsoft (oidc-provider) refuses prompt=select_account: invalid_request.
        upstream_parameters: { login_hint: identity.email, prompt: 'select_account', auth_type: 'reauthenticate', acr_values: 'x' },
        transient_payload: { from: 'settings' },
      });
      const answer = await atProvider(client, authorizeUrl, { email: identity.email });
      const again = await flowAfterRedirect(ctx, client, answer, 'settings');
      await submitJson(client, again, { method: 'oidc', unlink: 'microsoft' });
    },
  },
  {
    name: 'oidc settings link of a provider account another identity already has',
    async run(ctx) {
      const email = providerAccount('dropbox');
      await socialSignIn(ctx, ctx.browser(), 'registration', 'dropbox', email, { record: false });
      const { client } = await signedInBrowser(ctx);
      const flow = await createFlow(ctx, client, 'settings');
      const { authorizeUrl } = await submitOidc(client, flow, { method: 'oidc', link: 'dropbox' });
      const answer = await atProvider(client, authorizeUrl, { email });
      if (answer.location?.includes('flow=')) await flowAfterRedirect(ctx, client, answer, 'settings');
    },
  },
  {
    name: 'oidc settings link (browser form): 303 to the provider and back to the settings UI',
    async run(ctx) {
      const { client } = await signedInBrowser(ctx);
      const email = providerAccount('google');
      const flow = await navigateToFlow(ctx, client, 'settings');
      const { authorizeUrl } = await submitOidc(client, flow, { method: 'oidc', link: 'google' }, 'form');
      const answer = await atProvider(client, authorizeUrl, { email });
      await flowAfterRedirect(ctx, client, answer, 'settings');
    },
  },
  {
    name: 'oidc settings: link and unlink together (400), an unknown provider, an already linked one, unlinking the last way in',
    async run(ctx) {
      const email = providerAccount('google');
      const client = ctx.browser();
      // Registered with the provider, then signed in with it (whether registering alone signs in depends on the registration's oidc hooks).
      await socialSignIn(ctx, ctx.browser(), 'registration', 'google', email, { record: false });
      await socialSignIn(ctx, client, 'login', 'google', email, { record: false });
      const flow = await createFlow(ctx, client, 'settings');
      await submitJson(client, flow, { method: 'oidc', link: 'dropbox', unlink: 'google' });
      await submitJson(client, flow, { method: 'oidc', link: 'myspace' });
      await submitJson(client, flow, { method: 'oidc', link: 'google' });
      await submitJson(client, flow, { method: 'oidc', unlink: 'google' });
      await submitJson(client, flow, { method: 'oidc', unlink: 'dropbox' });
      await getFlow(ctx, client, 'settings', flow.id);
    },
  },
  {
    name: 'oidc settings link and unlink past privileged_session_max_age: 403 session_refresh_required',
    config: TINY_PRIVILEGE,
    async run(ctx) {
      const { client } = await signedInBrowser(ctx);
      const session = await client.getJson(ctx.pub('/sessions/whoami'), { record: false });
      await until(Date.parse((session.body as { authenticated_at: string }).authenticated_at) + 1_100);
      const flow = await createFlow(ctx, client, 'settings');
      await submitJson(client, flow, { method: 'oidc', link: 'google' });
      const form = await navigateToFlow(ctx, client, 'settings');
      await submitOidc(client, form, { method: 'oidc', link: 'google' }, 'form');
      await submitJson(client, flow, { method: 'oidc', unlink: 'google' });
    },
  },
];
