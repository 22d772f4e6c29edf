// Logout (contract ory-hydra.md §4): RP-initiated (id_token_hint, post_logout_redirect_uri, state)
// and OP-initiated; the logout request read, accepted (the browser sent on, the remembered login gone)
// and rejected; without a session; the validation of the hint and the post-logout URI.
import type { OAuth2Scenario, OAuth2ScenarioContext } from '../harness.ts';
import type { Client } from '../../client.ts';
import {
  authorizeUrl,
  decide,
  exchangeCode,
  fromLocation,
  getRequest,
  journey,
  navigate,
  POST_LOGOUT,
  redirectTo,
  registerClient,
  tokensOf,
  type RegisteredClient,
} from './steps.ts';

const LOGOUT_STATE = 'logout-state-1';

/** A browser with a remembered login at the provider, and the ID token its client got. */
async function signedIn(ctx: OAuth2ScenarioContext, client: RegisteredClient, subject: string): Promise<{ browser: Client; idToken: string }> {
  const browser = ctx.browser();
  const { code } = await journey(ctx, browser, client, { subject, login: { remember: true, remember_for: 3600 } });
  const tokens = tokensOf(await exchangeCode(ctx, client, code));
  return { browser, idToken: tokens.id_token ?? '' };
}

const logoutUrl = (ctx: OAuth2ScenarioContext, params: Record<string, string> = {}) => {
  const query = new URLSearchParams(params).toString();
  return ctx.pub(`/oauth2/sessions/logout${query ? `?${query}` : ''}`);
};

export const logoutScenarios: OAuth2Scenario[] = [
  {
    name: 'RP-initiated logout: hint + post_logout_redirect_uri + state → logout request → accept → back to the client; the login is no longer remembered',
    async run(ctx) {
      const client = await registerClient(ctx);
      const { browser, idToken } = await signedIn(ctx, client, 'subject-rp-logout');
      const started = await navigate(browser, logoutUrl(ctx, { id_token_hint: idToken, post_logout_redirect_uri: POST_LOGOUT, state: LOGOUT_STATE }));
      const challenge = fromLocation(started, 'logout_challenge');
      await getRequest(ctx, 'logout', challenge);
      const accepted = await decide(ctx, 'logout', challenge, 'accept', undefined);
      await navigate(browser, redirectTo(accepted));
      await getRequest(ctx, 'logout', challenge);
      await decide(ctx, 'logout', challenge, 'accept', undefined);
      // The logout verifier again, and a new authorize: no remembered login.
      await navigate(browser, redirectTo(accepted));
      await getRequest(ctx, 'login', fromLocation(await navigate(browser, authorizeUrl(ctx, client)), 'login_challenge'));
      // The same hint once the session is gone: straight to the post-logout URI.
      await navigate(browser, logoutUrl(ctx, { id_token_hint: idToken, post_logout_redirect_uri: POST_LOGOUT, state: LOGOUT_STATE }));
    },
  },
  {
    name: 'OP-initiated logout: rejected (204, nothing else), then accepted → the configured post-logout URL; without a session straight there',
    async run(ctx) {
      const client = await registerClient(ctx);
      const { browser } = await signedIn(ctx, client, 'subject-op-logout');
      const first = fromLocation(await navigate(browser, logoutUrl(ctx)), 'logout_challenge');
      await getRequest(ctx, 'logout', first);
      await decide(ctx, 'logout', first, 'reject', undefined);
      await getRequest(ctx, 'logout', first);
      // Still remembered after a rejected logout.
      await getRequest(ctx, 'login', fromLocation(await navigate(browser, authorizeUrl(ctx, client)), 'login_challenge'));
      const second = fromLocation(await browser.postForm(logoutUrl(ctx), {}), 'logout_challenge');
      const accepted = await decide(ctx, 'logout', second, 'accept', undefined);
      await navigate(browser, redirectTo(accepted));
      await navigate(browser, logoutUrl(ctx));
      await navigate(ctx.browser(), logoutUrl(ctx));
    },
  },
  {
    name: 'logout refused: an unlisted post_logout_redirect_uri, state or a URI without a hint, a malformed hint, another issuer’s hint',
    async run(ctx) {
      const client = await registerClient(ctx);
      const { browser, idToken } = await signedIn(ctx, client, 'subject-logout-errors');
      await navigate(browser, logoutUrl(ctx, { id_token_hint: idToken, post_logout_redirect_uri: 'http://evil.conformance.test/', state: LOGOUT_STATE }));
      await navigate(browser, logoutUrl(ctx, { post_logout_redirect_uri: POST_LOGOUT }));
      await navigate(browser, logoutUrl(ctx, { state: LOGOUT_STATE }));
      await navigate(browser, logoutUrl(ctx, { id_token_hint: 'not-a-jwt' }));
      const [header = '', claims = '', signature = ''] = idToken.split('.');
      const forged = JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')) as Record<string, unknown>;
      forged.iss = 'http://other-issuer.conformance.test/';
      await navigate(browser, logoutUrl(ctx, { id_token_hint: `${header}.${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${signature}` }));
      // The hint alone (no post-logout URI): the logout request, then the configured post-logout URL.
      const challenge = fromLocation(await navigate(browser, logoutUrl(ctx, { id_token_hint: idToken })), 'logout_challenge');
      await navigate(browser, redirectTo(await decide(ctx, 'logout', challenge, 'accept', undefined)));
    },
  },
];
