// OIDC sign-up and sign-in (contract social-oauth2 §1.4): registering with a provider (the mapper's
// traits, a verified address when the provider says so, a session from the registration's oidc hooks),
// signing in with it afterwards, the login ↔ registration conversions, and a provider account whose
// e-mail already has an account: Kratos's account-linking login flow (1010016, the identifier hidden,
// other providers relabelled 1010018, `no_org_ui`), linking on the password sign-in, 4010009 when the
// sign-in is another identity's.
import type { Scenario } from '../harness.ts';
import { atProvider, flowAfterRedirect, identityByEmail, providerAccount, socialSignIn, submitOidc } from './oidc-steps.ts';
import { createFlow, getFlow, navigateToFlow, newIdentity, signIn, STRONG_PASSWORD, submitJson, submitForm, uniqueEmail } from './steps.ts';

const withOidc = '?include_credential=oidc';

export const oidcAccountScenarios: Scenario[] = [
  {
    name: 'oidc registration (browser form): to the provider and back signed in at the return URL; whoami and the identity',
    async run(ctx) {
      const email = providerAccount('google', { name: 'Ada Lovelace-Byron, Countess of Lovelace' });
      const client = ctx.browser();
      const flow = await navigateToFlow(ctx, client, 'registration', `?return_to=${encodeURIComponent(`${ctx.target.appUrl}/after`)}`);
      const { authorizeUrl } = await submitOidc(client, flow, { method: 'oidc', provider: 'google' }, 'form');
      await atProvider(client, authorizeUrl, { email });
      await client.getJson(ctx.pub('/sessions/whoami'));
      await identityByEmail(ctx, email);
    },
  },
  {
    name: 'oidc login after registering: straight in; a registration flow with a known account signs in too',
    async run(ctx) {
      const email = providerAccount('google');
      await socialSignIn(ctx, ctx.browser(), 'registration', 'google', email, { record: false });
      const client = ctx.browser();
      await socialSignIn(ctx, client, 'login', 'google', email);
      await client.getJson(ctx.pub('/sessions/whoami'));
      const other = ctx.browser();
      await socialSignIn(ctx, other, 'registration', 'google', email);
      await other.getJson(ctx.pub('/sessions/whoami'));
    },
  },
  {
    name: 'oidc login with an account nobody registered becomes a registration (return_to kept)',
    async run(ctx) {
      const email = providerAccount('dropbox');
      const client = ctx.browser();
      await socialSignIn(ctx, client, 'login', 'dropbox', email, { query: `?return_to=${encodeURIComponent(`${ctx.target.appUrl}/after`)}` });
      await client.getJson(ctx.pub('/sessions/whoami'));
      // Kratos also gives a provider's identity a password credential identified by the schema's identifier (no password).
      await identityByEmail(ctx, email);
    },
  },
  {
    name: 'oidc registration with an unverified provider address, then a sign-in with it (require_verified_address)',
    async run(ctx) {
      const email = providerAccount('google', { emailVerified: false });
      const client = ctx.browser();
      await socialSignIn(ctx, client, 'registration', 'google', email);
      await client.getJson(ctx.pub('/sessions/whoami'));
      const later = ctx.browser();
      const answer = await socialSignIn(ctx, later, 'login', 'google', email);
      if (answer.location?.includes('flow=')) await flowAfterRedirect(ctx, later, answer, 'login');
      await later.getJson(ctx.pub('/sessions/whoami'));
    },
  },
  ...(['microsoft', 'apple'] as const).map((provider): Scenario => ({
    name:
      provider === 'microsoft'
        ? 'oidc registration with Microsoft (no email_verified claim; Entra’s xms_edov verifies the address)'
        : 'oidc registration with Apple (email_verified as a string; the name only in the callback’s user parameter)',
    async run(ctx) {
      const email = providerAccount(provider);
      const client = ctx.browser();
      const flow = await createFlow(ctx, client, 'registration', '', { record: false });
      const { authorizeUrl } = await submitOidc(client, flow, { method: 'oidc', provider }, 'json', { record: false });
      await atProvider(client, authorizeUrl, { email });
      await identityByEmail(ctx, email);
    },
  })),
  {
    name: 'oidc registration: an address the schema refuses gives the Continue form (1040003, traits filled in); completing it registers',
    async run(ctx) {
      const email = providerAccount('google', { email: uniqueEmail('oidc-continue').replace('@example.com', '@exa_mple.com') });
      const client = ctx.browser();
      const answer = await socialSignIn(ctx, client, 'registration', 'google', email);
      const form = await flowAfterRedirect(ctx, client, answer, 'registration');
      const corrected = uniqueEmail('oidc-corrected');
      const { authorizeUrl } = await submitOidc(client, form, { method: 'oidc', provider: 'google', traits: { email: corrected, name: 'Grace' } });
      await atProvider(client, authorizeUrl, { email });
      await client.getJson(ctx.pub('/sessions/whoami'));
    },
  },
  {
    name: 'oidc: signed in meanwhile, the callback of an earlier attempt goes to the return URL',
    async run(ctx) {
      const identity = await newIdentity(ctx);
      const email = providerAccount('google');
      const client = ctx.browser();
      const flow = await createFlow(ctx, client, 'login');
      const { authorizeUrl } = await submitOidc(client, flow, { method: 'oidc', provider: 'google' });
      await signIn(ctx, client, identity.email);
      await atProvider(client, authorizeUrl, { email });
      await client.getJson(ctx.pub('/sessions/whoami'));
    },
  },
  {
    name: 'oidc refresh: the re-authentication flow of a provider identity offers its provider only, and asks the provider for prompt=login',
    async run(ctx) {
      const email = providerAccount('google');
      await socialSignIn(ctx, ctx.browser(), 'registration', 'google', email, { record: false });
      const client = ctx.browser();
      await socialSignIn(ctx, client, 'login', 'google', email, { record: false });
      const refresh = await createFlow(ctx, client, 'login', '?refresh=true');
      const { authorizeUrl } = await submitOidc(client, refresh, { method: 'oidc', provider: 'google' });
      await atProvider(client, authorizeUrl, { email });
      await client.getJson(ctx.pub('/sessions/whoami'));
    },
  },
  {
    name: 'oidc account linking: a provider address that has an account gives the linking login flow; the password sign-in links; next time the provider signs straight in',
    async run(ctx) {
      const identity = await newIdentity(ctx);
      providerAccount('google', { email: identity.email });
      const client = ctx.browser();
      const flow = await createFlow(ctx, client, 'registration');
      const { authorizeUrl } = await submitOidc(client, flow, { method: 'oidc', provider: 'google', transient_payload: { campaign: 'spring' } });
      const answer = await atProvider(client, authorizeUrl, { email: identity.email });
      const linking = await flowAfterRedirect(ctx, client, answer, 'login');
      await submitJson(client, linking, { method: 'password', identifier: identity.email, password: STRONG_PASSWORD });
      await client.getJson(ctx.pub('/sessions/whoami'));
      await ctx.admin.getJson(ctx.adm(`/admin/identities/${identity.id}${withOidc}`));
      const later = ctx.browser();
      await socialSignIn(ctx, later, 'login', 'google', identity.email);
      await later.getJson(ctx.pub('/sessions/whoami'));
    },
  },
  {
    name: 'oidc account linking from a login flow (browser form), and a sign-in as another identity is refused (4010009)',
    async run(ctx) {
      const identity = await newIdentity(ctx);
      const stranger = await newIdentity(ctx);
      providerAccount('dropbox', { email: identity.email });
      const client = ctx.browser();
      const flow = await navigateToFlow(ctx, client, 'login');
      const { authorizeUrl } = await submitOidc(client, flow, { method: 'oidc', provider: 'dropbox' }, 'form');
      const answer = await atProvider(client, authorizeUrl, { email: identity.email });
      const linking = await flowAfterRedirect(ctx, client, answer, 'login');
      await submitForm(client, linking, { identifier: stranger.email, password: STRONG_PASSWORD, method: 'password' });
      await getFlow(ctx, client, 'login', linking.id);
      await client.getJson(ctx.pub('/sessions/whoami'));
      await ctx.admin.getJson(ctx.adm(`/admin/identities/${stranger.id}${withOidc}`));
    },
  },
];
