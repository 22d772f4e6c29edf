// The identity stand-in's OAuth2 provider integration (Kratos v1.3.1 `oauth2_provider.url`, contract
// §15) against a REAL Hydra v2.3.0: flows carry the login challenge and Hydra's login request, a password
// sign-in or sign-up accepts the challenge and sends the browser back to Hydra, a remembered login is
// accepted at once, a login Hydra wants repeated is a refresh, bad challenges are refused as Kratos
// refuses them, and Hydra's logout ends the stand-in's session (DELETE /admin/sessions/{id}).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP, Browser } from './helpers.ts';
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
import { hydraAvailable } from '../../../scripts/ory/hydra.ts';

/** These run against real Hydra v2.3.0; without its binary they are skipped, as the real-Ory projects are. */
const describeWithHydra = describe.skipIf(!hydraAvailable());

let stack: OAuth2Stack;
let client: Client;
beforeAll(async () => {
  if (!hydraAvailable()) return; // real Hydra not built (npm run ory:build): the suites below are skipped
  stack = await startOAuth2Stack({ config: { selfservice: { flows: { registration: { after: { password: { hooks: [{ hook: 'session' }] } } } } } } });
  client = await registerClient(stack);
});
afterAll(async () => {
  await stack?.close();
});

const PASSWORD = 'a long enough passphrase';
let seq = 0;
const freshEmail = (tag: string) => `${tag}.${process.pid}.${++seq}.${Date.now().toString(36)}@example.com`;

async function person(): Promise<{ id: string; email: string }> {
  const email = freshEmail('oauth2');
  const r = await fetch(`${stack.adminUrl}/admin/identities`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      schema_id: 'default',
      traits: { email, name: 'Ada Lovelace' },
      verifiable_addresses: [{ value: email, verified: true, via: 'email', status: 'completed' }],
      credentials: { password: { config: { password: PASSWORD } } },
    }),
  });
  expect(r.status).toBe(201);
  return { id: ((await r.json()) as { id: string }).id, email };
}

const whoami = async (b: Browser) => flowJson(b, stack.pub('/sessions/whoami'));

/** A login flow for the challenge as a browser gets it (303 to the login UI), then its JSON as the app reads it. */
async function loginFlowFor(b: Browser, challenge: string) {
  const created = await b.get(stack.pub(`/self-service/login/browser?login_challenge=${encodeURIComponent(challenge)}`));
  expect(created.status).toBe(303);
  const location = new URL(created.headers.get('location')!);
  expect(`${location.origin}${location.pathname}`).toBe(`${APP}/sign-in`);
  const { status, data } = await flowJson(b, stack.pub(`/self-service/login/flows?id=${location.searchParams.get('flow')}`));
  expect(status).toBe(200);
  return data;
}

