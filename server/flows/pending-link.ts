/**
 * An account link confirmed with a provider (spec §4, decision 110 §7), remembered across Kratos's callback.
 *
 * On the link sequence, "Confirm with Microsoft" sends the browser to the provider; Kratos's callback then
 * signs in, links the new provider and redirects to the flow's return_to (our `/sign-in?return_to=…`, or
 * its default return URL `/`) without passing our sign-in handler. So the handler notes the link in OUR
 * session before the redirect, and the guards (server/flows/session.ts) finish it at the first signed-in
 * landing, which passes one of them:
 *
 *   notePendingLink(req, res, flowId, provider)
 *       sign-in POST of a provider that may be on a link flow (the page put `link_provider` in our address,
 *       or the form posted the identifier Kratos hides there): the flow is loaded to be sure, and the
 *       e-mail is Kratos's duplicate identifier, never a typed one → our session holds { the provider being
 *       linked when known, the e-mail, the id of the account owning it and the providers it had, the flow
 *       id, when }
 *   finishPendingLink(req, res, session, continueTo) → the /sign-in/linked address, or undefined
 *       only for a page navigation (GET), and nothing at all without a pending link (no upstream call).
 *       Signed in: the pending link is forgotten whatever comes next; the SUCCESS notice (and the
 *       backend's `user/confirm-link-account`) only when the signed-in identity is the account owning the
 *       e-mail, within Kratos's continuity lifespan, and has gained a provider since the note (admin API).
 *       A guest back on the same flow (a cancel or a wrong account at the provider: CANCELLED,
 *       WRONG_ACCOUNT_SELECTED on the page) forgets it too; pressing a provider again notes it afresh.
 *
 * So a note left behind (the tab closed at the provider) never turns a later, unrelated sign-in into a
 * notice: a sign-in through our handler regenerates our session (session-rotation.ts), and any other one
 * gained no provider.
 */
import type { Request, Response } from 'express';
import { accountLinkOf, isLinkFlow } from '../../core/kratos/account-link.ts';
import { knownProvider } from '../../core/kratos/social.ts';
import type { KratosSession } from '../../core/kratos/types.ts';
import { pathWithQuery, ROUTES } from '../../core/routes.ts';
import type { AppLocals } from '../locals.ts';
import { confirmLinkedAccount, existingAccount } from './account-link.ts';
import { getFlow } from './kratos.ts';
import { responseMode } from './respond.ts';
import { SOCIAL_CONTINUITY_LIFESPAN_MS } from '../../core/limits.ts';

type PendingLink = {
  /**
   * The provider being linked, when known (the sequence's `link_provider` or Kratos's prompt; after a failed
   * round trip Kratos's page names it no more): else the one provider the account gains is the linked one.
   */
  provider?: string;
  /** The duplicate e-mail Kratos put in the link flow. */
  email: string;
  /** The account owning that e-mail, and the providers it had when the user left for the provider. */
  identityId: string;
  before: string[];
  flowId: string;
  /** When we noted it (the app's clock). */
  at: number;
};

declare module 'express-session' {
  interface SessionData {
    pendingLink?: PendingLink;
  }
}

/** A noted link is forgotten with Kratos's continuity (core/limits.ts). */
export const PENDING_LINK_LIFESPAN_MS = SOCIAL_CONTINUITY_LIFESPAN_MS;

function startSession(req: Request, res: Response): Promise<void> {
  if (req.session) return Promise.resolve();
  const { startSession } = req.app.locals as AppLocals;
  return new Promise((resolve, reject) => startSession(req, res, (error?: unknown) => (error ? reject(error) : resolve())));
}

export async function notePendingLink(req: Request, res: Response, flowId: string, linkProvider: unknown): Promise<void> {
  const loaded = await getFlow(req, res, 'login', flowId);
  if (!loaded.ok || !isLinkFlow(loaded.data)) return;
  const link = accountLinkOf(loaded.data);
  const account = link.email ? await existingAccount(req, link.email) : undefined;
  if (!link.email || !account) return;
  const provider = knownProvider(linkProvider) ?? knownProvider(link.provider);
  // A guest who has pressed a provider on the link sequence: the one case a guest's post stores a session (decision 080).
  await startSession(req, res);
  req.session.pendingLink = { provider, email: link.email, identityId: account.id, before: account.providers, flowId, at: Date.now() };
}

export async function finishPendingLink(
  req: Request,
  res: Response,
  session: KratosSession | null,
  continueTo: string | undefined,
): Promise<string | undefined> {
  const pending = req.session?.pendingLink;
  if (!pending || req.method !== 'GET' || responseMode(req) !== 'page') return undefined;
  if (!session) {
    // Back on the link flow as a guest: the provider round trip failed (the page says how).
    if (req.query.flow === pending.flowId) delete req.session.pendingLink;
    return undefined;
  }
  delete req.session.pendingLink;
  const fresh = Date.now() - pending.at <= PENDING_LINK_LIFESPAN_MS;
  if (!fresh || session.identity?.id !== pending.identityId) return undefined;
  const provider = await confirmLinkedAccount(req, res, session, pending.provider, pending.before);
  if (!provider) return undefined;
  req.log?.info({ provider }, 'account link confirmed with a provider');
  return pathWithQuery(ROUTES.accountLinked, { provider, return_to: continueTo });
}
