/**
 * What the consent screen says and gives (decision 130):
 *
 *   scopeLabels(t, scopes)            → each requested scope in plain words (`oauth2.scope.<scope>`; any
 *                                       other scope named in the generic sentence)
 *   consentClaims(identityAdmin, subject, scopes) → the ID token's (and userinfo's) claims from the Kratos
 *                                       identity: `email` and `email_verified` with the email scope, `name`
 *                                       with profile. An identity that cannot be read gives none.
 *   logoOrigin(logoUri, config)       → the origin to allow in img-src for the client's logo: an absolute
 *                                       https URL (http too outside production), else none (no logo shown)
 */
import type { IdentityApi } from '@ory/client';
import type { Translate } from '../../core/translate.ts';
import { AppError } from '../../core/errors.ts';
import type { Config } from '../config.ts';

export const KNOWN_SCOPES = ['openid', 'offline_access', 'offline', 'email', 'profile'] as const;

export function scopeLabels(t: Translate, scopes: readonly string[]): { scope: string; label: string }[] {
  return scopes.map((scope) => {
    const known = (KNOWN_SCOPES as readonly string[]).includes(scope) ? (scope === 'offline' ? 'offline_access' : scope) : undefined;
    return { scope, label: known ? t(`oauth2.scope.${known}`) : t('oauth2.scope.other', { scope }) };
  });
}

type IdentityFacts = {
  traits?: { email?: unknown; name?: unknown };
  verifiable_addresses?: { value?: string; verified?: boolean }[];
};

export async function consentClaims(identityAdmin: IdentityApi, subject: string, scopes: readonly string[]): Promise<Record<string, unknown>> {
  const wantsEmail = scopes.includes('email');
  const wantsProfile = scopes.includes('profile');
  if (!subject || (!wantsEmail && !wantsProfile)) return {};
  let identity: IdentityFacts;
  try {
    identity = (await identityAdmin.getIdentity({ id: subject })).data as IdentityFacts;
  } catch (error) {
    // Kratos down is a 503 of its own; an identity it does not have simply has no claims.
    if (error instanceof AppError) throw error;
    return {};
  }
  const claims: Record<string, unknown> = {};
  const email = typeof identity.traits?.email === 'string' ? identity.traits.email : undefined;
  if (wantsEmail && email) {
    claims.email = email;
    claims.email_verified = (identity.verifiable_addresses ?? []).some((address) => address.value === email && address.verified === true);
  }
  if (wantsProfile && typeof identity.traits?.name === 'string' && identity.traits.name) claims.name = identity.traits.name;
  return claims;
}

export function logoOrigin(logoUri: string | undefined, config: Pick<Config, 'isProduction'>): string | undefined {
  if (!logoUri) return undefined;
  try {
    const url = new URL(logoUri);
    if (url.protocol === 'https:' || (url.protocol === 'http:' && !config.isProduction)) return url.origin;
  } catch {
    // not an absolute URL: no logo
  }
  return undefined;
}
