// A password sign-up on a Hydra login challenge with the product's registration hooks
// (show_verification_ui, no session hook), against real Hydra v2.3.0: as in Kratos v1.3.1, the browser
// is first shown the verification UI; the verification flow keeps the challenge and the sign-up's
// session, and verifying in the browser accepts the challenge, issues that session's cookie and sends
// the browser to Hydra. A JSON caller (the app) verifying gets the flow and no accept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeIn, latestMail, Browser } from './helpers.ts';
import { authorize, csrfOf, finishAtHydra, flowJson, registerClient, startOAuth2Stack, type Client, type OAuth2Stack } from './oauth2-support.ts';
import { hydraAvailable } from '../../../scripts/ory/hydra.ts';

/** These run against real Hydra v2.3.0; without its binary they are skipped, as the real-Ory projects are. */
const describeWithHydra = describe.skipIf(!hydraAvailable());

let stack: OAuth2Stack;
let client: Client;
beforeAll(async () => {
  if (!hydraAvailable()) return; // real Hydra not built (npm run ory:build): the suites below are skipped
  stack = await startOAuth2Stack();
  client = await registerClient(stack);
});
afterAll(async () => {
  await stack?.close();
});

let seq = 0;
const freshEmail = () => `verify.${process.pid}.${++seq}.${Date.now().toString(36)}@example.com`;

/** A browser sign-up (form post) on a flow for a new challenge: the verification flow's id it is sent to. */
async function signUp(b: Browser, email: string): Promise<string> {
  const challenge = await authorize(stack, b, client);
  const { data: flow } = await flowJson(b, stack.pub(`/self-service/registration/browser?login_challenge=${encodeURIComponent(challenge)}`));
  const submitted = await b.post(stack.pub(`/self-service/registration?flow=${flow.id}`), {
    method: 'password',
    'traits.email': email,
    'traits.name': 'Grace Hopper',
    password: 'a long enough passphrase',
    csrf_token: csrfOf(flow),
  });
  expect(submitted.status).toBe(303);
  const location = new URL(submitted.headers.get('location')!);
  expect(location.pathname).toMatch(/verification/); // the verification UI, not Hydra yet
  expect((await flowJson(b, stack.pub('/sessions/whoami'))).status).toBe(401); // no session hook
  return location.searchParams.get('flow')!;
}

describeWithHydra('sign-up on a challenge, then verification', () => {
  it('verifying in the browser accepts the challenge: the session cookie and a 303 to Hydra', async () => {
    const b = new Browser();
    const email = freshEmail();
    const flowId = await signUp(b, email);
    const { data: flow } = await flowJson(b, stack.pub(`/self-service/verification/flows?id=${flowId}`));
    expect(flow.oauth2_login_challenge).toBeUndefined(); // kept, never shown
    const code = codeIn((await latestMail(stack.adminUrl, email)).body);
    const verified = await b.post(stack.pub(`/self-service/verification?flow=${flowId}`), { method: 'code', code, csrf_token: csrfOf(flow) });
    expect(verified.status).toBe(303);
    const session = await flowJson(b, stack.pub('/sessions/whoami'));
    expect(session.status).toBe(200);
    expect(session.data.identity.traits.email).toBe(email);
    expect((await finishAtHydra(stack, b, client, verified.headers.get('location')!)).idTokenSubject).toBe(session.data.identity.id);
  });

  it('a JSON caller verifying gets the flow (passed_challenge) and nothing is accepted', async () => {
    const b = new Browser();
    const email = freshEmail();
    const flowId = await signUp(b, email);
    const { data: flow } = await flowJson(b, stack.pub(`/self-service/verification/flows?id=${flowId}`));
    const code = codeIn((await latestMail(stack.adminUrl, email)).body);
    const r = await fetch(stack.pub(`/self-service/verification?flow=${flowId}`), {
      method: 'POST',
      redirect: 'manual',
      headers: { accept: 'application/json', 'content-type': 'application/json', cookie: b.jar.header() },
      body: JSON.stringify({ method: 'code', code, csrf_token: csrfOf(flow) }),
    });
    expect(r.status).toBe(200);
    expect(((await r.json()) as { state: string }).state).toBe('passed_challenge');
    expect((await flowJson(b, stack.pub('/sessions/whoami'))).status).toBe(401);
  });
});
