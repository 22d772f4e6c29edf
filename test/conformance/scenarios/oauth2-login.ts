// Login and registration flows answering a Hydra login challenge (contract §15, Kratos v1.3.1 with
// oauth2_provider.url): the flow JSON (oauth2_login_challenge, oauth2_login_request), the accept after a
// password sign-in or sign-up (303 for a browser, 422 for the app's JSON), a remembered login accepted
// at once, a login Hydra wants repeated made a refresh, bad challenges, and the refusal without the
// setting. Hydra's side (authorize, consent) is set-up and not recorded.
import type { Client } from '../client.ts';
import type { ScenarioContext } from '../harness.ts';
import type { ScenarioConfig } from '../targets.ts';
import { atProvider, providerAccount, socialSignIn, submitOidc } from './oidc-steps.ts';
import { asFlow, createFlow, getFlow, mailedCode, newIdentity, signIn, STRONG_PASSWORD, submitForm, submitJson, uniqueEmail } from './steps.ts';

export type OAuth2Context = ScenarioContext & { hydra: { publicUrl: string; adminUrl: string } };
export type OAuth2Scenario = {
  name: string;
  /** Services of its own with this configuration. */
  config?: ScenarioConfig;
  /** Run on services without oauth2_provider.url (and without Hydra). */
  unwired?: boolean;
  /** With the embedded sign-in providers (oidcFixture), on services of its own. */
  social?: boolean;
  run(ctx: OAuth2Context): Promise<void>;
};

const REDIRECT = 'http://app.conformance.test:3000/callback';
const enc = encodeURIComponent;

/** An OAuth2 client at this target's Hydra (not recorded). */
async function oauth2Client(ctx: OAuth2Context): Promise<string> {
  const response = await fetch(`${ctx.hydra.adminUrl}/admin/clients`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [REDIRECT], grant_types: ['authorization_code'], response_types: ['code'], scope: 'openid email' }),
  });
  if (response.status !== 201) throw new Error(`client registration at Hydra: ${response.status}`);
  return ((await response.json()) as { client_id: string }).client_id;
}

/** The browser starts an authorization at Hydra (not recorded): the login challenge it is sent to the login UI with. */
async function challengeFor(ctx: OAuth2Context, browser: Client, clientId: string): Promise<string> {
  const query = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    scope: 'openid email',
    redirect_uri: REDIRECT,
    state: 'state-of-at-least-eight',
  });
  const answer = await browser.get(`${ctx.hydra.publicUrl}/oauth2/auth?${query}`, { record: false });
  const challenge = answer.location ? new URL(answer.location).searchParams.get('login_challenge') : null;
  if (!challenge) throw new Error(`Hydra did not send the browser to the login UI: ${answer.status} ${answer.location ?? ''}`);
  return challenge;
}

