// Account linking (Kratos v1.3.1): a provider address another identity has turns the sign-up into a new
// login flow asking for that identity's way in; signing in there links the provider; a sign-in as
// another identity is refused with 4010009; a schema failure keeps the registration with its traits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP, Browser } from '../helpers.ts';
import {
  adminIdentityByEmail,
  csrfOf,
  flowIdIn,
  freshEmail,
  getJson,
  passwordIdentity,
  passwordSignIn,
  social,
  startFlow,
  startOidcStack,
  submitToProvider,
  atProvider,
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

const PASSWORD = 'a long enough passphrase';

async function linkingFlow(email: string, provider: 'google' | 'microsoft' = 'google') {
  const b = new Browser();
  const done = await social(s, b, 'registration', provider, email);
  expect(done.status).toBe(303);
  const location = done.headers.get('location')!;
  const id = flowIdIn(location);
  return { b, location, id, flow: (await getJson(b, s.pub(`/self-service/login/flows?id=${id}`))).data };
}

describe('a provider address that already has an account', () => {
  it('gives the account-linking login flow: hidden identifier, the used provider gone, the others "Confirm with", 1010016', async () => {
    const email = freshEmail('taken');
    await passwordIdentity(s, email);
    const { location, flow } = await linkingFlow(email);
    expect(location).toBe(`${APP}/sign-in?flow=${flow.id}&no_org_ui=true`);
    expect(flow.active).toBe('oidc');
    expect(flow.ui.messages).toEqual([
      {
        id: 1010016,
        type: 'info',
        text: `You tried to sign in with "${email}", but that email is already used by another account. Sign in to your account with one of the options below to add your account "${email}" at "Google" as another way to sign in.`,
        context: {
          available_credential_types: null,
          available_providers: null,
          duplicateIdentifier: email,
          duplicate_identifier: email,
          newLoginUrl: `${APP}/sign-in`,
          new_login_url: `${APP}/sign-in`,
          provider: 'Google',
        },
      },
    ]);
    const shape = flow.ui.nodes.map((n: any) => [n.group, n.attributes.name, n.attributes.type, n.attributes.value ?? null, n.meta.label?.id ?? null]);
    expect(shape).toEqual([
      ['oidc', 'provider', 'submit', 'apple', 1010018],
      ['oidc', 'provider', 'submit', 'dropbox', 1010018],
      ['oidc', 'provider', 'submit', 'microsoft', 1010018],
      ['default', 'csrf_token', 'hidden', expect.any(String), null],
      ['default', 'identifier', 'hidden', email, 1070002],
      ['password', 'password', 'password', null, 1070001],
      // v1.3.1 relabels "Sign in" (1010001) only; a fresh flow's password button is 1010022 and keeps it.
      ['password', 'method', 'submit', 'password', 1010022],
    ]);
    expect(flow.ui.nodes[0].meta.label).toEqual({ id: 1010018, text: 'Confirm with Apple', type: 'info', context: { provider: 'Apple' } });
  });

  it('signing in with the password links the provider (session: password, then oidc); the provider then signs straight in', async () => {
    const email = freshEmail('link');
    const existing = await passwordIdentity(s, email);
    const { b, flow } = await linkingFlow(email);
    const r = await b.post(s.pub(`/self-service/login?flow=${flow.id}`), {
      method: 'password',
      identifier: email,
      password: PASSWORD,
      csrf_token: csrfOf(flow),
    });
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toBe(`${APP}/`);
    const me = await whoami(s, b);
    expect(me.data.identity.id).toBe(existing);
    expect(me.data.authentication_methods.map((m: any) => m.method)).toEqual(['password', 'oidc']);
    const identity = await adminIdentityByEmail(s, email);
    expect(identity.credentials.oidc.identifiers).toEqual([expect.stringMatching(/^google:/)]);

    const later = new Browser();
    const again = await social(s, later, 'login', 'google', email);
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toBe(`${APP}/`);
    expect((await whoami(s, later)).data.identity.id).toBe(existing);
  });

  it('a wrong password keeps the linking form (4000006); a sign-in as another identity is refused with 4010009', async () => {
    const email = freshEmail('owner');
    const other = freshEmail('other');
    await passwordIdentity(s, email);
    await passwordIdentity(s, other);
    const { b, flow } = await linkingFlow(email);
    const wrong = await b.post(s.pub(`/self-service/login?flow=${flow.id}`), {
      method: 'password',
      identifier: email,
      password: 'not the one',
      csrf_token: csrfOf(flow),
    });
    expect(wrong.headers.get('location')).toBe(`${APP}/sign-in?flow=${flow.id}`);
    let now = (await getJson(b, s.pub(`/self-service/login/flows?id=${flow.id}`))).data;
    expect(now.ui.messages.map((m: any) => m.id)).toEqual([4000006]);
    expect(now.ui.nodes.find((n: any) => n.attributes.name === 'identifier').attributes.type).toBe('hidden');
    expect(now.ui.nodes.some((n: any) => n.attributes.value === 'google')).toBe(false);

    const mismatch = await b.post(s.pub(`/self-service/login?flow=${flow.id}`), {
      method: 'password',
      identifier: other,
      password: PASSWORD,
      csrf_token: csrfOf(now),
    });
    expect(mismatch.status).toBe(303);
    now = (await getJson(b, s.pub(`/self-service/login/flows?id=${flow.id}`))).data;
    expect(now.ui.messages).toEqual([{ id: 4010009, type: 'error', text: 'Linked credentials do not match.' }]);
    expect(now.active).toBe('password');
    expect((await whoami(s, b)).status).toBe(401);
    expect((await adminIdentityByEmail(s, other)).credentials.oidc).toBeUndefined();
  });

  it('"Confirm with Microsoft" on the linking flow signs in with a Microsoft identity that owns the address and links Google to it', async () => {
    const email = freshEmail('both');
    const msBrowser = new Browser();
    await social(s, msBrowser, 'registration', 'microsoft', email);
    const owner = (await whoami(s, msBrowser)).data.identity.id;
    const { b, flow } = await linkingFlow(email, 'google');
    const url = await submitToProvider(s, b, 'login', flow.id, { provider: 'microsoft' });
    const done = await atProvider(b, url, { email });
    expect(done.status).toBe(303);
    expect((await whoami(s, b)).data.identity.id).toBe(owner);
    const identity = await adminIdentityByEmail(s, email);
    expect(identity.credentials.oidc.identifiers.map((i: string) => i.split(':')[0])).toEqual(['microsoft', 'google']);
  });

  it('a JSON caller (Accept: application/json) gets the linking login flow itself with 200', async () => {
    const email = freshEmail('json-link');
    await passwordIdentity(s, email);
    const b = new Browser();
    const { id } = await startFlow(s, b, 'registration');
    const url = await submitToProvider(s, b, 'registration', id, { provider: 'dropbox' });
    const { signInAtProvider } = await import('../../../support/providers.ts');
    const back = await signInAtProvider(url, { email });
    const r = await b.get(back.url, 'application/json');
    expect(r.status).toBe(200);
    const flow = (await r.json()) as any;
    expect(flow.ui.messages[0].id).toBe(1010016);
    expect(flow.ui.messages[0].context.provider).toBe('Dropbox');
  });
});

describe('a provider profile the schema refuses', () => {
  it('keeps the registration: csrf_token, "Continue" and the trait inputs filled, with the messages', async () => {
    // A name longer than the schema allows is cut by the mapper; posted traits are not: they override it.
    const b = new Browser();
    const { id } = await startFlow(s, b, 'registration');
    const url = await submitToProvider(s, b, 'registration', id, { provider: 'google', 'traits.loginService': 'NOT_A_SERVICE' });
    const done = await atProvider(b, url, { email: freshEmail('schema') });
    expect(done.status).toBe(302);
    expect(done.headers.get('location')).toBe(`${APP}/sign-up?flow=${id}`);
    const flow = (await getJson(b, s.pub(`/self-service/registration/flows?id=${id}`))).data;
    const names = flow.ui.nodes.map((n: any) => `${n.group}/${n.attributes.name}`);
    expect(names).toEqual([
      'oidc/traits.email',
      'oidc/traits.name',
      'oidc/traits.avatarRemoteId',
      'oidc/traits.loginService',
      'oidc/provider',
      'default/csrf_token',
    ]);
    expect(flow.ui.nodes.find((n: any) => n.attributes.name === 'provider').meta.label.id).toBe(1040003);
    const service = flow.ui.nodes.find((n: any) => n.attributes.name === 'traits.loginService');
    expect(service.attributes.value).toBe('NOT_A_SERVICE');
    expect(service.messages.length).toBe(1);
    expect(flow.ui.nodes.find((n: any) => n.attributes.name === 'traits.email').attributes.value).toMatch(/@example\.com$/);
    expect((await whoami(s, b)).status).toBe(401);
  });
});

describe('password sign-in unaffected', () => {
  it('still signs in a password identity', async () => {
    const email = freshEmail('plain');
    await passwordIdentity(s, email);
    const b = new Browser();
    expect((await passwordSignIn(s, b, email)).status).toBe(303);
    expect((await whoami(s, b)).data.authentication_methods.map((m: any) => m.method)).toEqual(['password']);
  });
});
