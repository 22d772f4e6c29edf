// The identity stand-in with the embedded sign-in providers, and a browser that goes through a social
// sign-in the way a person's browser does: start a flow, submit the provider (a form post, or JSON as
// the app's server does), choose an account at the provider, come back to the callback (Apple's form
// post is sent back to it as a POST, which answers with a 302 to the GET).
import { merge } from '../../../../embedded/identity/config.ts';
import type { DeepPartial, IdentityConfig } from '../../../../embedded/identity/index.ts';
import type { Clock } from '../../../../embedded/clock.ts';
import { startFakeProviders, type FakeProviders, type ProviderId } from '../../../../embedded/providers/index.ts';
import { identityProviderConfig } from '../../../../embedded/providers/identity-config.ts';
import { signInAtProvider, type ProviderChoice } from '../../../support/providers.ts';
import { Browser, startTestIdentity } from '../helpers.ts';

export type Kind = 'login' | 'registration';

export interface OidcStack {
  fakes: FakeProviders;
  publicUrl: string;
  adminUrl: string;
  pub(path: string): string;
  close(): Promise<void>;
}

/** Social sign-up signs in at once, as this product's Kratos is configured (the oidc session hook). */
export const SIGN_IN_ON_SIGN_UP: DeepPartial<IdentityConfig> = {
  selfservice: { flows: { registration: { after: { oidc: { hooks: [{ hook: 'session' }] } } } } },
};

type ProviderEntry = ReturnType<typeof identityProviderConfig>['config']['providers'][number];

export interface OidcStackOptions {
  config?: DeepPartial<IdentityConfig>;
  clock?: Clock;
  database?: string;
  /** Changes to the providers' configuration (identityProviderConfig's). */
  providers?: (list: ProviderEntry[]) => ProviderEntry[];
}

export async function startOidcStack(options: OidcStackOptions = {}): Promise<OidcStack> {
  const fakes = await startFakeProviders({ clock: options.clock });
  const method = identityProviderConfig(fakes);
  const providers = options.providers ? options.providers(method.config.providers) : method.config.providers;
  const oidc = { selfservice: { methods: { oidc: { ...method, config: { providers } } } } } as DeepPartial<IdentityConfig>;
  const identity = await startTestIdentity({
    config: merge(merge(oidc, SIGN_IN_ON_SIGN_UP), options.config),
    clock: options.clock,
    database: options.database,
  });
  fakes.trustRelyingParty(identity.publicUrl);
  return {
    fakes,
    publicUrl: identity.publicUrl,
    adminUrl: identity.adminUrl,
    pub: (path) => `${identity.publicUrl}${path}`,
    async close() {
      await identity.close();
      await fakes.close();
    },
  };
}

const JSON_HEADERS = { accept: 'application/json', 'content-type': 'application/json' };

/** A JSON call with the browser's cookies, as the app's server makes it on the browser's behalf. */
export async function postJson(b: Browser, url: string, body: unknown): Promise<{ status: number; data: any; headers: Headers }> {
  const r = await fetch(url, { method: 'POST', redirect: 'manual', headers: { ...JSON_HEADERS, cookie: b.jar.header() }, body: JSON.stringify(body) });
  b.jar.absorb(r.headers.getSetCookie());
  const text = await r.text();
  return { status: r.status, data: text ? JSON.parse(text) : undefined, headers: r.headers };
}

export async function getJson(b: Browser, url: string): Promise<{ status: number; data: any }> {
  const r = await b.get(url, 'application/json');
  return { status: r.status, data: await r.json() };
}

/** A new browser flow of this kind; its id and its JSON. */
export async function startFlow(s: OidcStack, b: Browser, kind: Kind | 'settings', query = ''): Promise<{ id: string; flow: any }> {
  const r = await b.get(s.pub(`/self-service/${kind}/browser${query}`));
  const id = new URL(r.headers.get('location')!).searchParams.get('flow')!;
  const { data } = await getJson(b, s.pub(`/self-service/${kind}/flows?id=${id}`));
  return { id, flow: data };
}

export const csrfOf = (flow: any): string => flow.ui.nodes.find((n: any) => n.attributes.name === 'csrf_token').attributes.value;

