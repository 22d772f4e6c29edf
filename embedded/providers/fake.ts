// One embedded upstream identity provider: a real OpenID Provider (oidc-provider) shaped like Google,
// Microsoft, Dropbox or Apple, behind a small HTTP front that serves what oidc-provider leaves to its
// host: the choose-account page, Microsoft's issuer path, Apple's JWT client secret and form_post rule,
// Google's One Tap endpoints and the account pictures.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import Provider from 'oidc-provider';
import type { Clock } from '../clock.ts';
import { AccountStore, type ProviderAccount, type ProviderId } from './accounts.ts';
import { createProviderStorage, type ClientMetadata } from './adapter.ts';
import { swapAppleClientSecret, type AppleSecretCheck } from './apple-secret.ts';
import { avatarPng } from './avatar.ts';
import { escapeHtml, send } from './http.ts';
import { handleInteraction, INTERACTION_PATH } from './interaction.ts';
import { signingKeyOf } from './keys.ts';
import { GSI_CLIENT_PATH, handleOneTap, oneTapCredential, type CredentialOptions, type OneTapContext } from './one-tap.ts';
import { APPLE_KEY_ID, APPLE_TEAM_ID, MICROSOFT_TENANT, PROFILES } from './profiles.ts';
import { homePage } from './home-page.ts';

export interface FakeProvider {
  id: ProviderId;
  label: string;
  issuer: string;
  origin: string;
  clientId: string;
  clientSecret: string;
  jwksUri: string;
  microsoft?: { tenant: string };
  apple?: { teamId: string; keyId: string; privateKeyPem: string };
  gsiScriptUrl?: string;
}

export interface RunningFake {
  info: FakeProvider;
  accounts: AccountStore;
  /** Accepts `redirectUri` as a redirect URI of the provider's one client. */
  allowRedirectUri(redirectUri: string): void;
  oneTapCredential(email: string, options?: CredentialOptions): Promise<string>;
  /** The query of the authorization requests this provider received, latest last (the last 50). */
  authorizationRequests: Record<string, string>[];
  close(): Promise<void>;
}

export interface FakeOptions {
  host: string;
  publicHost: string;
  port: number;
  clock: Clock;
  apple?: { privateKeyPem: string; publicKey: AppleSecretCheck['publicKey']; acceptStaticSecret: boolean; requireFormPost: boolean };
}

const AVATAR_PATH = /^\/avatars\/([\w.:-]+)\.png$/;