describeWithHydra('password sign-in through a Hydra login challenge', () => {
  it('the flow shows the challenge and login request; the form post accepts it (303 to Hydra) and the ID token names the identity', async () => {
    const p = await person();
    const b = new Browser();
    const challenge = await authorize(stack, b, client);
    const flow = await loginFlowFor(b, challenge);
    expect(flow.oauth2_login_challenge).toBe(challenge);
    expect(flow.oauth2_login_request).toMatchObject({ challenge, skip: false, subject: '', requested_scope: ['openid', 'offline_access'] });
    expect(flow.oauth2_login_request.client.client_id).toBe(client.client_id);
    expect(Object.keys(flow.oauth2_login_request)).toEqual([...Object.keys(flow.oauth2_login_request)].sort()); // relayed as hydra-client-go writes it
    // Hydra asked for a login (skip=false): the request is made a refresh, which without a session stays false.
    expect(new URL(flow.request_url).searchParams.get('refresh')).toBe('true');
    expect(flow.refresh).toBe(false);

    const submitted = await b.post(stack.pub(`/self-service/login?flow=${flow.id}`), {
      method: 'password',
      identifier: p.email,
      password: PASSWORD,
      csrf_token: csrfOf(flow),
    });
    expect(submitted.status).toBe(303);
    const session = await whoami(b);
    expect(session.status).toBe(200);
    const result = await finishAtHydra(stack, b, client, submitted.headers.get('location')!);
    expect(result.consentSubject).toBe(p.id);
    expect(result.idTokenSubject).toBe(p.id);
    expect(result.amr).toEqual(['password']);
  });

  it('a JSON submit (the app) gets 422 browser_location_change_required with redirect_browser_to', async () => {
    const p = await person();
    const b = new Browser();
    const challenge = await authorize(stack, b, client);
    const flow = await loginFlowFor(b, challenge);
    const r = await fetch(stack.pub(`/self-service/login?flow=${flow.id}`), {
      method: 'POST',
      redirect: 'manual',
      headers: { accept: 'application/json', 'content-type': 'application/json', cookie: b.jar.header() },
      body: JSON.stringify({ method: 'password', identifier: p.email, password: PASSWORD, csrf_token: csrfOf(flow) }),
    });
    b.jar.absorb(r.headers.getSetCookie());
    expect(r.status).toBe(422);
    const body = (await r.json()) as { error: Record<string, unknown>; redirect_browser_to: string };
    expect(body.error).toEqual({
      id: 'browser_location_change_required',
      code: 422,
      status: 'Unprocessable Entity',
      reason: `In order to complete this flow please redirect the browser to: ${body.redirect_browser_to}`,
      message: 'browser location change required',
    });
    expect((await finishAtHydra(stack, b, client, body.redirect_browser_to)).idTokenSubject).toBe(p.id);
  });

  it('a remembered login (skip=true) with a session is accepted at once: 303 to Hydra, or 200 null for JSON; Hydra logout then ends the session', async () => {
    const p = await person();
    const b = new Browser();
    const flow = await loginFlowFor(b, await authorize(stack, b, client));
    const submitted = await b.post(stack.pub(`/self-service/login?flow=${flow.id}`), {
      method: 'password',
      identifier: p.email,
      password: PASSWORD,
      csrf_token: csrfOf(flow),
    });
    await finishAtHydra(stack, b, client, submitted.headers.get('location')!);

    const again = await authorize(stack, b, client);
    expect(await loginRequest(stack, again)).toMatchObject({ skip: true, subject: p.id });
    const asJson = await b.get(stack.pub(`/self-service/login/browser?login_challenge=${encodeURIComponent(again)}`), 'application/json');
    expect(asJson.status).toBe(200);
    expect(await asJson.text()).toBe('null');
    const third = await authorize(stack, b, client);
    const asBrowser = await b.get(stack.pub(`/self-service/login/browser?login_challenge=${encodeURIComponent(third)}`));
    expect(asBrowser.status).toBe(303);
    expect((await finishAtHydra(stack, b, client, asBrowser.headers.get('location')!)).idTokenSubject).toBe(p.id);
    // Registration with a remembered login: the same immediate accept.
    const fourth = await authorize(stack, b, client);
    const registration = await b.get(stack.pub(`/self-service/registration/browser?login_challenge=${encodeURIComponent(fourth)}`));
    expect(registration.status).toBe(303);
    expect(registration.headers.get('location')!.startsWith(`${stack.hydra.publicUrl}/oauth2/auth?`)).toBe(true);

    // Hydra's logout calls DELETE /admin/sessions/{identity_provider_session_id} on the stand-in.
    expect((await whoami(b)).status).toBe(200);
    await logoutAtHydra(stack, b);
    expect((await whoami(b)).status).toBe(401);
  });

  it('a session Hydra does not remember: login becomes a refresh; registration sends the browser to login (302, same query)', async () => {
    const p = await person();
    const b = new Browser();
    const plain = await flowJson(b, stack.pub('/self-service/login/browser'));
    const signedIn = await b.post(stack.pub(`/self-service/login?flow=${plain.data.id}`), {
      method: 'password',
      identifier: p.email,
      password: PASSWORD,
      csrf_token: csrfOf(plain.data),
    });
    expect(signedIn.status).toBe(303);
    const challenge = await authorize(stack, b, client);
    const flow = await loginFlowFor(b, challenge);
    expect(flow.refresh).toBe(true);
    expect(flow.ui.messages.map((m: { id: number }) => m.id)).toEqual([1010003]);
    const registration = await b.get(stack.pub(`/self-service/registration/browser?login_challenge=${encodeURIComponent(challenge)}`), 'application/json');
    expect(registration.status).toBe(302);
    expect(registration.headers.get('location')).toBe(stack.pub(`/self-service/login/browser?login_challenge=${encodeURIComponent(challenge)}`));
    // Re-entering the password accepts the challenge for the same identity, with both sign-ins as amr.
    const submitted = await b.post(stack.pub(`/self-service/login?flow=${flow.id}`), {
      method: 'password',
      identifier: p.email,
      password: PASSWORD,
      csrf_token: csrfOf(flow),
    });
    expect(submitted.status).toBe(303);
    const result = await finishAtHydra(stack, b, client, submitted.headers.get('location')!);
    expect(result.idTokenSubject).toBe(p.id);
    expect(result.amr).toEqual(['password', 'password']);
  });
});

