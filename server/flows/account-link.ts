/**
 * The account-link sequence on the sign-in screen (spec §4, core/kratos/account-link.ts; decision 110).
 *
 *   accountLinkOfScreen(req, flow)   → the state, with the provider being linked remembered in OUR query
 *                                      string (`link_provider`: Kratos drops 1010016 after a failure), our
 *                                      Cancel (`account_link=cancelled`), and how the existing account signs in
 *                                      (existingSignInMethods: Kratos v1.3.1 says nothing of it, and offers
 *                                      every other provider whether the account has it or not)
 *   linkQuery(link)                  → that parameter for the form's action, so the next page keeps it
 *   onlyExistingMethods(flow, link)  → the link flow with only the ways in the account has: no "Confirm with
 *                                      Apple" for an account without Apple (it would start a new sign-up)
 *   existingAccount(req, email)      → the account with that e-mail: its id, how it signs in, its providers
 *   confirmLinkedAccount(req, res, session, provider, before?)
 *       after a sign-in on a link flow: when Kratos linked a provider (the session carries an `oidc`
 *       method beside the password one, maybeLinkCredentials; or a provider confirmed the link, see
 *       pending-link.ts), tell the backend (`user/confirm-link-account`, spec §7) with the provider the
 *       identity now has (admin API) and did not have `before` → the linked provider, or undefined
 *
 * `user/update-identityId` has no place here: linking appends a credential to the SAME identity, so the
 * backend record keeps its identity id (decision 110).
 */
import type { Request, Response } from 'express';
import { accountLinkOf, type AccountLink } from '../../core/kratos/account-link.ts';
import { isProviderButton, knownProvider, PASSWORD_METHOD, type SocialProvider } from '../../core/kratos/social.ts';
import type { KratosFlow, KratosSession } from '../../core/kratos/types.ts';
import { backendClientFor, callerOf } from '../backend-client.ts';
import { configOf } from '../request-context.ts';
import { oryClients } from '../ory.ts';
import { LOG_REASONS } from '../log-reasons.ts';

const METHOD = /^[a-z0-9_-]{1,64}$/;

/** The spec §3 login service trait → the method it stands for. */
const METHOD_BY_LOGIN_SERVICE: Readonly<Record<string, string>> = {
  EMAIL_PASSWORD: PASSWORD_METHOD,
  GOOGLE: 'google',
  MICROSOFT: 'microsoft',
  DROPBOX: 'dropbox',
  APPLE: 'apple',
};

/** The providers of an oidc credential: its identifiers are `<provider>:<subject>`. */
function providersOf(identifiers: readonly string[] | undefined): string[] {
  return (identifiers ?? []).map((identifier) => identifier.split(':', 1)[0] ?? '').filter((id) => METHOD.test(id));
}

export type ExistingAccount = { id: string; methods: string[]; providers: string[] };

/**
 * The account with `email`: its id, how it signs in (its login service, the spec §3 trait, and its
 * providers), the providers linked to it. Read with the admin API by the duplicate identifier Kratos put
 * in the flow (the address the user has just proved at the provider), never by anything typed.
 * Undefined when it cannot be told.
 */
export async function existingAccount(req: Request, email: string): Promise<ExistingAccount | undefined> {
  try {
    const { identityAdmin } = oryClients(configOf(req));
    const found = await identityAdmin.listIdentities({ credentialsIdentifier: email });
    const identity = found.data[0];
    if (!identity) return undefined;
    const loginService = (identity.traits as Record<string, unknown> | undefined)?.loginService;
    // No login service recorded (an account made before the trait, or by an administrator): its password
    // credential says it signs in with a password.
    const service = typeof loginService === 'string' ? METHOD_BY_LOGIN_SERVICE[loginService] : identity.credentials?.password ? PASSWORD_METHOD : undefined;
    const providers = providersOf(identity.credentials?.oidc?.identifiers);
    return { id: identity.id, methods: [...new Set([...(service ? [service] : []), ...providers])], providers };
  } catch (error) {
    req.log?.warn({ err: { message: (error as Error).message }, reason: LOG_REASONS.linkAccount }, 'the existing account could not be read');
    return undefined;
  }
}