export async function startFake(id: ProviderId, options: FakeOptions): Promise<RunningFake> {
  const profile = PROFILES[id];
  const accounts = new AccountStore(id, profile.accounts);
  const storage = createProviderStorage();
  const key = await signingKeyOf(id);

  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const hostname = options.publicHost.includes(':') ? `[${options.publicHost}]` : options.publicHost;
  const origin = `http://${hostname}:${(server.address() as AddressInfo).port}`;
  const issuer = `${origin}${profile.issuerPath}`;
  const authorizationRequests: Record<string, string>[] = [];
  const picture = (a: ProviderAccount) => `${origin}/avatars/${encodeURIComponent(a.sub)}.png`;

  const provider = new Provider(issuer, {
    adapter: storage.adapterFactory,
    jwks: { keys: [key.privateJwk] },
    findAccount: (_ctx: unknown, sub: string) => {
      const account = accounts.bySub(sub);
      return account && { accountId: sub, claims: () => ({ sub, ...profile.claimsOf(account, picture(account)) }) };
    },
    claims: profile.claims,
    scopes: profile.scopes,
    extraParams: profile.extraParams ?? [],
    // Put the claims in the ID token as Google does, not only in userinfo (contract §2.2 fact 1).
    conformIdTokenClaims: false,
    responseTypes: ['code'],
    pkce: { required: () => false },
    clientAuthMethods: ['client_secret_basic', 'client_secret_post'],
    routes: { ...profile.routes, userinfo: profile.routes.userinfo ?? '/userinfo' },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: profile.routes.userinfo !== undefined },
      rpInitiatedLogout: { enabled: false },
      revocation: { enabled: false },
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `${origin}${INTERACTION_PATH}${interaction.uid}` },
    cookies: {
      keys: [randomBytes(32).toString('base64url')],
      // The four providers share a host (cookies ignore ports), so each names its own.
      names: { session: `${id}_session`, interaction: `${id}_interaction`, resume: `${id}_resume`, state: `${id}_state` },
    },
    ttl: { AccessToken: 3600, AuthorizationCode: 600, IdToken: 3600, Interaction: 3600, Session: 86400, Grant: 86400, RefreshToken: 86400 },
    clientBasedCORS: () => true,
    renderError: (ctx: { type: string; body: string }, out: Record<string, string>) => {
      ctx.type = 'html';
      ctx.body = `<!doctype html><meta charset="utf-8"><title>${escapeHtml(profile.label)}: error</title><h1>${escapeHtml(out.error ?? 'error')}</h1><p>${escapeHtml(out.error_description ?? '')}</p>`;
    },
  });
  if (id === 'apple') addAppleUserParameter(provider, accounts);
  const oidc = provider.callback();

  const oneTap: OneTapContext = { issuer, profile, accounts, key, clock: options.clock, picture };
  const appleCheck: AppleSecretCheck | undefined = options.apple && {
    teamId: APPLE_TEAM_ID,
    keyId: APPLE_KEY_ID,
    clientId: profile.clientId,
    publicKey: options.apple.publicKey,
    registeredSecret: profile.clientSecret,
    acceptStaticSecret: options.apple.acceptStaticSecret,
    clock: options.clock,
  };
  const interactionContext = {
    provider,
    accounts,
    label: profile.label,
    clientName: (clientId: string | undefined) => String(storage.clients.get(clientId ?? '')?.client_name ?? clientId ?? 'the site'),
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', origin).pathname;
    if (path.startsWith(INTERACTION_PATH)) return handleInteraction(req, res, interactionContext);
    if (id === 'google' && (await handleOneTap(req, res, path, oneTap))) return;
    const avatar = AVATAR_PATH.exec(path);
    if (avatar && req.method === 'GET') {
      const account = accounts.bySub(decodeURIComponent(avatar[1]!));
      if (!account) return send(res, 404, 'text/plain', 'Not Found');
      return send(res, 200, 'image/png', await avatarPng(account.name), { 'Cache-Control': 'public, max-age=3600', 'Access-Control-Allow-Origin': '*' });
    }
    if (path === '/' && req.method === 'GET') return send(res, 200, 'text/html; charset=utf-8', homePage(info, accounts.list()));
    // Browsers ask every origin for one; a 404 would be a console error on the provider's pages.
    if (path === '/favicon.ico' && req.method === 'GET')
      return send(res, 200, 'image/png', await avatarPng(profile.label), { 'Cache-Control': 'public, max-age=86400' });
    if (!path.startsWith(`${profile.issuerPath}/`)) return send(res, 404, 'text/plain', 'Not Found');
    const route = path.slice(profile.issuerPath.length);
    if (route === profile.routes.authorization) {
      authorizationRequests.push(Object.fromEntries(new URL(req.url ?? '/', origin).searchParams));
      if (authorizationRequests.length > 50) authorizationRequests.shift();
    }
    if (options.apple?.requireFormPost && route === profile.routes.authorization && !appleResponseModeOk(new URL(req.url ?? '/', origin).searchParams)) {
      return send(
        res,
        400,
        'text/html; charset=utf-8',
        '<!doctype html><title>invalid_request</title><h1>invalid_request</h1><p>response_mode must be form_post when name or email scope is requested.</p>',
      );
    }
    if (appleCheck && route === profile.routes.token && req.method === 'POST') await swapAppleClientSecret(req, appleCheck);
    // Authorization and its resume never see the provider's session, so every authorization shows the
    // account chooser (Google's select_account): tests choose each time, a journey never signs in
    // silently, and choosing another one than last time is then no "session principal changed" (for which
    // oidc-provider would first ask to sign the previous one out).
    if (route === profile.routes.authorization || route.startsWith(`${profile.routes.authorization}/`))
      dropCookies(req, [`${id}_session`, `${id}_session.sig`]);
    if (profile.issuerPath) {
      // oidc-provider derives its mount path from originalUrl minus url (contract §2.1).
      Object.assign(req, { originalUrl: req.url });
      req.url = (req.url ?? '/').slice(profile.issuerPath.length);
    }
    oidc(req, res);
  }
  server.on('request', (req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, 'text/plain', `embedded ${id} provider: ${(error as Error).message}`);
      else res.destroy();
    });
  });

  const info: FakeProvider = {
    id,
    label: profile.label,
    issuer,
    origin,
    clientId: profile.clientId,
    clientSecret: profile.clientSecret,
    jwksUri: `${issuer}${profile.routes.jwks}`,
    ...(id === 'microsoft' ? { microsoft: { tenant: MICROSOFT_TENANT } } : {}),
    ...(id === 'apple' && options.apple ? { apple: { teamId: APPLE_TEAM_ID, keyId: APPLE_KEY_ID, privateKeyPem: options.apple.privateKeyPem } } : {}),
    ...(id === 'google' ? { gsiScriptUrl: `${origin}${GSI_CLIENT_PATH}` } : {}),
  };

  const client: ClientMetadata = {
    client_id: profile.clientId,
    client_secret: profile.clientSecret,
    client_name: 'accounts',
    redirect_uris: [],
    response_types: ['code'],
    grant_types: ['authorization_code'],
    token_endpoint_auth_method: profile.tokenAuthMethod,
  };

  return {
    info,
    accounts,
    authorizationRequests,
    allowRedirectUri(redirectUri) {
      if (!client.redirect_uris.includes(redirectUri)) client.redirect_uris.push(redirectUri);
      // A new object: oidc-provider rebuilds its client when the metadata's hash changes.
      storage.clients.set(client.client_id, { ...client, redirect_uris: [...client.redirect_uris] });
    },
    async oneTapCredential(email, credentialOptions) {
      const account = accounts.byEmail(email);
      if (!account) throw new Error(`no ${id} test account ${email}`);
      return oneTapCredential(oneTap, account, credentialOptions);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function dropCookies(req: IncomingMessage, names: string[]): void {
  const kept = (req.headers.cookie ?? '')
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair !== '' && !names.includes(pair.slice(0, pair.indexOf('='))));
  if (kept.length) req.headers.cookie = kept.join('; ');
  else delete req.headers.cookie;
}

/** Apple answers in a form post whenever the name or the e-mail address is asked for. */
function appleResponseModeOk(query: URLSearchParams): boolean {
  const scopes = (query.get('scope') ?? '').split(' ');
  return !(scopes.includes('name') || scopes.includes('email')) || query.get('response_mode') === 'form_post';
}

/**
 * Apple sends the person's name only once, on the first authorization of the app, as a `user` JSON
 * field of the form post (never in the ID token). oidc-provider emits the response parameters before
 * writing them, so the field is added there.
 */
function addAppleUserParameter(provider: Provider, accounts: AccountStore): void {
  const seen = new Set<string>();
  provider.on('authorization.success', (...args: unknown[]) => {
    const [ctx, out] = args as [{ oidc: { params: Record<string, string>; session: { accountId?: string } } }, Record<string, string>];
    const account = accounts.bySub(ctx.oidc.session.accountId ?? '');
    const scopes = (ctx.oidc.params.scope ?? '').split(' ');
    const first = `${ctx.oidc.params.client_id}\n${account?.sub}`;
    if (!account || seen.has(first) || !(scopes.includes('name') || scopes.includes('email'))) return;
    seen.add(first);
    const [firstName = '', ...rest] = account.name.split(' ');
    out.user = JSON.stringify({
      ...(scopes.includes('name') ? { name: { firstName, lastName: rest.join(' ') } } : {}),
      ...(scopes.includes('email') ? { email: account.email } : {}),
    });
  });
}
