// Social sign-up and sign-in through the stand-in with each embedded provider, as form posts and as JSON:
// the upstream redirect, the callback, the identity the mapper makes, the session; Apple's form post sent
// back as a GET; login ↔ registration conversion; the refresh flow of a provider identity.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderId } from '../../../../embedded/providers/index.ts';
import { signInAtProvider } from '../../../support/providers.ts';
import { APP, Browser } from '../helpers.ts';
import {
  adminIdentityByEmail,
  atProvider,
  freshEmail,
  getJson,
  social,
  startFlow,
  startOidcStack,
  submitToProvider,
  whoami,
  type OidcStack,
} from './support.ts';

let s: OidcStack;
beforeAll(async () => {
  s = await startOidcStack();
});
afterAll(async () => {
  await s?.close();
});

const LOGIN_SERVICE: Record<ProviderId, string> = { google: 'GOOGLE', microsoft: 'MICROSOFT', dropbox: 'DROPBOX', apple: 'APPLE' };

describe.each(['google', 'microsoft', 'dropbox', 'apple'] as ProviderId[])('%s', (provider) => {
  it.each(['form', 'json'] as const)('signs up (%s submit), then signs in with the same account', async (as) => {
    const email = freshEmail(provider);
    const b = new Browser();
    const done = await social(s, b, 'registration', provider, email, { as });
    // The callback is a browser navigation: 303 to the return URL, signed in (the oidc session hook).
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`${APP}/`);
    const me = await whoami(s, b);
    expect(me.status).toBe(200);
    expect(me.data.authentication_methods).toEqual([expect.objectContaining({ method: 'oidc', aal: 'aal1', provider })]);
    expect(me.data.identity.traits).toMatchObject({ email, loginService: LOGIN_SERVICE[provider] });
    const identity = await adminIdentityByEmail(s, email);
    expect(identity.credentials.oidc.identifiers).toEqual([`${provider}:${identity.credentials.oidc.config.providers[0].subject}`]);
    expect(identity.credentials.oidc.config.providers[0]).toMatchObject({ provider, organization: '' });
    expect(identity.credentials.oidc.config.providers[0].initial_id_token).toMatch(/^ey/);
    // Kratos's schema extension: the e-mail is also the (password-less) password credential's identifier.
    expect(identity.credentials.password.identifiers).toEqual([email]);
    // Verified as the provider says (Microsoft sends no email_verified; the mapper reads its xms_edov).
    expect(identity.verifiable_addresses[0]).toMatchObject({ verified: true, status: 'completed' });

    const again = new Browser();
    const signedIn = await social(s, again, 'login', provider, email, { as });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe(`${APP}/`);
    expect((await whoami(s, again)).data.identity.id).toBe(identity.id);
  });
});

describe('an address the provider does not vouch for', () => {
  it.each(['google', 'microsoft'] as ProviderId[])('%s: stays unverified and gets a verification flow and mail', async (provider) => {
    const email = freshEmail(`unverified-${provider}`);
    s.fakes.addAccount(provider, { email, name: 'Not Vouched', emailVerified: false });
    const b = new Browser();
    expect((await social(s, b, 'registration', provider, email)).status).toBe(303);
    const identity = await adminIdentityByEmail(s, email);
    expect(identity.verifiable_addresses[0]).toMatchObject({ verified: false, status: 'sent' });
    const mail = await fetch(`${s.adminUrl}/admin/courier/messages?recipient=${encodeURIComponent(email)}`);
    expect(((await mail.json()) as any[]).length).toBe(1);
  });
});

