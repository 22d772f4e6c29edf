// Every failure of the social sign-in callback (Kratos v1.3.1 ValidateCallback and what follows) with its
// status and text: before the flow is known the browser goes to the error UI; a 400 afterwards is
// written into the flow (login: 303; registration: 302, its form reduced to the provider's "Continue").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestClock } from '../../../../embedded/clock.ts';
import { signInAtProvider } from '../../../support/providers.ts';
import { APP, Browser } from '../helpers.ts';
import { errorOf, freshEmail, getJson, startFlow, startOidcStack, submitToProvider, type OidcStack } from './support.ts';

const clock = createTestClock();
let s: OidcStack;
beforeAll(async () => {
  s = await startOidcStack({ clock });
});
afterAll(async () => {
  await s?.close();
});

const CALLBACK = '/self-service/methods/oidc/callback';

/** A started login (or registration) and the callback URL the provider sends the browser back to. */
async function comingBack(kind: 'login' | 'registration', provider: 'google' | 'dropbox' = 'google', email = freshEmail('cb')) {
  const b = new Browser();
  const { id } = await startFlow(s, b, kind);
  const url = await submitToProvider(s, b, kind, id, { provider });
  const back = await signInAtProvider(url, { email });
  return { b, id, url: new URL(back.url), authorizeUrl: url };
}

describe('before the flow is known: the error UI', () => {
  it('no state: 400', async () => {
    const r = await new Browser().get(s.pub(`${CALLBACK}/google?code=abc`));
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toMatch(new RegExp(`^${APP}/error\\?id=`));
    expect(await errorOf(s, r.headers.get('location'))).toMatchObject({
      code: 400,
      reason: 'Unable to complete OpenID Connect flow because the OpenID Provider did not return the state query parameter.',
    });
  });

  it('a state this service did not make, or changed on the way: 400 (JSON callers get the error itself)', async () => {
    const { b, url } = await comingBack('login');
    const state = url.searchParams.get('state')!;
    const changed = state.slice(0, -2) + (state.endsWith('00') ? '11' : '00');
    const r = await b.get(s.pub(`${CALLBACK}/google?code=x&state=${changed}`), 'application/json');
    expect(r.status).toBe(400);
    expect(((await r.json()) as any).error.reason).toBe('Unable to complete OpenID Connect flow because the state parameter is invalid.');
  });

  it("another provider's path for the state: 400 provider mismatch", async () => {
    const { b, url } = await comingBack('login');
    url.pathname = `${CALLBACK}/dropbox`;
    const r = await b.get(url.toString());
    expect((await errorOf(s, r.headers.get('location'))).reason).toBe(
      'Unable to complete OpenID Connect flow: provider mismatch between internal state and URL.',
    );
  });

  it('without the continuity cookie: 400 no resumable session; with another attempt’s: 400 state mismatch', async () => {
    const { b, url } = await comingBack('login');
    const bare = new Browser();
    const r = await bare.get(url.toString());
    expect(await errorOf(s, r.headers.get('location'))).toMatchObject({
      code: 400,
      message: 'no resumable session found',
      reason:
        "The browser does not contain the necessary cookie to resume the session. This is a security violation and was blocked. Please clear your browser's cookies and cache and try again!",
    });
    // A second attempt in the same browser: the cookie now names its container, not the first one's.
    const { id } = await startFlow(s, b, 'login');
    await submitToProvider(s, b, 'login', id, { provider: 'google' });
    const again = await b.get(url.toString());
    expect((await errorOf(s, again.headers.get('location'))).reason).toBe(
      'Unable to complete OpenID Connect flow because the query state parameter does not match the state parameter from the session cookie.',
    );
  });

  it('an expired flow: 410 self_service_flow_expired', async () => {
    const { b, url } = await comingBack('login');
    clock.advance(2 * 3600_000);
    const r = await b.get(url.toString());
    expect(await errorOf(s, r.headers.get('location'))).toMatchObject({ code: 410, id: 'self_service_flow_expired', message: 'self-service flow expired' });
  });
});

