// Real Kratos's `selfservice.methods.oidc`, translated from the stand-in's (the block
// identityProviderConfig() in embedded/providers/ writes, in Kratos's own keys).
//
// Every provider becomes `generic`: real Kratos v1.3.1's google, microsoft and apple types have their
// hosts built in (accounts.google.com, login.microsoftonline.com, appleid.apple.com) and ignore
// `issuer_url`, which the stand-in honours for every type so the embedded fakes can play them. A
// generic provider runs OIDC discovery at `issuer_url`, so it talks to the fake.
// - Apple's client secret is an ES256 JWT the `apple` type signs per request; `generic` sends a fixed
//   secret, so it gets one such JWT signed here once (how Apple is configured on a generic client).
// - The claims mapper (Jsonnet, Kratos's `mapper_url`) is ours: the product's traits from the ID token's
//   claims (the name, else given and family name), `loginService` from the provider id, and the address
//   verified when the provider says so.
// - What generic lacks: Apple's `response_mode=form_post` (the callback comes back as a GET) and the
//   id_token submit (only the google and apple types verify one); see the conformance suite.
import { createPrivateKey, sign } from 'node:crypto';
import type { OidcProvider } from '../../embedded/identity/config.ts';

/** One provider in Kratos's keys, as the stand-in's configuration carries it (one type: embedded/identity/config.ts). */
export type OidcProviderConfig = OidcProvider;

export type OidcMethodConfig = { enabled?: boolean; config?: { base_redirect_uri?: string; providers?: OidcProviderConfig[] } };

/** The product's `traits.loginService` for a provider id (identity.schema.json's enum). */
export const LOGIN_SERVICE: Readonly<Record<string, string>> = { google: 'GOOGLE', microsoft: 'MICROSOFT', dropbox: 'DROPBOX', apple: 'APPLE' };

/** The schema's maxLength of traits.name: a longer provider name is cut rather than refused. */
export const NAME_MAX_LENGTH = 32;

/**
 * The Jsonnet mapper of one provider. Kratos hands it `claims` (its Claims struct: `email_verified` is
 * already a boolean, Apple's string "true" included, and absent when false).
 */
export function oidcMapperJsonnet(providerId: string): string {
  const loginService = LOGIN_SERVICE[providerId];
  return [
    "local claims = std.extVar('claims');",
    "local hasEmail = std.objectHas(claims, 'email') && claims.email != '';",
    // Entra ID sends no email_verified; its optional claim xms_edov (domain owner verified) is the one
    // signal on which its address is trusted. Kratos keeps unknown claims in raw_claims.
    "local raw = if std.objectHas(claims, 'raw_claims') && claims.raw_claims != null then claims.raw_claims else {};",
    "local domainOwnerVerified = std.objectHas(raw, 'xms_edov') && raw.xms_edov == true;",
    "local verified = hasEmail && ((std.objectHas(claims, 'email_verified') && claims.email_verified == true) || domainOwnerVerified);",
    "local claim(key) = if std.objectHas(claims, key) then claims[key] else '';",
    // Dropbox's ID token names the person in given_name and family_name only.
    "local name = if claim('name') != '' then claim('name') else std.stripChars(claim('given_name') + ' ' + claim('family_name'), ' ');",
    '{',
    '  identity: {',
    '    traits: {',
    "      [if hasEmail then 'email']: claims.email,",
    `      [if name != '' then 'name']: std.substr(name, 0, ${NAME_MAX_LENGTH}),`,
    ...(loginService ? [`      loginService: '${loginService}',`] : []),
    '    },',
    "    [if verified then 'verified_addresses']: [{ via: 'email', value: claims.email }],",
    '  },',
    '}',
  ].join('\n');
}

const base64Url = (text: string) => `base64://${Buffer.from(text).toString('base64')}`;
const base64UrlSegment = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Apple's client secret as its `apple` type builds it (iss team, sub client, aud Apple, kid), valid ~180 days, Apple's maximum. */
export function appleClientSecret(provider: OidcProviderConfig, now = Date.now()): string {
  const { apple_team_id: team, apple_private_key_id: keyId, apple_private_key: pem, client_id: clientId } = provider;
  if (!team || !keyId || !pem || !clientId)
    throw new Error(`OIDC provider ${provider.id}: apple needs client_id, apple_team_id, apple_private_key_id and apple_private_key`);
  const iat = Math.floor(now / 1000);
  const input = `${base64UrlSegment({ alg: 'ES256', kid: keyId, typ: 'JWT' })}.${base64UrlSegment({ iss: team, sub: clientId, aud: 'https://appleid.apple.com', iat, exp: iat + 180 * 24 * 3600 })}`;
  const signature = sign('sha256', Buffer.from(input), { key: createPrivateKey(pem), dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}

/** One stand-in provider as a generic provider of real Kratos. */
export function genericProvider(provider: OidcProviderConfig): Record<string, unknown> {
  if (!provider.issuer_url) throw new Error(`OIDC provider ${provider.id}: real Kratos needs issuer_url (every provider is generic there)`);
  const clientSecret = provider.provider === 'apple' && !provider.client_secret ? appleClientSecret(provider) : provider.client_secret;
  const out: Record<string, unknown> = {
    id: provider.id,
    provider: 'generic',
    label: provider.label,
    client_id: provider.client_id,
    client_secret: clientSecret,
    issuer_url: provider.issuer_url,
    scope: provider.scope,
    pkce: provider.pkce,
    claims_source: provider.claims_source,
    additional_id_token_audiences: provider.additional_id_token_audiences,
    requested_claims: provider.requested_claims,
    mapper_url: base64Url(oidcMapperJsonnet(provider.id)),
  };
  return Object.fromEntries(Object.entries(out).filter(([, value]) => value !== undefined));
}

/** `selfservice.methods.oidc` for real Kratos, or undefined when the stand-in has none configured. */
export function kratosOidcMethod(oidc: OidcMethodConfig | undefined): Record<string, unknown> | undefined {
  if (!oidc) return undefined;
  const providers = oidc.config?.providers ?? [];
  if (!oidc.enabled && providers.length === 0) return undefined;
  const config: Record<string, unknown> = { providers: providers.map(genericProvider) };
  if (oidc.config?.base_redirect_uri) config.base_redirect_uri = oidc.config.base_redirect_uri;
  return { enabled: oidc.enabled ?? false, config };
}
