// The admin API's answers to a login/consent UI that gets it wrong (contract ory-hydra.md §2.1–2.2,
// §3.1): a challenge decided already (real Hydra v2.3.0: no 410, unlike the contract), an unknown one
// (404), none (400), an empty subject, a malformed body, a replayed verifier.
import type { OAuth2Scenario } from '../harness.ts';
import { authorizeUrl, decide, fromLocation, getRequest, navigate, redirectTo, registerClient } from './steps.ts';

export const challengeScenarios: OAuth2Scenario[] = [
  {
    // Hydra v2.3.0 carries the login and consent request in the challenge itself, so it never sees
    // one as handled: read, accepted and rejected again, before or after the browser came back, it
    // answers 200 each time (no 410; the logout request, kept in its database, does give 410: see
    // logout.ts). A used consent verifier is refused (access_denied); a used login verifier leads to a
    // new consent request.
    name: 'decided challenges: read, accepted and rejected again before and after the browser came back (200, no 410 for login and consent); used verifiers brought back',
    async run(ctx) {
      const client = await registerClient(ctx);
      const browser = ctx.browser();
      const login = fromLocation(await navigate(browser, authorizeUrl(ctx, client)), 'login_challenge');
      const accepted = await decide(ctx, 'login', login, 'accept', { subject: 'subject-handled' });
      await getRequest(ctx, 'login', login);
      await decide(ctx, 'login', login, 'accept', { subject: 'subject-handled' });
      await decide(ctx, 'login', login, 'reject', { error: 'access_denied' });
      const consent = fromLocation(await navigate(browser, redirectTo(accepted)), 'consent_challenge');
      await getRequest(ctx, 'login', login);
      await decide(ctx, 'login', login, 'accept', { subject: 'subject-handled' });
      await decide(ctx, 'login', login, 'reject', {});
      const consented = await decide(ctx, 'consent', consent, 'accept', { grant_scope: ['openid'] });
      await getRequest(ctx, 'consent', consent);
      await decide(ctx, 'consent', consent, 'accept', { grant_scope: ['openid'] });
      await decide(ctx, 'consent', consent, 'reject', {});
      await navigate(browser, redirectTo(consented));
      await getRequest(ctx, 'consent', consent);
      await decide(ctx, 'consent', consent, 'accept', { grant_scope: ['openid'] });
      await decide(ctx, 'consent', consent, 'reject', {});
      // The verifiers, used once already, brought back by the browser.
      await navigate(browser, redirectTo(consented));
      await navigate(browser, redirectTo(accepted));
    },
  },
  {
    name: 'unknown challenges (404) and missing ones (400) on the login, consent and logout requests',
    async run(ctx) {
      for (const kind of ['login', 'consent', 'logout'] as const) {
        await getRequest(ctx, kind, 'not-a-challenge');
        await decide(ctx, kind, 'not-a-challenge', 'accept', { subject: 'x' });
        await decide(ctx, kind, 'not-a-challenge', 'reject', {});
        await ctx.admin.getJson(ctx.adm(`/admin/oauth2/auth/requests/${kind}`));
        await ctx.admin.request('PUT', ctx.adm(`/admin/oauth2/auth/requests/${kind}/accept`), { json: { subject: 'x' } });
        await ctx.admin.getJson(ctx.adm(`/admin/oauth2/auth/requests/${kind}?${kind}_challenge=`));
      }
      // The SDK's other spelling of the parameter.
      await ctx.admin.getJson(ctx.adm('/admin/oauth2/auth/requests/login?challenge=not-a-challenge'));
    },
  },
  {
    name: 'login accept with an empty or missing subject, and malformed bodies on login and consent accept (400)',
    async run(ctx) {
      const client = await registerClient(ctx);
      const browser = ctx.browser();
      const login = fromLocation(await navigate(browser, authorizeUrl(ctx, client)), 'login_challenge');
      await decide(ctx, 'login', login, 'accept', { subject: '' });
      await decide(ctx, 'login', login, 'accept', {});
      const bad = { variant: 'json' as const, headers: { 'content-type': 'application/json' }, raw: '{"subject":' };
      await ctx.admin.request('PUT', ctx.adm(`/admin/oauth2/auth/requests/login/accept?login_challenge=${encodeURIComponent(login)}`), bad);
      await ctx.admin.request('PUT', ctx.adm(`/admin/oauth2/auth/requests/login/reject?login_challenge=${encodeURIComponent(login)}`), bad);
      await getRequest(ctx, 'login', login);
      const accepted = await decide(ctx, 'login', login, 'accept', { subject: 'subject-bodies' });
      const consent = fromLocation(await navigate(browser, redirectTo(accepted)), 'consent_challenge');
      await ctx.admin.request('PUT', ctx.adm(`/admin/oauth2/auth/requests/consent/accept?consent_challenge=${encodeURIComponent(consent)}`), bad);
      await ctx.admin.request('PUT', ctx.adm(`/admin/oauth2/auth/requests/consent/reject?consent_challenge=${encodeURIComponent(consent)}`), bad);
      await decide(ctx, 'consent', consent, 'accept', { grant_scope: 'openid' });
      await getRequest(ctx, 'consent', consent);
    },
  },
  {
    name: 'a login verifier brought back by another browser (no CSRF cookie): what the client receives',
    async run(ctx) {
      const client = await registerClient(ctx);
      const login = fromLocation(await navigate(ctx.browser(), authorizeUrl(ctx, client)), 'login_challenge');
      const accepted = await decide(ctx, 'login', login, 'accept', { subject: 'subject-csrf' });
      await navigate(ctx.browser(), redirectTo(accepted));
    },
  },
];
