// OIDC (contract social-oauth2 §1.1–1.3): submitting method=oidc on login and registration flows (JSON
// 422 browser_location_change_required and form 303 to the provider, each with the continuity cookie),
// the provider's authorize URL (state, PKCE, redirect_uri, the forwarded upstream_parameters), an
// unknown provider, and every callback failure in the order Kratos checks them.
//
// The authorize URLs are compared with the Dropbox fake, which is `generic` on both sides; the other
// providers are the stand-in's real types and real Kratos's generic ones (see scripts/ory/kratos-oidc.ts).
import type { Answer, Client } from '../client.ts';
import type { Scenario, ScenarioContext } from '../harness.ts';
import { atProvider, flowAfterRedirect, providerAccount, queryOf, returnToCallback, submitOidc } from './oidc-steps.ts';
import { createFlow, getFlow, navigateToFlow } from './steps.ts';
import { signInAtProvider } from '../../support/providers.ts';

/** Reads the error the browser was sent to the error UI with (`{app}/error?id=`), as the app's error page does. */
async function readError(ctx: ScenarioContext, client: Client, answer: Answer): Promise<void> {
  const id = answer.location ? new URL(answer.location).searchParams.get('id') : null;
  if (id) await client.getJson(ctx.pub(`/self-service/errors?id=${id}`));
}

const callback = (provider: string, query: Record<string, string>) =>
  `/self-service/methods/oidc/callback/${provider}?${new URLSearchParams(query).toString()}`;