describe('the upstream redirect', () => {
  it('a form post answers 303 to the provider and a JSON submit 422 browser_location_change_required, each with the continuity cookie', async () => {
    const b = new Browser();
    const { id, flow } = await startFlow(s, b, 'login');
    const form = await b.post(s.pub(`/self-service/login?flow=${id}`), { provider: 'google' });
    expect(form.status).toBe(303);
    const url = new URL(form.headers.get('location')!);
    expect(url.origin).toBe(s.fakes.google.origin);
    expect(form.headers.getSetCookie().some((c) => c.startsWith('ory_kratos_continuity='))).toBe(true);
    // No nonce on the code flow; PKCE because the provider advertises S256; Google's own parameters.
    expect([...url.searchParams.keys()].sort()).toEqual([
      'client_id',
      'code_challenge',
      'code_challenge_method',
      'redirect_uri',
      'response_type',
      'scope',
      'state',
    ]);
    expect(url.searchParams.get('redirect_uri')).toBe(s.pub('/self-service/methods/oidc/callback/google'));
    expect(url.searchParams.get('scope')).toBe('email profile openid');
    expect(url.searchParams.get('state')).toMatch(/^[0-9a-f]+$/);
    // The login flow is marked as handled by oidc.
    expect((await getJson(b, s.pub(`/self-service/login/flows?id=${id}`))).data.active).toBe('oidc');

    const r = await fetch(s.pub(`/self-service/registration?flow=${(await startFlow(s, b, 'registration')).id}`), {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json', cookie: b.jar.header() },
      body: JSON.stringify({ method: 'oidc', provider: 'apple' }),
    });
    expect(r.status).toBe(422);
    const body = (await r.json()) as any;
    expect(body.error).toMatchObject({ id: 'browser_location_change_required', code: 422, message: 'browser location change required' });
    expect(body.error.reason).toBe(`In order to complete this flow please redirect the browser to: ${body.redirect_browser_to}`);
    // Apple answers with a form post when asked for the e-mail or the name.
    expect(new URL(body.redirect_browser_to).searchParams.get('response_mode')).toBe('form_post');
    expect(r.headers.getSetCookie().some((c) => /^ory_kratos_continuity=.*Max-Age=2592000/.test(c))).toBe(true);
    expect(flow.ui.nodes.filter((n: any) => n.group === 'oidc').map((n: any) => n.attributes.value)).toEqual(['apple', 'dropbox', 'google', 'microsoft']);
  });

  it("a provider with another method is not oidc's; an unknown provider is 404 (error UI or JSON)", async () => {
    const b = new Browser();
    const { id, flow } = await startFlow(s, b, 'login');
    const csrf = flow.ui.nodes.find((n: any) => n.attributes.name === 'csrf_token').attributes.value;
    const notOidc = await b.post(s.pub(`/self-service/login?flow=${id}`), { method: 'password', provider: 'google', csrf_token: csrf });
    expect(notOidc.status).toBe(303);
    expect(notOidc.headers.get('location')).toBe(`${APP}/sign-in?flow=${id}`);
    const unknown = await b.post(s.pub(`/self-service/login?flow=${id}`), { method: 'oidc', provider: 'myspace' });
    expect(unknown.status).toBe(303);
    expect(unknown.headers.get('location')).toMatch(new RegExp(`^${APP}/error\\?id=`));
    const json = await fetch(s.pub(`/self-service/registration?flow=${(await startFlow(s, b, 'registration')).id}`), {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json', cookie: b.jar.header() },
      body: JSON.stringify({ method: 'oidc', provider: 'myspace' }),
    });
    expect(json.status).toBe(404);
    expect(((await json.json()) as any).error.reason).toBe('OpenID Connect Provider "myspace" is unknown or has not been configured');
  });
});

