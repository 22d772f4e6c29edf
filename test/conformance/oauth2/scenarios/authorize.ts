// The authorize endpoint's refusals and PKCE (contract ory-hydra.md §1, §5.1–5.2): a state too
// short, an unknown client and an unregistered redirect URI (the ERROR_URL, not the client), prompt=none
// without a session, a scope the client may not ask for; a public client with PKCE on a loopback
// redirect with any port (RFC 8252 §7.3), a PKCE mismatch, a public client without PKCE, and a code
// used twice.
import type { OAuth2Scenario } from '../harness.ts';
import { authorizeUrl, exchangeCode, introspect, journey, navigate, pkce, registerClient, token, tokensOf } from './steps.ts';

export const authorizeScenarios: OAuth2Scenario[] = [
  {
    name: 'authorize refused: state too short, unknown client, unregistered redirect_uri, no response_type, unknown scope, prompt=none without a session',
    async run(ctx) {
      const client = await registerClient(ctx);
      const browser = ctx.browser();
      await navigate(browser, authorizeUrl(ctx, client, { state: 'short' }));
      await navigate(browser, authorizeUrl(ctx, client, { state: '' }));
      await navigate(browser, authorizeUrl(ctx, { ...client, client_id: 'no-such-client' }));
      await navigate(browser, authorizeUrl(ctx, client, { redirect_uri: 'http://evil.conformance.test/callback' }));
      await navigate(browser, authorizeUrl(ctx, client, { response_type: '' }));
      await navigate(browser, authorizeUrl(ctx, client, { scope: 'openid admin' }));
      await navigate(browser, authorizeUrl(ctx, client, { prompt: 'none' }));
      await navigate(browser, authorizeUrl(ctx, client, { response_type: 'token' }));
    },
  },
  {
    name: 'redirect_uri left out (one registered, with and without openid; two registered); a nonce too short (refused only at the token endpoint)',
    async run(ctx) {
      const one = await registerClient(ctx);
      await navigate(ctx.browser(), authorizeUrl(ctx, one, { redirect_uri: '' }));
      // Without openid it is plain OAuth 2.0, where one registered URI may be left out.
      await navigate(ctx.browser(), authorizeUrl(ctx, one, { redirect_uri: '', scope: 'offline_access' }));
      const two = await registerClient(ctx, { redirect_uris: [one.redirect_uri, 'http://client.conformance.test/second'] });
      await navigate(ctx.browser(), authorizeUrl(ctx, two, { redirect_uri: '' }));
      const { code } = await journey(ctx, ctx.browser(), one, { subject: 'subject-nonce', params: { nonce: 'short' } });
      await exchangeCode(ctx, one, code);
    },
  },
  {
    name: 'public client with PKCE on a loopback redirect with any port (RFC 8252): code → token, no secret',
    async run(ctx) {
      const client = await registerClient(ctx, {
        token_endpoint_auth_method: 'none',
        redirect_uris: ['http://127.0.0.1/callback'],
        post_logout_redirect_uris: [],
        grant_types: ['authorization_code', 'refresh_token'],
      });
      const loopback = { ...client, redirect_uri: 'http://127.0.0.1:51234/callback' };
      const { verifier, challenge } = pkce();
      const { code } = await journey(ctx, ctx.browser(), loopback, {
        subject: 'subject-public',
        params: { code_challenge: challenge, code_challenge_method: 'S256' },
      });
      const tokens = tokensOf(
        await token(
          ctx,
          loopback,
          { grant_type: 'authorization_code', code, redirect_uri: loopback.redirect_uri, client_id: client.client_id, code_verifier: verifier },
          {},
        ),
      );
      await introspect(ctx, tokens.access_token);
      await token(ctx, loopback, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token ?? '', client_id: client.client_id }, {});
      // localhost is not a loopback literal: its port must match.
      await navigate(
        ctx.browser(),
        authorizeUrl(ctx, { ...client, redirect_uri: 'http://localhost:51234/callback' }, { code_challenge: challenge, code_challenge_method: 'S256' }),
      );
    },
  },
  {
    name: 'PKCE: a wrong verifier, no verifier, and a public client without a code challenge',
    async run(ctx) {
      const client = await registerClient(ctx, { token_endpoint_auth_method: 'none' });
      const { challenge } = pkce();
      const params = { code_challenge: challenge, code_challenge_method: 'S256' };
      const first = await journey(ctx, ctx.browser(), client, { subject: 'subject-pkce', params });
      await token(
        ctx,
        client,
        { grant_type: 'authorization_code', code: first.code, redirect_uri: client.redirect_uri, client_id: client.client_id, code_verifier: pkce().verifier },
        {},
      );
      const second = await journey(ctx, ctx.browser(), client, { subject: 'subject-pkce', params });
      await token(ctx, client, { grant_type: 'authorization_code', code: second.code, redirect_uri: client.redirect_uri, client_id: client.client_id }, {});
      await navigate(ctx.browser(), authorizeUrl(ctx, client));
      await navigate(ctx.browser(), authorizeUrl(ctx, client, { code_challenge: challenge, code_challenge_method: 'S512' }));
    },
  },
  {
    name: 'a code used twice: invalid_grant, and the tokens of the first use are revoked',
    async run(ctx) {
      const client = await registerClient(ctx);
      const { code } = await journey(ctx, ctx.browser(), client, { subject: 'subject-code-reuse' });
      const tokens = tokensOf(await exchangeCode(ctx, client, code));
      await exchangeCode(ctx, client, code);
      await introspect(ctx, tokens.access_token);
      await introspect(ctx, tokens.refresh_token ?? '');
      // A code for another redirect URI, and a code that never was.
      const other = await journey(ctx, ctx.browser(), client, { subject: 'subject-code-reuse' });
      await exchangeCode(ctx, client, other.code, { redirect_uri: 'http://client.conformance.test/other' });
      await exchangeCode(ctx, client, 'ory_ac_never-issued.signature');
    },
  },
];