/** Submits `fields` (provider, link, …) to a flow: the upstream authorize URL, from a 303 (form) or a 422 (JSON). */
export async function submitToProvider(
  s: OidcStack,
  b: Browser,
  kind: Kind | 'settings',
  flowId: string,
  fields: Record<string, unknown>,
  as: 'form' | 'json' = 'form',
): Promise<string> {
  const url = s.pub(`/self-service/${kind}?flow=${flowId}`);
  if (as === 'json') {
    const r = await postJson(b, url, fields);
    if (r.status !== 422) throw new Error(`expected 422, got ${r.status}: ${JSON.stringify(r.data)}`);
    return r.data.redirect_browser_to;
  }
  const r = await b.post(url, Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, String(v)])));
  if (r.status !== 303) throw new Error(`expected 303, got ${r.status}: ${await r.text()}`);
  return r.headers.get('location')!;
}

/** At the provider, then back at the callback: the callback's answer (after Apple's POST → 302). */
export async function atProvider(b: Browser, authorizeUrl: string, choice: ProviderChoice): Promise<Response> {
  const back = await signInAtProvider(authorizeUrl, choice);
  if (back.method === 'GET') return b.get(back.url);
  const posted = await b.post(back.url, back.form);
  if (posted.status !== 302) throw new Error(`expected the form post to be sent back as a GET (302), got ${posted.status}`);
  return b.get(posted.headers.get('location')!);
}

/** A whole social sign-in or sign-up in a browser: the callback's answer. */
export async function social(
  s: OidcStack,
  b: Browser,
  kind: Kind,
  provider: ProviderId,
  email: string,
  options: { as?: 'form' | 'json'; query?: string; fields?: Record<string, unknown> } = {},
): Promise<Response> {
  const { id } = await startFlow(s, b, kind, options.query);
  const url = await submitToProvider(s, b, kind, id, { method: 'oidc', provider, ...(options.fields ?? {}) }, options.as);
  return atProvider(b, url, { email });
}

export async function whoami(s: OidcStack, b: Browser): Promise<{ status: number; data: any }> {
  return getJson(b, s.pub('/sessions/whoami'));
}

export async function adminIdentityByEmail(s: OidcStack, email: string, include = 'oidc'): Promise<any> {
  const r = await fetch(`${s.adminUrl}/admin/identities?credentials_identifier=${encodeURIComponent(email)}&include_credential=${include}`);
  return ((await r.json()) as any[])[0];
}

/** The stored error the error UI was sent to (its `id`). */
export async function errorOf(s: OidcStack, location: string | null): Promise<any> {
  const id = new URL(location!).searchParams.get('id');
  const r = await fetch(s.pub(`/self-service/errors?id=${id}`));
  return ((await r.json()) as any).error;
}

export const flowIdIn = (location: string | null): string => new URL(location!).searchParams.get('flow')!;

/** A password identity with a verified address, made through the admin API. */
export async function passwordIdentity(s: OidcStack, email: string, password = 'a long enough passphrase'): Promise<string> {
  const r = await fetch(`${s.adminUrl}/admin/identities`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      schema_id: 'default',
      traits: { email, name: 'Existing Person', loginService: 'EMAIL_PASSWORD' },
      verifiable_addresses: [{ value: email, verified: true, via: 'email', status: 'completed' }],
      credentials: { password: { config: { password } } },
    }),
  });
  return ((await r.json()) as any).id;
}

/** Signs a browser in with a password (a login flow form post). */
export async function passwordSignIn(s: OidcStack, b: Browser, email: string, password = 'a long enough passphrase'): Promise<Response> {
  const { id, flow } = await startFlow(s, b, 'login');
  return b.post(s.pub(`/self-service/login?flow=${id}`), { method: 'password', identifier: email, password, csrf_token: csrfOf(flow) });
}

let seq = 0;
/** A provider account of its own for a test (the fakes add it on their choose-account page). */
export function freshEmail(tag: string): string {
  seq += 1;
  return `${tag}.${process.pid}.${seq}.${Date.now().toString(36)}@example.com`;
}
