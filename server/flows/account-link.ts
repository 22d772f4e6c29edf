/**
 * The account-link sequence on the sign-in screen (spec §4, core/kratos/account-link.ts; decision 110).
 *
 *   accountLinkOfScreen(req, flow)   → the state, with what earlier pages of the sequence remembered in OUR
 *                                      query string (`link_provider`, `link_by`: Kratos drops 1010016 after
 *                                      a failure) and our Cancel (`account_link=cancelled`)
 *   linkQuery(link)                  → those parameters for the form's action, so the next page keeps them
 *   confirmLinkedAccount(req, res, session, provider)
 *       after a sign-in on a link flow: when Kratos linked a provider (the session carries an `oidc`
 *       method beside the password one, maybeLinkCredentials), tell the backend (`user/confirm-link-account`,
 *       spec §7) with the provider the identity now has (admin API) → the linked provider, or undefined
 *
 * `user/update-identityId` has no place here: linking appends a credential to the SAME identity, so the
 * backend record keeps its identity id (decision 110).
 */
import type { Request, Response } from 'express';
import { accountLinkOf, type AccountLink } from '../../core/kratos/account-link.ts';
import { knownProvider, type SocialProvider } from '../../core/kratos/social.ts';
import type { KratosFlow, KratosSession } from '../../core/kratos/types.ts';
import { backendClientFor, callerOf } from '../backend-client.ts';
import { configOf } from '../request-context.ts';
import { oryClients } from '../ory.ts';

const METHOD = /^[a-z0-9_-]{1,64}$/;

function remembered(req: Request): { provider?: string; existing?: string[] } {
  const provider = typeof req.query.link_provider === 'string' && METHOD.test(req.query.link_provider) ? req.query.link_provider : undefined;
  const by = typeof req.query.link_by === 'string' ? req.query.link_by.split(',').filter((method) => METHOD.test(method)) : [];
  return { ...(provider ? { provider } : {}), ...(by.length > 0 ? { existing: by.slice(0, 8) } : {}) };
}

export function accountLinkOfScreen(req: Request, flow: Pick<KratosFlow, 'ui'> | undefined): AccountLink {
  return accountLinkOf(flow, { cancelled: req.query.account_link === 'cancelled', remembered: remembered(req) });
}

/** What the next page of the sequence must remember (only what Kratos said, never what the URL said). */
export function linkQuery(link: AccountLink): Record<string, string | undefined> {
  const provider = knownProvider(link.provider);
  const by = link.existing.filter((method) => METHOD.test(method));
  return { link_provider: provider, link_by: by.length > 0 ? by.join(',') : undefined };
}

type SessionWithMethods = KratosSession & { authentication_methods?: { method?: string; provider?: string }[] };

/** Kratos linked a provider during this sign-in: it added an `oidc` method to the password sign-in's session. */
export function linkedDuringSignIn(session: KratosSession | undefined): boolean {
  const methods = (session as SessionWithMethods | undefined)?.authentication_methods ?? [];
  return methods.some((entry) => entry.method === 'password') && methods.some((entry) => entry.method === 'oidc');
}

/** The providers an identity signs in with (`<provider>:<subject>` identifiers of its oidc credential). */
async function linkedProviders(req: Request, identityId: string): Promise<string[]> {
  const { identityAdmin } = oryClients(configOf(req));
  const answer = await identityAdmin.getIdentity({ id: identityId, includeCredential: ['oidc'] });
  const identifiers = answer.data.credentials?.oidc?.identifiers ?? [];
  return identifiers.map((identifier) => identifier.split(':', 1)[0] ?? '');
}

export async function confirmLinkedAccount(req: Request, res: Response, session: KratosSession, hint: string | undefined): Promise<SocialProvider | undefined> {
  const identityId = session.identity?.id;
  const email = session.identity?.traits.email;
  if (!identityId || typeof email !== 'string') return undefined;
  let provider: SocialProvider | undefined;
  try {
    const providers = (await linkedProviders(req, identityId)).map(knownProvider).filter((found) => found !== undefined);
    // The provider the sequence was about, if the identity has it; else the only one it has.
    provider = providers.find((found) => found === knownProvider(hint)) ?? (providers.length === 1 ? providers[0] : undefined);
  } catch (error) {
    req.log?.warn({ err: { message: (error as Error).message } }, 'linked providers could not be read');
    provider = undefined;
  }
  if (!provider) return undefined;
  try {
    await backendClientFor(req).confirmLinkAccount({ ...callerOf(req, res), sessionId: session.id }, { provider, email });
  } catch (error) {
    // Kratos has linked it, so signing in with the provider works; only the backend's record missed it.
    req.log?.warn({ err: { message: (error as Error).message } }, 'backend confirm-link-account failed');
  }
  return provider;
}