describe('Apple', () => {
  it('its form post to the callback is sent back as a GET (302, fields in the query), and its first-login name is read from `user`', async () => {
    const email = freshEmail('apple-post');
    const b = new Browser();
    const { id } = await startFlow(s, b, 'registration');
    const url = await submitToProvider(s, b, 'registration', id, { provider: 'apple' });
    const back = await signInAtProvider(url, { email, name: 'Rosalind Franklin' });
    expect(back.method).toBe('POST');
    if (back.method !== 'POST') return;
    const posted = await b.post(back.url, back.form);
    expect(posted.status).toBe(302);
    const get = new URL(posted.headers.get('location')!);
    expect(get.pathname).toBe('/self-service/methods/oidc/callback/apple');
    expect(get.searchParams.get('code')).toBe(back.form.code);
    expect(get.searchParams.get('state')).toBe(back.form.state);
    // Apple's callback is exempt from the anti-CSRF middleware: no cookie of it on this answer.
    expect(posted.headers.getSetCookie().some((c) => c.startsWith('csrf_token_'))).toBe(false);
    const done = await b.get(get.toString());
    expect(done.status).toBe(303);
    const me = await whoami(s, b);
    expect(me.data.identity.traits).toMatchObject({ email, name: 'Rosalind Franklin', loginService: 'APPLE' });
    expect(me.data.identity.verifiable_addresses[0].verified).toBe(true);
  });

  it("a form post to another provider's callback needs the anti-CSRF token (403)", async () => {
    const b = new Browser();
    await b.get(s.pub('/self-service/login/browser'));
    const r = await b.post(s.pub('/self-service/methods/oidc/callback/google'), { code: 'x', state: 'y' });
    expect(r.status).toBe(403);
    expect(((await r.json()) as any).error.id).toBe('security_csrf_violation');
  });
});

describe('login ↔ registration', () => {
  it('a login with an account nobody registered becomes a registration in the same request, return_to kept', async () => {
    const email = freshEmail('convert');
    const b = new Browser();
    const done = await social(s, b, 'login', 'google', email, { query: `?return_to=${encodeURIComponent(`${APP}/after`)}` });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`${APP}/after`);
    expect((await whoami(s, b)).data.identity.traits.email).toBe(email);
  });

  it('a registration with an account already registered signs in instead', async () => {
    const email = freshEmail('known');
    const first = new Browser();
    await social(s, first, 'registration', 'dropbox', email);
    const id = (await whoami(s, first)).data.identity.id;
    const b = new Browser();
    const done = await social(s, b, 'registration', 'dropbox', email, { query: `?return_to=${encodeURIComponent(`${APP}/again`)}` });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`${APP}/again`);
    const me = await whoami(s, b);
    expect(me.data.identity.id).toBe(id);
    expect(me.data.authentication_methods).toEqual([expect.objectContaining({ method: 'oidc', provider: 'dropbox' })]);
  });

  it('a refresh flow of a provider identity offers its provider only and asks it for prompt=login', async () => {
    const email = freshEmail('refresh');
    const b = new Browser();
    await social(s, b, 'registration', 'microsoft', email);
    const { id, flow } = await startFlow(s, b, 'login', '?refresh=true');
    expect(flow.refresh).toBe(true);
    expect(flow.ui.nodes.map((n: any) => `${n.group}/${n.attributes.name}`)).toEqual(['oidc/provider', 'default/csrf_token']);
    const url = new URL(await submitToProvider(s, b, 'login', id, { provider: 'microsoft' }));
    expect(url.searchParams.get('prompt')).toBe('login');
    const done = await atProvider(b, url.toString(), { email });
    expect(done.status).toBe(303);
    expect((await whoami(s, b)).data.authentication_methods.at(-1)).toMatchObject({ method: 'oidc', provider: 'microsoft' });
  });
});

describe('claims_source: userinfo', () => {
  it("reads the claims from the provider's userinfo (its subject the ID token's)", async () => {
    const stack = await startOidcStack({ providers: (list) => list.map((p) => (p.id === 'dropbox' ? { ...p, claims_source: 'userinfo' as const } : p)) });
    try {
      const email = freshEmail('userinfo');
      const b = new Browser();
      expect((await social(stack, b, 'registration', 'dropbox', email)).status).toBe(303);
      const me = await whoami(stack, b);
      expect(me.data.identity.traits).toMatchObject({ email, loginService: 'DROPBOX' });
      expect(me.data.identity.verifiable_addresses[0].verified).toBe(true);
    } finally {
      await stack.close();
    }
  });
});
