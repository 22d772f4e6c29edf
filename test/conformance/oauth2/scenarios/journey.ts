// The authorization code journey with a scripted login/consent UI (contract ory-hydra.md §1–3, §5):
// the whole round with the tokens used afterwards; the remembered second round (skip=true at login and
// consent); another subject accepted on a skipped login; what the login UI is told (oidc_context,
// audience, prompt=registration); a rejected login and a rejected consent, as the client receives them.
import type { OAuth2Scenario } from '../harness.ts';
import {
  authorizeUrl,
  decide,
  exchangeCode,
  fromLocation,
  getRequest,
  introspect,
  journey,
  navigate,
  redirectTo,
  registerClient,
  token,
  tokensOf,
  userinfo,
} from './steps.ts';

export const journeyScenarios: OAuth2Scenario[] = [
  {
    name: 'authorization code: login → consent → code → token → userinfo → introspect → refresh → revoke',
    async run(ctx) {
      const client = await registerClient(ctx);
      const browser = ctx.browser();
      const { code } = await journey(ctx, browser, client, {
        subject: 'subject-journey',
        login: { remember: false, acr: 'urn:conformance:pwd', amr: ['pwd'], context: { via: 'password' } },
      });
      const tokens = tokensOf(await exchangeCode(ctx, client, code));
      await userinfo(ctx, tokens.access_token);
      await introspect(ctx, tokens.access_token);
      await introspect(ctx, tokens.refresh_token ?? '');
      await introspect(ctx, tokens.id_token ?? '');
      const refreshed = tokensOf(await token(ctx, client, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token ?? '' }));
      await introspect(ctx, tokens.access_token);
      await introspect(ctx, refreshed.access_token);
      await ctx.admin.postForm(ctx.pub('/oauth2/revoke'), { token: refreshed.access_token }, { headers: { authorization: basicOf(client) } });
      await introspect(ctx, refreshed.access_token);
      await introspect(ctx, refreshed.refresh_token ?? '');
      await ctx.admin.postForm(
        ctx.pub('/oauth2/revoke'),
        { token: refreshed.refresh_token ?? '', token_type_hint: 'refresh_token' },
        { headers: { authorization: basicOf(client) } },
      );
      await introspect(ctx, refreshed.refresh_token ?? '');
      await userinfo(ctx, refreshed.access_token);
    },
  },
  {
    name: 'remembered: a second round skips login and consent (skip=true), then prompt=none, prompt=login and prompt=consent',
    async run(ctx) {
      const client = await registerClient(ctx);
      const browser = ctx.browser();
      await journey(ctx, browser, client, {
        subject: 'subject-remembered',
        login: { remember: true, remember_for: 3600 },
        consent: { remember: true, remember_for: 3600 },
      });
      // The UI sees skip=true and accepts at once, with the same subject.
      await journey(ctx, browser, client, { subject: 'subject-remembered', login: { remember: true }, consent: { remember: true } });
      await journey(ctx, browser, client, { subject: 'subject-remembered', params: { prompt: 'none' } });
      const forced = await navigate(browser, authorizeUrl(ctx, client, { prompt: 'login' }));
      await getRequest(ctx, 'login', fromLocation(forced, 'login_challenge'));
      // prompt=consent: the login is still skipped, the consent asked again (skip=false).
      await journey(ctx, browser, client, { subject: 'subject-remembered', params: { prompt: 'consent' } });
      // Another browser has no remembered login.
      const other = await navigate(ctx.browser(), authorizeUrl(ctx, client));
      await getRequest(ctx, 'login', fromLocation(other, 'login_challenge'));
    },
  },
  {
    name: 'remembered login and max_age: max_age=0 and a max_age the login is within',
    async run(ctx) {
      const client = await registerClient(ctx);
      const browser = ctx.browser();
      await journey(ctx, browser, client, { subject: 'subject-max-age', login: { remember: true, remember_for: 3600 } });
      for (const maxAge of ['0', '3600']) {
        const answer = await navigate(browser, authorizeUrl(ctx, client, { max_age: maxAge }));
        await getRequest(ctx, 'login', fromLocation(answer, 'login_challenge'));
      }
    },
  },
  {
    name: 'remembered login accepted with another subject: redirect_to asks for a new login (prompt=login)',
    async run(ctx) {
      const client = await registerClient(ctx);
      const browser = ctx.browser();
      await journey(ctx, browser, client, { subject: 'subject-first', login: { remember: true, remember_for: 3600 } });
      const second = fromLocation(await navigate(browser, authorizeUrl(ctx, client)), 'login_challenge');
      await getRequest(ctx, 'login', second);
      const accepted = await decide(ctx, 'login', second, 'accept', { subject: 'subject-second' });
      const again = await navigate(browser, redirectTo(accepted));
      await getRequest(ctx, 'login', fromLocation(again, 'login_challenge'));
    },
  },
  {
    name: 'what the login UI is told: oidc_context (login_hint, ui_locales, acr_values, display), max_age, audience; prompt=registration; authorize as a form post',
    async run(ctx) {
      const client = await registerClient(ctx, { audience: ['https://api.conformance.test'] });
      const browser = ctx.browser();
      const params = {
        login_hint: 'someone@example.com',
        ui_locales: 'vi fr',
        acr_values: 'urn:conformance:pwd urn:conformance:mfa',
        display: 'popup',
        max_age: '60',
        audience: 'https://api.conformance.test',
      };
      await journey(ctx, browser, client, { subject: 'subject-context', params, consent: { grant_access_token_audience: ['https://api.conformance.test'] } });
      await getRequest(ctx, 'login', fromLocation(await navigate(browser, authorizeUrl(ctx, client, { prompt: 'registration' })), 'login_challenge'));
      await navigate(browser, authorizeUrl(ctx, client, { audience: 'https://elsewhere.conformance.test' }));
      // The authorize request as a form post (OIDC Core §3.1.2.1 allows POST).
      const posted = await browser.postForm(ctx.pub('/oauth2/auth'), [...new URL(authorizeUrl(ctx, client)).searchParams]);
      await getRequest(ctx, 'login', fromLocation(posted, 'login_challenge'));
    },
  },
  {
    name: 'a client with skip_consent and skip_logout_consent: the provider only shows the flags to the UI (consent skip stays false)',
    async run(ctx) {
      const client = await registerClient(ctx, { skip_consent: true, skip_logout_consent: true });
      const browser = ctx.browser();
      const login = fromLocation(await navigate(browser, authorizeUrl(ctx, client)), 'login_challenge');
      const accepted = await decide(ctx, 'login', login, 'accept', { subject: 'subject-skip-consent', remember: true });
      const consent = fromLocation(await navigate(browser, redirectTo(accepted)), 'consent_challenge');
      await getRequest(ctx, 'consent', consent);
      const granted = { grant_scope: ['openid'], remember: true, remember_for: 0 };
      const callback = await navigate(browser, redirectTo(await decide(ctx, 'consent', consent, 'accept', granted)));
      const idToken = tokensOf(await exchangeCode(ctx, client, fromLocation(callback, 'code'))).id_token ?? '';
      const logout = fromLocation(await navigate(browser, ctx.pub(`/oauth2/sessions/logout?id_token_hint=${idToken}`)), 'logout_challenge');
      await getRequest(ctx, 'logout', logout);
    },
  },
  {
    name: 'login rejected (access_denied with a description, and the default error): what the client receives',
    async run(ctx) {
      const client = await registerClient(ctx);
      const browser = ctx.browser();
      const first = fromLocation(await navigate(browser, authorizeUrl(ctx, client)), 'login_challenge');
      const rejected = await decide(ctx, 'login', first, 'reject', {
        error: 'access_denied',
        error_description: 'The user said no.',
        error_hint: 'Ask again.',
      });
      await navigate(browser, redirectTo(rejected));
      const second = fromLocation(await navigate(browser, authorizeUrl(ctx, client)), 'login_challenge');
      const byDefault = await decide(ctx, 'login', second, 'reject', {});
      await navigate(browser, redirectTo(byDefault));
      await getRequest(ctx, 'login', second);
    },
  },
  {
    name: 'consent rejected (access_denied with a description, and the default error): what the client receives',
    async run(ctx) {
      const client = await registerClient(ctx);
      const browser = ctx.browser();
      for (const body of [{ error: 'access_denied', error_description: 'Not these scopes.' }, {}]) {
        const login = fromLocation(await navigate(browser, authorizeUrl(ctx, client)), 'login_challenge');
        const accepted = await decide(ctx, 'login', login, 'accept', { subject: 'subject-consent-reject' });
        const consent = fromLocation(await navigate(browser, redirectTo(accepted)), 'consent_challenge');
        const rejected = await decide(ctx, 'consent', consent, 'reject', body);
        await navigate(browser, redirectTo(rejected));
        await getRequest(ctx, 'consent', consent);
      }
    },
  },
];

const basicOf = (client: { client_id: string; client_secret?: string }) =>
  `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret ?? '')}`).toString('base64')}`;
