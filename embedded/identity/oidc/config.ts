// The social sign-in configuration as Kratos v1.3.1 reads it (selfservice.methods.oidc.config and the
// oidc entries of the login and registration `after` hooks): provider lookup, labels, the callback URL,
// the hooks and return URLs that apply to an oidc sign-in or sign-up.
import type { AfterHooks, OidcProvider } from '../config.ts';
import { KratosError } from '../errors.ts';
import type { Service } from '../service.ts';

/** The provider types the stand-in implements (Kratos has more; none of them is configured here). */
export const SUPPORTED_TYPES = ['generic', 'google', 'microsoft', 'apple'] as const;
export type ProviderType = (typeof SUPPORTED_TYPES)[number];

export const CALLBACK_PATH = '/self-service/methods/oidc/callback';

export function configuredProviders(svc: Service): OidcProvider[] {
  const o = svc.config.selfservice.methods.oidc;
  return o.enabled ? o.config.providers : [];
}

/** stringsx.Coalesce(label, id): the label, else the id as written. */
export const providerLabel = (p: { id: string; label?: string }): string => p.label || p.id;

export function unknownProvider(id: string): KratosError {
  return new KratosError(404, { reason: `OpenID Connect Provider "${id}" is unknown or has not been configured` });
}

/** ConfigurationCollection.Provider: the configured provider of that id, or Kratos's 404. */
export function findProvider(svc: Service, id: string): OidcProvider & { provider: ProviderType } {
  const p = configuredProviders(svc).find((x) => x.id === id);
  if (!p) throw unknownProvider(id);
  const type = p.provider ?? '';
  if (!(SUPPORTED_TYPES as readonly string[]).includes(type)) {
    // A plain Go error in Kratos (not herodot): a 500 whose message is the error's text.
    throw new KratosError(500, { message: `provider type ${type} is not supported, supported are: [${SUPPORTED_TYPES.join(' ')}]` });
  }
  return p as OidcProvider & { provider: ProviderType };
}

/** Configuration.Redir: the generic callback with `pkce: force`, else the provider's own. */
export function redirectUri(svc: Service, p: OidcProvider): string {
  const base = (svc.config.selfservice.methods.oidc.config.base_redirect_uri || svc.publicUrl).replace(/\/+$/, '');
  return p.pkce === 'force' ? `${base}${CALLBACK_PATH}` : `${base}${CALLBACK_PATH}/${encodeURIComponent(p.id)}`;
}

/** Kratos's method hooks replace the global ones (they never merge): `after.oidc.hooks` when set, else `after.hooks`. */
function hooksOf(after: AfterHooks & { oidc?: AfterHooks }): string[] {
  const list = after.oidc?.hooks?.length ? after.oidc.hooks : (after.hooks ?? []);
  return list.map((h) => h.hook);
}

export const registrationHooks = (svc: Service): string[] => hooksOf(svc.config.selfservice.flows.registration.after);
export const loginHooks = (svc: Service): string[] => hooksOf(svc.config.selfservice.flows.login.after);

/** The configured return URLs of an oidc sign-up and sign-in, most specific first. */
export function registrationReturnUrls(svc: Service): (string | undefined)[] {
  const after = svc.config.selfservice.flows.registration.after;
  return [after.oidc?.default_browser_return_url, after.default_browser_return_url];
}

export function loginReturnUrls(svc: Service): (string | undefined)[] {
  const after = svc.config.selfservice.flows.login.after;
  return [after.oidc?.default_browser_return_url, after.default_browser_return_url];
}

/**
 * The upstream_parameters Kratos v1.3.1 forwards (provider.go UpstreamParameters): login_hint, hd,
 * prompt and auth_type; any other key is dropped without a word. (Newer Kratos drops login_hint and
 * adds acr_values; the contract describes that; v1.3.1 is the reference here.)
 */
export const FORWARDED_UPSTREAM_PARAMETERS = ['login_hint', 'hd', 'prompt', 'auth_type'] as const;

export function upstreamParameters(raw: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return out;
  for (const k of FORWARDED_UPSTREAM_PARAMETERS) {
    const v = (raw as Record<string, unknown>)[k];
    if (typeof v === 'string') out[k] = v;
  }
  return out;
}

/** The provider ids of an identity's oidc credential, in the order they were linked. */
export function linkedProviderIds(credentials: Record<string, { config: Record<string, unknown> }>): string[] {
  const ps = credentials.oidc?.config.providers as { provider: string }[] | undefined;
  return (ps ?? []).map((p) => p.provider);
}
