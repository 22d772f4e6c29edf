// What makes each embedded provider look like the real one: its client registration, endpoint paths,
// scopes, the claims it puts in the ID token and its test accounts. One place for these facts; the
// README's table is written from them.
import type { NewAccount, ProviderAccount, ProviderId } from './accounts.ts';

/** The port of each provider under `npm start`. */
export const LOCAL_PORTS: Record<ProviderId, number> = { google: 4601, microsoft: 4602, dropbox: 4603, apple: 4604 };

/** The tenant of the fake Microsoft: the id Microsoft gives personal accounts ("consumers"). */
export const MICROSOFT_TENANT = '9188040d-6c67-4c5b-b112-36a304b66dad';
export const APPLE_TEAM_ID = 'ACCTS12345';
export const APPLE_KEY_ID = 'FAKEKEY001';
export const APPLE_AUDIENCE = 'https://appleid.apple.com';

export interface ProviderProfile {
  id: ProviderId;
  label: string;
  clientId: string;
  /** Development values, printed in the README: these providers only exist on this machine. */
  clientSecret: string;
  /** The issuer's path after the origin (Microsoft's `/{tid}/v2.0`), '' for the others. */
  issuerPath: string;
  routes: { authorization: string; token: string; jwks: string; userinfo?: string };
  tokenAuthMethod: 'client_secret_basic' | 'client_secret_post';
  scopes: string[];
  /** Authorization parameters beyond OIDC's the provider acts on (oidc-provider drops the others). */
  extraParams?: string[];
  /** oidc-provider's `claims`: which claims each scope releases (it releases nothing unlisted). */
  claims: Record<string, string[]>;
  claimsOf(account: ProviderAccount, picture: string): Record<string, unknown>;
  accounts: NewAccount[];
}

const ada = { email: 'ada@example.com', name: 'Ada Lovelace' };
const grace = { email: 'grace@example.com', name: 'Grace Hopper' };

const splitName = (name: string) => {
  const [given = '', ...rest] = name.split(' ');
  return { given_name: given, family_name: rest.join(' ') };
};

export const PROFILES: Record<ProviderId, ProviderProfile> = {
  google: {
    id: 'google',
    label: 'Google',
    clientId: '401234567890-accountslocal.apps.googleusercontent.com',
    clientSecret: 'GOCSPX-local-development-secret',
    issuerPath: '',
    routes: { authorization: '/o/oauth2/v2/auth', token: '/token', jwks: '/oauth2/v3/certs', userinfo: '/v1/userinfo' },
    tokenAuthMethod: 'client_secret_basic',
    scopes: ['openid', 'email', 'profile', 'offline_access'],
    // `hd` limits the chooser to a Workspace domain (`*`: any Workspace account).
    extraParams: ['hd', 'access_type', 'include_granted_scopes'],
    claims: { openid: ['sub', 'hd'], email: ['email', 'email_verified'], profile: ['name', 'given_name', 'family_name', 'picture'] },
    claimsOf: (a, picture) => ({
      email: a.email,
      email_verified: a.emailVerified,
      name: a.name,
      ...splitName(a.name),
      picture,
      ...(a.hd ? { hd: a.hd } : {}),
    }),
    accounts: [ada, grace, { email: 'katherine@workspace.example', name: 'Katherine Johnson', hd: 'workspace.example' }],
  },
  microsoft: {
    id: 'microsoft',
    label: 'Microsoft',
    clientId: '3f2b9a4e-7c1d-4e8a-9b6f-0a1c2d3e4f50',
    clientSecret: 'microsoft-local-development-secret',
    issuerPath: `/${MICROSOFT_TENANT}/v2.0`,
    routes: { authorization: '/oauth2/v2.0/authorize', token: '/oauth2/v2.0/token', jwks: '/discovery/v2.0/keys', userinfo: '/oidc/userinfo' },
    tokenAuthMethod: 'client_secret_basic',
    scopes: ['openid', 'email', 'profile', 'offline_access'],
    // Like Entra ID: no `email_verified` (see README); `tid` and `oid` in every token, and the optional
    // claim `xms_edov` ("email domain owner verified"), the one signal Entra gives that its `email` can be
    // trusted: the claims mappers mark the address verified only on it.
    claims: { openid: ['sub', 'tid', 'oid', 'ver'], email: ['email', 'xms_edov'], profile: ['name', 'preferred_username'] },
    claimsOf: (a) => ({ tid: MICROSOFT_TENANT, oid: a.oid, ver: '2.0', email: a.email, xms_edov: a.emailVerified, name: a.name, preferred_username: a.email }),
    accounts: [ada, grace, { email: 'margaret@contoso.example', name: 'Margaret Hamilton' }],
  },
  dropbox: {
    id: 'dropbox',
    label: 'Dropbox',
    clientId: 'accountslocal7q2',
    clientSecret: 'dropbox-local-development-secret',
    issuerPath: '',
    routes: { authorization: '/oauth2/authorize', token: '/oauth2/token', jwks: '/2/openid/jwks', userinfo: '/2/openid/userinfo' },
    tokenAuthMethod: 'client_secret_basic',
    scopes: ['openid', 'email', 'profile'],
    // Dropbox's ID token names the person in given_name and family_name only.
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['given_name', 'family_name'] },
    claimsOf: (a) => ({ email: a.email, email_verified: a.emailVerified, ...splitName(a.name) }),
    accounts: [ada, grace],
  },
  apple: {
    id: 'apple',
    label: 'Apple',
    clientId: 'com.example.accounts.signin',
    clientSecret: 'apple-local-development-secret',
    issuerPath: '',
    routes: { authorization: '/auth/authorize', token: '/auth/token', jwks: '/auth/keys' },
    tokenAuthMethod: 'client_secret_post',
    // Apple's scopes are `name` and `email`; the name never appears in the ID token.
    scopes: ['openid', 'email', 'name'],
    claims: { openid: ['sub', 'nonce_supported'], email: ['email', 'email_verified', 'is_private_email'], name: [] },
    // Apple sends these two booleans as strings.
    claimsOf: (a) => ({
      nonce_supported: true,
      email: a.email,
      email_verified: String(a.emailVerified),
      is_private_email: String(a.privateEmail ?? false),
    }),
    accounts: [ada, grace, { email: 'k7p2x9qv4m@privaterelay.appleid.com', name: 'Hedy Lamarr' }],
  },
};