/** From the identity service's redirect_to on through Hydra's consent (accepted and remembered through its admin API), not recorded. */
async function throughConsent(ctx: OAuth2Context, browser: Client, redirectTo: string): Promise<void> {
  const afterLogin = await browser.get(redirectTo, { record: false });
  const consent = afterLogin.location ? new URL(afterLogin.location).searchParams.get('consent_challenge') : null;
  if (!consent) throw new Error(`expected Hydra's consent redirect, got ${afterLogin.status} ${afterLogin.location ?? ''}`);
  const accepted = await fetch(`${ctx.hydra.adminUrl}/admin/oauth2/auth/requests/consent/accept?consent_challenge=${enc(consent)}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_scope: ['openid', 'email'], remember: true }),
  });
  const done = await browser.get(((await accepted.json()) as { redirect_to: string }).redirect_to, { record: false });
  if (!done.location?.startsWith(`${REDIRECT}?code=`)) throw new Error(`expected the client's callback with a code, got ${done.status} ${done.location ?? ''}`);
}

const redirectOf = (body: unknown): string => String((body as { redirect_browser_to?: unknown }).redirect_browser_to ?? '');

/** The stored error a browser was sent to the error UI with, read as the error page would. */
async function storedError(ctx: OAuth2Context, browser: Client, location: string | undefined): Promise<void> {
  const id = location ? new URL(location).searchParams.get('id') : null;
  if (!id) throw new Error(`expected a redirect to the error UI, got ${location ?? 'none'}`);
  await browser.getJson(ctx.pub(`/self-service/errors?id=${id}`));
}

/** The browser signs out of the identity service (its logout flow), not recorded. */
async function signOut(ctx: OAuth2Context, browser: Client): Promise<void> {
  const logout = await browser.getJson(ctx.pub('/self-service/logout/browser'), { record: false });
  await browser.get(String((logout.body as { logout_url?: unknown }).logout_url), { record: false });
}

const SIGN_IN_ON_SIGN_UP: ScenarioConfig = { selfservice: { flows: { registration: { after: { password: { hooks: [{ hook: 'session' }] } } } } } };

export const oauth2LoginScenarios: OAuth2Scenario[] = [
  {
    name: 'oauth2: a login flow for a challenge — created (JSON), read again, and created by a browser navigation',
    async run(ctx) {
      const clientId = await oauth2Client(ctx);
      const browser = ctx.browser();
      const challenge = await challengeFor(ctx, browser, clientId);
      const flow = await createFlow(ctx, browser, 'login', `?login_challenge=${enc(challenge)}&return_to=${enc(`${ctx.target.appUrl}/after`)}`);
      await getFlow(ctx, browser, 'login', flow.id);
      await browser.get(ctx.pub(`/self-service/login/browser?login_challenge=${enc(challenge)}`), { variant: 'browser' });
      // A native (API) login flow parses the challenge too, without asking the provider.
      await ctx.admin.getJson(ctx.pub(`/self-service/login/api?login_challenge=${enc(challenge)}`));
    },
  },
  {
    name: 'oauth2: password login (JSON) accepts the challenge — 422 browser_location_change_required, then whoami',
    async run(ctx) {
      const identity = await newIdentity(ctx);
      const clientId = await oauth2Client(ctx);
      const browser = ctx.browser();
      const flow = await createFlow(ctx, browser, 'login', `?login_challenge=${enc(await challengeFor(ctx, browser, clientId))}`);
      const answer = await submitJson(browser, flow, { method: 'password', identifier: identity.email, password: STRONG_PASSWORD });
      await browser.getJson(ctx.pub('/sessions/whoami'));
      await throughConsent(ctx, browser, redirectOf(answer.body));
    },
  },
  {
    name: 'oauth2: password login (browser form) accepts the challenge — 303 to Hydra',
    async run(ctx) {
      const identity = await newIdentity(ctx);
      const clientId = await oauth2Client(ctx);
      const browser = ctx.browser();
      const flow = await createFlow(ctx, browser, 'login', `?login_challenge=${enc(await challengeFor(ctx, browser, clientId))}`);
      const answer = await submitForm(browser, flow, { identifier: identity.email, password: STRONG_PASSWORD, method: 'password' });
      await throughConsent(ctx, browser, answer.location ?? '');
    },
  },
  {
    name: 'oauth2: registration for a challenge (session hook) — created, read, a browser sign-up accepts it (303), a JSON sign-up does not',
    config: SIGN_IN_ON_SIGN_UP,
    async run(ctx) {
      const clientId = await oauth2Client(ctx);
      const browser = ctx.browser();
      const flow = await createFlow(ctx, browser, 'registration', `?login_challenge=${enc(await challengeFor(ctx, browser, clientId))}`);
      await getFlow(ctx, browser, 'registration', flow.id);
      const traits = (tag: string): [string, string][] => [
        ['traits.email', uniqueEmail(tag)],
        ['traits.name', 'Grace Hopper'],
      ];
      const answer = await submitForm(browser, flow, [...traits('oauth2-form'), ['password', STRONG_PASSWORD], ['method', 'password']]);
      await throughConsent(ctx, browser, answer.location ?? '');
      const app = ctx.browser();
      const second = await createFlow(ctx, app, 'registration', `?login_challenge=${enc(await challengeFor(ctx, app, clientId))}`);
      await submitJson(app, second, {
        method: 'password',
        traits: Object.fromEntries(traits('oauth2-json').map(([k, v]) => [k.slice(7), v])),
        password: STRONG_PASSWORD,
      });
    },
  },
  {
    name: 'oauth2: registration for a challenge (show_verification_ui) — the verification UI first; verifying in the browser accepts it (303, session cookie)',
    async run(ctx) {
      const clientId = await oauth2Client(ctx);
      const browser = ctx.browser();
      const flow = await createFlow(ctx, browser, 'registration', `?login_challenge=${enc(await challengeFor(ctx, browser, clientId))}`);
      const email = uniqueEmail('oauth2-verify');
      const answer = await submitForm(browser, flow, [
        ['traits.email', email],
        ['traits.name', 'Grace Hopper'],
        ['password', STRONG_PASSWORD],
        ['method', 'password'],
      ]);
      const verificationId = answer.location ? new URL(answer.location).searchParams.get('flow') : null;
      if (!verificationId) throw new Error(`expected the verification UI, got ${answer.status} ${answer.location ?? ''}`);
      const verification = asFlow(await getFlow(ctx, browser, 'verification', verificationId));
      const verified = await submitForm(browser, verification, { method: 'code', code: await mailedCode(ctx, email) });
      await browser.getJson(ctx.pub('/sessions/whoami'));
      await throughConsent(ctx, browser, verified.location ?? '');
    },
  },
  {
    name: 'oauth2: a remembered login (skip) with a session — accepted at once: login JSON 200 null, browser 303; registration the same',
    async run(ctx) {
      const identity = await newIdentity(ctx);
      const clientId = await oauth2Client(ctx);
      const browser = ctx.browser();
      const flow = await createFlow(ctx, browser, 'login', `?login_challenge=${enc(await challengeFor(ctx, browser, clientId))}`, { record: false });
      const signedIn = await submitJson(browser, flow, { method: 'password', identifier: identity.email, password: STRONG_PASSWORD }, { record: false });
      await throughConsent(ctx, browser, redirectOf(signedIn.body));
      // Hydra keeps one login CSRF cookie per browser and client: each redirect_to is followed before the next authorization.
      await browser.getJson(ctx.pub(`/self-service/login/browser?login_challenge=${enc(await challengeFor(ctx, browser, clientId))}`));
      await browser.getJson(ctx.pub(`/self-service/registration/browser?login_challenge=${enc(await challengeFor(ctx, browser, clientId))}`));
      for (const kind of ['login', 'registration']) {
        const challenge = await challengeFor(ctx, browser, clientId);
        const navigated = await browser.get(ctx.pub(`/self-service/${kind}/browser?login_challenge=${enc(challenge)}`), { variant: 'browser' });
        await throughConsent(ctx, browser, navigated.location ?? '');
      }
    },
  },
  {
    name: 'oauth2: a session Hydra does not remember (no skip) — a refresh login flow; registration redirects to login (302); the refresh accepts it',
    async run(ctx) {
      const identity = await newIdentity(ctx);
      const clientId = await oauth2Client(ctx);
      const browser = ctx.browser();
      await signIn(ctx, browser, identity.email);
      const challenge = await challengeFor(ctx, browser, clientId);
      const flow = await createFlow(ctx, browser, 'login', `?login_challenge=${enc(challenge)}`);
      await browser.getJson(ctx.pub(`/self-service/registration/browser?login_challenge=${enc(challenge)}&return_to=${enc(`${ctx.target.appUrl}/x`)}`));
      const answer = await submitJson(browser, flow, { method: 'password', identifier: identity.email, password: STRONG_PASSWORD });
      await throughConsent(ctx, browser, redirectOf(answer.body));
    },
  },
  {
    name: 'oauth2: Hydra remembers one identity, another signs in — the accept answers a redirect_to with prompt=login (JSON 422, browser 303)',
    async run(ctx) {
      const [first, second] = [await newIdentity(ctx), await newIdentity(ctx)];
      const clientId = await oauth2Client(ctx);
      const browser = ctx.browser();
      const flow = await createFlow(ctx, browser, 'login', `?login_challenge=${enc(await challengeFor(ctx, browser, clientId))}`, { record: false });
      const signedIn = await submitJson(browser, flow, { method: 'password', identifier: first.email, password: STRONG_PASSWORD }, { record: false });
      await throughConsent(ctx, browser, redirectOf(signedIn.body));
      // Signed out of the identity service only: Hydra still remembers the first identity (skip=true), and
      // answers an accept for another subject with a new authorization that asks for a login.
      await signOut(ctx, browser);
      const json = await createFlow(ctx, browser, 'login', `?login_challenge=${enc(await challengeFor(ctx, browser, clientId))}`);
      await submitJson(browser, json, { method: 'password', identifier: second.email, password: STRONG_PASSWORD });
      await signOut(ctx, browser);
      const form = await createFlow(ctx, browser, 'login', `?login_challenge=${enc(await challengeFor(ctx, browser, clientId))}`);
      await submitForm(browser, form, { identifier: second.email, password: STRONG_PASSWORD, method: 'password' });
    },
  },
  {
    name: 'oauth2 + social: a new account signs up from a login flow for a challenge (the sign-up keeps it) — 303 to Hydra',
    social: true,
    async run(ctx) {
      const email = providerAccount('google');
      const clientId = await oauth2Client(ctx);
      const browser = ctx.browser();
      const flow = await createFlow(ctx, browser, 'login', `?login_challenge=${enc(await challengeFor(ctx, browser, clientId))}`);
      const { authorizeUrl } = await submitOidc(browser, flow, { method: 'oidc', provider: 'google' }, 'form');
      const callback = await atProvider(browser, authorizeUrl, { email });
      await browser.getJson(ctx.pub('/sessions/whoami'));
      await throughConsent(ctx, browser, callback.location ?? '');
    },
  },
  {
    name: 'oauth2 + social: a sign-up flow for a challenge, the account exists — the login it turns into has no challenge (v1.3.1), nothing accepted',
    social: true,
    async run(ctx) {
      const email = providerAccount('google');
      await socialSignIn(ctx, ctx.browser(), 'login', 'google', email, { record: false });
      const clientId = await oauth2Client(ctx);
      const browser = ctx.browser();
      const flow = await createFlow(ctx, browser, 'registration', `?login_challenge=${enc(await challengeFor(ctx, browser, clientId))}`);
      const { authorizeUrl } = await submitOidc(browser, flow, { method: 'oidc', provider: 'google' }, 'form');
      await atProvider(browser, authorizeUrl, { email });
      await browser.getJson(ctx.pub('/sessions/whoami'));
    },
  },
  {
    name: 'oauth2: a challenge Hydra does not know, and an empty one — refused (JSON; a browser to the error UI)',
    async run(ctx) {
      const browser = ctx.browser();
      for (const kind of ['login', 'registration']) {
        await browser.getJson(ctx.pub(`/self-service/${kind}/browser?login_challenge=not-a-challenge`));
        const navigated = await browser.get(ctx.pub(`/self-service/${kind}/browser?login_challenge=not-a-challenge`), { variant: 'browser' });
        await storedError(ctx, browser, navigated.location);
        await browser.getJson(ctx.pub(`/self-service/${kind}/browser?login_challenge=`));
      }
    },
  },
  {
    name: 'oauth2: login_challenge without oauth2_provider.url — 500 (JSON; a browser to the error UI)',
    unwired: true,
    async run(ctx) {
      const browser = ctx.browser();
      for (const kind of ['login', 'registration']) {
        await browser.getJson(ctx.pub(`/self-service/${kind}/browser?login_challenge=abc`));
        const navigated = await browser.get(ctx.pub(`/self-service/${kind}/browser?login_challenge=abc`), { variant: 'browser' });
        await storedError(ctx, browser, navigated.location);
      }
      await ctx.admin.getJson(ctx.pub('/self-service/login/api?login_challenge=abc'));
    },
  },
];