export const oidcScenarios: Scenario[] = [
  {
    name: 'oidc submit (JSON): login and registration answer 422 browser_location_change_required with the continuity cookie',
    async run(ctx) {
      const client = ctx.browser();
      const login = await createFlow(ctx, client, 'login');
      await submitOidc(client, login, { method: 'oidc', provider: 'dropbox' });
      await getFlow(ctx, client, 'login', login.id);
      const registration = await createFlow(ctx, client, 'registration');
      await submitOidc(client, registration, { method: 'oidc', provider: 'dropbox' });
      await getFlow(ctx, client, 'registration', registration.id);
    },
  },
  {
    name: 'oidc submit (browser form): 303 to the provider with the continuity cookie; provider without method',
    async run(ctx) {
      const client = ctx.browser();
      const login = await navigateToFlow(ctx, client, 'login');
      await submitOidc(client, login, { provider: 'dropbox' }, 'form');
      const registration = await navigateToFlow(ctx, client, 'registration');
      // Kratos reads form fields with dots as JSON paths (upstream_parameters.login_hint).
      await submitOidc(
        client,
        registration,
        { method: 'oidc', provider: 'dropbox', 'upstream_parameters.login_hint': 'ada@example.com', 'upstream_parameters.foo': 'x' },
        'form',
      );
    },
  },
  {
    name: 'oidc submit: another method with a provider is not oidc’s; an unknown provider is 404',
    async run(ctx) {
      const client = ctx.browser();
      const login = await createFlow(ctx, client, 'login');
      await submitOidc(client, login, { method: 'password', provider: 'dropbox', identifier: 'x@example.com', password: 'x' });
      await submitOidc(client, login, { method: 'oidc', provider: 'myspace' });
      const form = await navigateToFlow(ctx, client, 'registration');
      await submitOidc(client, form, { method: 'oidc', provider: 'myspace' }, 'form');
      await getFlow(ctx, client, 'registration', form.id);
    },
  },
  {
    name: 'oidc submit: upstream_parameters forwards login_hint, hd, prompt and auth_type only; transient_payload is accepted',
    async run(ctx) {
      const client = ctx.browser();
      const login = await createFlow(ctx, client, 'login');
      await submitOidc(client, login, {
        method: 'oidc',
        provider: 'dropbox',
        upstream_parameters: {
          login_hint: 'ada@example.com',
          hd: 'example.com',
          prompt: 'select_account',
          auth_type: 'reauthenticate',
          acr_values: 'urn:x',
          foo: 'bar',
        },
        transient_payload: { campaign: 'spring' },
      });
      const registration = await createFlow(ctx, client, 'registration');
      await submitOidc(client, registration, { method: 'oidc', provider: 'dropbox', upstream_parameters: { prompt: 'login' } });
    },
  },
  {
    name: 'oidc callback: no state, an undecryptable state (JSON and browser)',
    async run(ctx) {
      const client = ctx.browser();
      await client.get(ctx.pub(callback('google', { code: 'abc' })), { variant: 'browser' });
      await client.getJson(ctx.pub(callback('google', { code: 'abc' })));
      await client.get(ctx.pub(callback('google', { code: 'abc', state: 'not-a-state' })), { variant: 'browser' });
      await client.getJson(ctx.pub(callback('google', { code: 'abc', state: 'not-a-state' })));
    },
  },
  {
    name: 'oidc callback: the state of another provider (provider mismatch)',
    async run(ctx) {
      const client = ctx.browser();
      const flow = await createFlow(ctx, client, 'login');
      const { authorizeUrl } = await submitOidc(client, flow, { method: 'oidc', provider: 'google' });
      await client.get(ctx.pub(callback('dropbox', { code: 'abc', state: queryOf(authorizeUrl, 'state') })), { variant: 'browser' });
    },
  },
  {
    name: 'oidc callback: without the continuity cookie, and with another attempt’s cookie',
    async run(ctx) {
      const email = providerAccount('google');
      const client = ctx.browser();
      const flow = await createFlow(ctx, client, 'login');
      const { authorizeUrl } = await submitOidc(client, flow, { method: 'oidc', provider: 'google' });
      const back = await signInAtProvider(authorizeUrl!, { email });
      // Another browser (no continuity cookie) brings the provider's answer.
      await returnToCallback(ctx.browser(), back);
      // The same browser started again: its cookie now holds the second attempt's state.
      const again = await createFlow(ctx, client, 'login');
      await submitOidc(client, again, { method: 'oidc', provider: 'google' });
      const answer = await returnToCallback(client, back);
      if (answer.location?.includes('flow=')) await flowAfterRedirect(ctx, client, answer, 'login');
    },
  },
  {
    name: 'oidc callback: the provider’s error (the person cancelled) goes back to the flow with the message',
    async run(ctx) {
      const client = ctx.browser();
      const login = await createFlow(ctx, client, 'login');
      const { authorizeUrl } = await submitOidc(client, login, { method: 'oidc', provider: 'google' });
      const answer = await atProvider(client, authorizeUrl, { cancel: true });
      await flowAfterRedirect(ctx, client, answer, 'login');
      const registration = await createFlow(ctx, client, 'registration');
      const second = await submitOidc(client, registration, { method: 'oidc', provider: 'google' });
      const cancelled = await atProvider(client, second.authorizeUrl, { cancel: true });
      await flowAfterRedirect(ctx, client, cancelled, 'registration');
    },
  },
  {
    name: 'oidc callback: the right state without a code',
    async run(ctx) {
      const client = ctx.browser();
      const login = await createFlow(ctx, client, 'login');
      const { authorizeUrl } = await submitOidc(client, login, { method: 'oidc', provider: 'google' });
      const answer = await client.get(ctx.pub(callback('google', { state: queryOf(authorizeUrl, 'state') })), { variant: 'browser' });
      await flowAfterRedirect(ctx, client, answer, 'login');
    },
  },
  {
    name: 'oidc callback: a code the provider refuses at its token endpoint (never issued; already redeemed)',
    async run(ctx) {
      const client = ctx.browser();
      const login = await createFlow(ctx, client, 'login');
      const { authorizeUrl } = await submitOidc(client, login, { method: 'oidc', provider: 'google' });
      const forged = await client.get(ctx.pub(callback('google', { code: 'not-a-code-the-provider-issued', state: queryOf(authorizeUrl, 'state') })), {
        variant: 'browser',
      });
      await readError(ctx, client, forged);
      await getFlow(ctx, client, 'login', login.id);
      // A real code, redeemed by the sign-in it ended (the callback's `iss` naming another issuer: Kratos never
      // reads it), then brought back again once the browser is signed out.
      const again = await createFlow(ctx, client, 'login');
      const second = await submitOidc(client, again, { method: 'oidc', provider: 'google' });
      const back = await signInAtProvider(second.authorizeUrl!, { email: providerAccount('google') });
      const mixedUp = new URL(back.url);
      mixedUp.searchParams.set('iss', 'https://issuer.mix-up.example');
      await returnToCallback(client, { method: 'GET', url: mixedUp.href });
      client.jar.cookies.delete('ory_kratos_session');
      await readError(ctx, client, await returnToCallback(client, back));
    },
  },
  {
    name: 'oidc callback: a form post (Apple’s form_post) is sent back as a GET with the fields in the query',
    async run(ctx) {
      // Real Kratos has Apple as generic, which asks for no form_post: the post is made here, not by the provider.
      const client = ctx.browser();
      await client.postForm(ctx.pub('/self-service/methods/oidc/callback/apple'), { code: 'abc', state: 'opaque' });
      await client.postForm(ctx.pub('/self-service/methods/oidc/callback/apple'), {
        error: 'access_denied',
        error_description: 'user cancelled',
        state: 'opaque',
      });
    },
  },
];
