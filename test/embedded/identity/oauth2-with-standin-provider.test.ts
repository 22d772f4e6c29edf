// The identity stand-in with the embedded OAuth2 provider (embedded/oauth2) instead of real Hydra, as
// `npm start` and the app's stand-in test stacks run them: the password sign-in on a challenge, the
// remembered login accepted at once, and the provider's logout ending the identity session.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser } from './helpers.ts';
import {
  authorize,
  csrfOf,
  finishAtHydra,
  flowJson,
  loginRequest,
  logoutAtHydra,
  registerClient,
  startOAuth2Stack,
  type Client,
  type OAuth2Stack,
} from './oauth2-support.ts';

let stack: OAuth2Stack;
let client: Client;
beforeAll(async () => {
  stack = await startOAuth2Stack({ provider: 'stand-in' });
  client = await registerClient(stack);
});
afterAll(async () => {
  await stack?.close();
});

const PASSWORD = 'a long enough passphrase';

describe('identity stand-in + embedded OAuth2 provider', () => {
  it('password sign-in on a challenge, a remembered login accepted at once, the provider logout ends the session', async () => {
    const email = `standin.${process.pid}.${Date.now().toString(36)}@example.com`;
    const created = await fetch(`${stack.adminUrl}/admin/identities`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        schema_id: 'default',
        traits: { email, name: 'Ada' },
        verifiable_addresses: [{ value: email, verified: true, via: 'email', status: 'completed' }],
        credentials: { password: { config: { password: PASSWORD } } },
      }),
    });
    const id = ((await created.json()) as { id: string }).id;
    const b = new Browser();
    const challenge = await authorize(stack, b, client);
    const { data: flow } = await flowJson(b, stack.pub(`/self-service/login/browser?login_challenge=${encodeURIComponent(challenge)}`));
    expect(flow.oauth2_login_challenge).toBe(challenge);
    expect(flow.oauth2_login_request.client.client_id).toBe(client.client_id);
    const submitted = await b.post(stack.pub(`/self-service/login?flow=${flow.id}`), {
      method: 'password',
      identifier: email,
      password: PASSWORD,
      csrf_token: csrfOf(flow),
    });
    expect(submitted.status).toBe(303);
    expect((await finishAtHydra(stack, b, client, submitted.headers.get('location')!)).idTokenSubject).toBe(id);

    const again = await authorize(stack, b, client);
    expect(await loginRequest(stack, again)).toMatchObject({ skip: true, subject: id });
    const skipped = await b.get(stack.pub(`/self-service/login/browser?login_challenge=${encodeURIComponent(again)}`));
    expect(skipped.status).toBe(303);
    expect((await finishAtHydra(stack, b, client, skipped.headers.get('location')!)).idTokenSubject).toBe(id);

    expect((await flowJson(b, stack.pub('/sessions/whoami'))).status).toBe(200);
    await logoutAtHydra(stack, b);
    expect((await flowJson(b, stack.pub('/sessions/whoami'))).status).toBe(401);
  });
});