describe('written into the flow', () => {
  it('the provider’s error (the person cancelled): the login flow with 4000001, 303 back to it', async () => {
    const b = new Browser();
    const { id } = await startFlow(s, b, 'login');
    const url = await submitToProvider(s, b, 'login', id, { provider: 'google' });
    const back = await signInAtProvider(url, { cancel: true });
    const r = await b.get(back.url);
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toBe(`${APP}/sign-in?flow=${id}`);
    const flow = (await getJson(b, s.pub(`/self-service/login/flows?id=${id}`))).data;
    expect(flow.ui.messages).toEqual([
      expect.objectContaining({
        id: 4000001,
        type: 'error',
        text: expect.stringMatching(/^Unable to complete OpenID Connect flow because the OpenID Provider returned error "access_denied": /),
      }),
    ]);
    // The form is still the sign-in form.
    expect(flow.ui.nodes.some((n: any) => n.attributes.name === 'password')).toBe(true);
  });

  it('the same on a registration flow: 302, and the form is csrf_token and the provider’s "Continue" (1040003)', async () => {
    const b = new Browser();
    const { id } = await startFlow(s, b, 'registration');
    const url = await submitToProvider(s, b, 'registration', id, { provider: 'dropbox' });
    const r = await b.get((await signInAtProvider(url, { cancel: true })).url);
    expect(r.status).toBe(302);
    expect(r.headers.get('location')).toBe(`${APP}/sign-up?flow=${id}`);
    const flow = (await getJson(b, s.pub(`/self-service/registration/flows?id=${id}`))).data;
    expect(flow.ui.nodes.map((n: any) => [n.group, n.attributes.name, n.attributes.value ?? null, n.meta.label?.id ?? null])).toEqual([
      ['oidc', 'provider', 'dropbox', 1040003],
      ['default', 'csrf_token', expect.any(String), null],
    ]);
    expect(flow.ui.messages[0].id).toBe(4000001);
  });

  it('no code: 400 in the flow', async () => {
    const { b, id, url } = await comingBack('login');
    url.searchParams.delete('code');
    const r = await b.get(url.toString());
    expect(r.headers.get('location')).toBe(`${APP}/sign-in?flow=${id}`);
    const flow = (await getJson(b, s.pub(`/self-service/login/flows?id=${id}`))).data;
    expect(flow.ui.messages[0].text).toBe('Unable to complete OpenID Connect flow because the OpenID Provider did not return the code query parameter.');
  });

  it('a code the provider refuses (used twice): an internal error with oauth2’s words', async () => {
    const email = freshEmail('twice');
    const { b, url } = await comingBack('registration', 'google', email);
    expect((await b.get(url.toString())).status).toBe(303);
    // Signed in now: the same callback again just goes on to the return URL (alreadyAuthenticated).
    const again = await b.get(url.toString());
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toBe(`${APP}/`);
    // Signed out (the session cookie gone), the container still usable for a minute: the provider refuses the code.
    b.jar.cookies.delete('ory_kratos_session');
    const refused = await b.get(url.toString());
    expect(refused.status).toBe(303);
    const err = await errorOf(s, refused.headers.get('location'));
    expect(err.code).toBe(500);
    expect(err.message).toMatch(/^oauth2: "invalid_grant"/);
  });

  it('a code the provider never issued, brought without the provider’s iss: the same internal error, the flow untouched', async () => {
    // Kratos reads only code and state from the callback (golang.org/x/oauth2 knows no RFC 9207 `iss`), so
    // the token endpoint's refusal is what answers, not a check of the authorization response.
    const b = new Browser();
    const { id } = await startFlow(s, b, 'login');
    const state = new URL(await submitToProvider(s, b, 'login', id, { provider: 'google' })).searchParams.get('state')!;
    const r = await b.get(s.pub(`${CALLBACK}/google?code=not-a-code-the-provider-issued&state=${encodeURIComponent(state)}`));
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toMatch(new RegExp(`^${APP}/error\\?id=`));
    expect(await errorOf(s, r.headers.get('location'))).toMatchObject({ code: 500, message: 'oauth2: "invalid_grant" "grant request is invalid"' });
    expect((await getJson(b, s.pub(`/self-service/login/flows?id=${id}`))).data.ui.messages ?? []).toEqual([]);
  });

  it('an iss naming another issuer does not matter either: Kratos never reads it', async () => {
    const { b, url } = await comingBack('login');
    url.searchParams.set('iss', 'https://mix-up.example');
    const r = await b.get(url.toString());
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toBe(`${APP}/`);
  });
});

describe('pkce: force', () => {
  it('always sends a PKCE challenge and uses the generic callback, which takes the provider from the state', async () => {
    const forced = await startOidcStack({
      providers: (list) => list.map((p) => (p.id === 'dropbox' ? { ...p, pkce: 'force' as const } : p)),
    });
    try {
      const b = new Browser();
      const email = freshEmail('force');
      const { id } = await startFlow(forced, b, 'registration');
      const url = new URL(await submitToProvider(forced, b, 'registration', id, { provider: 'dropbox' }));
      expect(url.searchParams.get('redirect_uri')).toBe(forced.pub(CALLBACK));
      expect(url.searchParams.get('code_challenge_method')).toBe('S256');
      const back = await signInAtProvider(url.toString(), { email });
      expect(new URL(back.url).pathname).toBe(CALLBACK);
      const done = await b.get(back.url);
      expect(done.status).toBe(303);
      expect(done.headers.get('location')).toBe(`${APP}/`);
    } finally {
      await forced.close();
    }
  });

  it('pkce: never sends no challenge', async () => {
    const never = await startOidcStack({ providers: (list) => list.map((p) => ({ ...p, pkce: 'never' as const })) });
    try {
      const b = new Browser();
      const { id } = await startFlow(never, b, 'login');
      const url = new URL(await submitToProvider(never, b, 'login', id, { provider: 'google' }));
      expect(url.searchParams.has('code_challenge')).toBe(false);
      const done = await atProviderGet(b, url.toString(), freshEmail('never'));
      expect(done.status).toBe(303);
    } finally {
      await never.close();
    }
  });
});

async function atProviderGet(b: Browser, url: string, email: string): Promise<Response> {
  return b.get((await signInAtProvider(url, { email })).url);
}