/** How the account with `email` signs in (existingAccount), undefined when it cannot be told. */
export async function existingSignInMethods(req: Request, email: string): Promise<string[] | undefined> {
  const methods = (await existingAccount(req, email))?.methods;
  return methods && methods.length > 0 ? methods : undefined;
}

function rememberedProvider(req: Request): string | undefined {
  const provider = req.query.link_provider;
  return typeof provider === 'string' && METHOD.test(provider) ? provider : undefined;
}

export async function accountLinkOfScreen(req: Request, flow: Pick<KratosFlow, 'ui' | 'refresh'> | undefined): Promise<AccountLink> {
  const signals = { cancelled: req.query.account_link === 'cancelled', remembered: { provider: rememberedProvider(req) } };
  const link = accountLinkOf(flow, signals);
  if (link.state === 'INITIAL' || !link.email) return link;
  const existing = await existingSignInMethods(req, link.email);
  return existing ? accountLinkOf(flow, { ...signals, remembered: { ...signals.remembered, existing } }) : link;
}

/** What the next page of the sequence must remember (only what Kratos said, never what the URL said). */
export function linkQuery(link: AccountLink): Record<string, string | undefined> {
  return { link_provider: knownProvider(link.provider) };
}

/** The link flow's options narrowed to the ways in the account has (its password form, its providers). */
export function onlyExistingMethods(flow: KratosFlow, link: AccountLink): KratosFlow {
  if (link.existing.length === 0) return flow;
  const password = link.existing.includes(PASSWORD_METHOD);
  const nodes = flow.ui.nodes.filter((node) => {
    if (isProviderButton(node)) return link.existing.includes(String(node.attributes.value));
    if (node.group === 'password') return password;
    return true;
  });
  return { ...flow, ui: { ...flow.ui, nodes } };
}

type SessionWithMethods = KratosSession & { authentication_methods?: { method?: string; provider?: string }[] };

/** Kratos linked a provider during this sign-in: it added an `oidc` method to the password sign-in's session. */
export function linkedDuringSignIn(session: KratosSession | undefined): boolean {
  const methods = (session as SessionWithMethods | undefined)?.authentication_methods ?? [];
  return methods.some((entry) => entry.method === 'password') && methods.some((entry) => entry.method === 'oidc');
}

/** The providers an identity signs in with. */
async function linkedProviders(req: Request, identityId: string): Promise<string[]> {
  const { identityAdmin } = oryClients(configOf(req));
  const answer = await identityAdmin.getIdentity({ id: identityId, includeCredential: ['oidc'] });
  return providersOf(answer.data.credentials?.oidc?.identifiers);
}

export async function confirmLinkedAccount(
  req: Request,
  res: Response,
  session: KratosSession,
  hint: string | undefined,
  before: readonly string[] = [],
): Promise<SocialProvider | undefined> {
  const identityId = session.identity?.id;
  const email = session.identity?.traits.email;
  if (!identityId || typeof email !== 'string') return undefined;
  let provider: SocialProvider | undefined;
  try {
    const providers = (await linkedProviders(req, identityId))
      .filter((found) => !before.includes(found))
      .map(knownProvider)
      .filter((found) => found !== undefined);
    // The provider the sequence was about, if the identity has it (and had it not before); else the only one.
    provider = providers.find((found) => found === knownProvider(hint)) ?? (providers.length === 1 ? providers[0] : undefined);
  } catch (error) {
    req.log?.warn({ err: { message: (error as Error).message }, reason: LOG_REASONS.linkAccount }, 'linked providers could not be read');
    provider = undefined;
  }
  if (!provider) return undefined;
  try {
    await backendClientFor(req).confirmLinkAccount({ ...callerOf(req, res), sessionId: session.id }, { provider, email });
  } catch (error) {
    // Kratos has linked it, so signing in with the provider works; only the backend's record missed it.
    req.log?.warn({ err: { message: (error as Error).message }, reason: LOG_REASONS.linkAccount }, 'backend confirm-link-account failed');
  }
  return provider;
}
