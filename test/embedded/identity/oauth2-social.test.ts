// Social sign-in through a Hydra login challenge (real Hydra v2.3.0, the embedded sign-in providers):
// a new account signs up (the login flow becomes a registration that keeps the challenge, as v1.3.1's
// processLogin does) and a known one signs in, each accepting the challenge so the browser goes back to
// Hydra. A social sign-in started on a registration flow for an account that exists turns into a login
// flow without the challenge in v1.3.1 (registrationToLogin does not carry it), so nothing is accepted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAtProvider } from '../../support/providers.ts';
import { APP, Browser } from './helpers.ts';
import { authorize, csrfOf, finishAtHydra, flowJson, registerClient, startOAuth2Stack, type Client, type OAuth2Stack } from './oauth2-support.ts';
import { hydraAvailable } from '../../../scripts/ory/hydra.ts';

/** These run against real Hydra v2.3.0; without its binary they are skipped, as the real-Ory projects are. */
const describeWithHydra = describe.skipIf(!hydraAvailable());

let stack: OAuth2Stack;
let client: Client;
beforeAll(async () => {
  if (!hydraAvailable()) return; // real Hydra not built (npm run ory:build): the suites below are skipped
  // Social sign-up signs in at once (the oidc session hook), as the product's configuration has it.
  stack = await startOAuth2Stack({ social: true, config: { selfservice: { flows: { registration: { after: { oidc: { hooks: [{ hook: 'session' }] } } } } } } });
  client = await registerClient(stack);
});
afterAll(async () => {
  await stack?.close();
});

let seq = 0;
const freshEmail = (tag: string) => `${tag}.${process.pid}.${++seq}.${Date.now().toString(36)}@example.com`;

/** A flow of `kind` for the challenge, the provider chosen with a form post, the account chosen upstream: the callback's answer. */
async function socialThroughChallenge(b: Browser, kind: 'login' | 'registration', challenge: string, email: string): Promise<Response> {
  const { data: flow } = await flowJson(b, stack.pub(`/self-service/${kind}/browser?login_challenge=${encodeURIComponent(challenge)}`));
  expect(flow.oauth2_login_challenge).toBe(challenge);
  const submitted = await b.post(stack.pub(`/self-service/${kind}?flow=${flow.id}`), { method: 'oidc', provider: 'google', csrf_token: csrfOf(flow) });
  expect(submitted.status).toBe(303);
  const back = await signInAtProvider(submitted.headers.get('location')!, { email, name: 'Grace Hopper' });
  expect(back.method).toBe('GET');
  return b.get(back.url);
}

const whoami = async (b: Browser) => (await flowJson(b, stack.pub('/sessions/whoami'))).data;

describeWithHydra('social sign-in through a Hydra login challenge', () => {
  it('a new account: the login flow becomes a sign-up that keeps the challenge; the callback sends the browser back to Hydra', async () => {
    const b = new Browser();
    const email = freshEmail('social-new');
    const callback = await socialThroughChallenge(b, 'login', await authorize(stack, b, client), email);
    expect(callback.status).toBe(303);
    const session = await whoami(b);
    expect(session.identity.traits.email).toBe(email);
    const result = await finishAtHydra(stack, b, client, callback.headers.get('location')!);
    expect(result.idTokenSubject).toBe(session.identity.id);
    expect(result.amr).toEqual(['oidc']);
  });

  it('a known account: the social sign-in accepts the challenge for it', async () => {
    const email = freshEmail('social-known');
    const first = new Browser();
    const signedUp = await socialThroughChallenge(first, 'login', await authorize(stack, first, client), email);
    expect(signedUp.status).toBe(303);
    const id = (await whoami(first)).identity.id;

    const b = new Browser();
    const callback = await socialThroughChallenge(b, 'login', await authorize(stack, b, client), email);
    expect(callback.status).toBe(303);
    expect((await finishAtHydra(stack, b, client, callback.headers.get('location')!)).idTokenSubject).toBe(id);
  });

  it('a sign-up flow for an account that exists turns into a login without the challenge (v1.3.1): no accept, the default return URL', async () => {
    const email = freshEmail('social-switch');
    const first = new Browser();
    await socialThroughChallenge(first, 'login', await authorize(stack, first, client), email);

    const b = new Browser();
    const callback = await socialThroughChallenge(b, 'registration', await authorize(stack, b, client), email);
    expect(callback.status).toBe(303);
    expect(callback.headers.get('location')).toBe(`${APP}/`);
    expect((await whoami(b)).identity.traits.email).toBe(email);
  });
});