describeWithHydra('password sign-up through a Hydra login challenge (session hook)', () => {
  it('the created flow has the challenge (the login request only when fetched); the form post accepts it for the new identity', async () => {
    const b = new Browser();
    const challenge = await authorize(stack, b, client);
    const created = await flowJson(b, stack.pub(`/self-service/registration/browser?login_challenge=${encodeURIComponent(challenge)}`));
    expect(created.status).toBe(200);
    expect(created.data.oauth2_login_challenge).toBe(challenge);
    expect(created.data.oauth2_login_request).toBeUndefined(); // v1.3.1 leaves it out of the creation answer
    const fetched = await flowJson(b, stack.pub(`/self-service/registration/flows?id=${created.data.id}`));
    expect(fetched.data.oauth2_login_request.client.client_id).toBe(client.client_id);
    const email = freshEmail('signup');
    const submitted = await b.post(stack.pub(`/self-service/registration?flow=${created.data.id}`), {
      method: 'password',
      'traits.email': email,
      'traits.name': 'Grace Hopper',
      password: PASSWORD,
      csrf_token: csrfOf(created.data),
    });
    expect(submitted.status).toBe(303);
    const session = await whoami(b);
    expect(session.data.identity.traits.email).toBe(email);
    expect((await finishAtHydra(stack, b, client, submitted.headers.get('location')!)).idTokenSubject).toBe(session.data.identity.id);
  });
});

describeWithHydra('challenges refused', () => {
  it('one Hydra does not know: 400 with its status (JSON), the error UI for a browser; an empty one: 400', async () => {
    const b = new Browser();
    const json = await flowJson(b, stack.pub('/self-service/login/browser?login_challenge=not-a-challenge'));
    expect(json.status).toBe(400);
    expect(json.data.error).toEqual({
      code: 400,
      status: 'Bad Request',
      reason: 'Unable to get OAuth 2.0 Login Challenge.',
      details: { oauth2_error_hint: '', status_code: 404 },
      message: 'The request was malformed or contained invalid parameters',
    });
    const registration = await flowJson(b, stack.pub('/self-service/registration/browser?login_challenge=not-a-challenge'));
    expect(registration.data.error.details).toEqual({ oauth2_error_hint: '', status_code: 404 });
    const browser = await b.get(stack.pub('/self-service/login/browser?login_challenge=not-a-challenge'));
    expect(browser.status).toBe(303);
    expect(browser.headers.get('location')).toMatch(new RegExp(`^${APP}/error\\?id=`));
    const empty = await flowJson(b, stack.pub('/self-service/login/browser?login_challenge='));
    expect(empty.status).toBe(400);
    expect(empty.data.error.reason).toBe('the login_challenge parameter is present but empty');
  });

  it('without oauth2_provider.url: 500 "refusing to parse login_challenge", the error UI for a browser', async () => {
    const unwired = await startOAuth2Stack({ wired: false });
    try {
      const b = new Browser();
      for (const kind of ['login', 'registration']) {
        const json = await flowJson(b, unwired.pub(`/self-service/${kind}/browser?login_challenge=abc`));
        expect(json.status).toBe(500);
        expect(json.data.error.reason).toBe('refusing to parse login_challenge query parameter because oauth2_provider.url is invalid or unset');
        const browser = await b.get(unwired.pub(`/self-service/${kind}/browser?login_challenge=abc`));
        expect(browser.status).toBe(303);
        expect(browser.headers.get('location')).toMatch(new RegExp(`^${APP}/error\\?id=`));
      }
    } finally {
      await unwired.close();
    }
  });
});
