// Linking a login service spans several requests, and we remember where it stands in our own session
// (only the provider's id and the settings flow's id, never a token):
//
//   POST link → 403 session_refresh_required: the sign-in is too old. We note the link ('signing_in'),
//     send the user through /sign-in?refresh=true, and when they come back to the flow with a newer
//     sign-in, GET continues the link by itself (Kratos parks such a change only for its own settings
//     endpoint; we come back to ours).
//   POST link → 422/303 to the provider: noted ('at_provider'). Kratos's callback then answers the
//     settings flow: success (the provider is linked, message 1050001) or the flow with an error, and
//     sends the browser to /profile-settings?flow=; GET shows "linked" or the failure there (a 4xx).
//   The callback fails outside the flow (no or another state: v1.3.1 sends those to the error UI):
//     `linkFailureFromError` turns that into the same failure on the settings page.
import type { Request, RequestHandler, Response } from 'express';
import { socialFailureOf } from '../../../core/kratos/social.ts';
import type { KratosFlow, KratosSession } from '../../../core/kratos/types.ts';
import { flowCsrfToken, getFlow, submitFlow } from '../../flows/kratos.ts';
import { answerProviderRedirect } from '../../flows/social.ts';
import { responseMode } from '../../flows/respond.ts';
import { sessionEmail } from '../../flows/session.ts';
import { loadAccountFacts } from './account-facts.ts';
import { flowIdOf, sessionOf, settingsAction } from './context.ts';
import { addFlash, dropFlash } from './flash.ts';
import { linkFailureOf, type LinkFailure } from './link-failures.ts';
import { renderProfile } from './page.ts';
import { translator } from '../../request-context.ts';
import { providerName } from '../../../views/components/profile/linked-logins.ts';
import { settingsMethodOf, settingsSubmitFrom } from './settings-body.ts';
import { SOCIAL_CONTINUITY_LIFESPAN_MS } from '../../../core/limits.ts';

type ProfileLink = {
  provider: string;
  flowId: string;
  stage: 'signing_in' | 'at_provider' | 'failed';
  /** stage 'failed': why (the callback failed before it reached the flow). */
  failure?: LinkFailure;
  /** When we noted it (the app's clock): a link left unfinished is forgotten after LINK_LIFESPAN_MS. */
  at: number;
  /** The session's authenticated_at when re-authentication was asked for: a newer one means it happened. */
  authenticatedAt?: string;
};

declare module 'express-session' {
  interface SessionData {
    profileLink?: ProfileLink;
  }
}

/** A noted link is forgotten with Kratos's continuity (core/limits.ts). */
export const LINK_LIFESPAN_MS = SOCIAL_CONTINUITY_LIFESPAN_MS;

function current(req: Request): ProfileLink | undefined {
  const link = req.session?.profileLink;
  if (link && Date.now() - link.at > LINK_LIFESPAN_MS) {
    delete req.session.profileLink;
    return undefined;
  }
  return link;
}

/** Whether a link is noted for the flow this request names: a GET then may be answered by `continueLink` itself. */
export function linkNotedFor(req: Request): boolean {
  const flowId = flowIdOf(req);
  return flowId !== undefined && current(req)?.flowId === flowId;
}

function forget(req: Request): void {
  if (req.session?.profileLink) delete req.session.profileLink;
}

function note(req: Request, link: Omit<ProfileLink, 'at'>): void {
  if (req.session) req.session.profileLink = { ...link, at: Date.now() };
}

/** The provider a settings post asks to link, if it is a link. */
export function linkedProviderOf(post: Record<string, unknown>): string | undefined {
  return settingsMethodOf(post) === 'oidc' && typeof post.link === 'string' && post.link !== '' ? post.link : undefined;
}

/** A link or unlink Kratos refused on the flow: which provider, and why. */
export function linkRefusal(post: Record<string, unknown>, flow: KratosFlow): LinkReturn | undefined {
  const [error] = errorsOf(flow);
  const provider = [post.link, post.unlink].find((value): value is string => typeof value === 'string' && value !== '') ?? '';
  return error ? { provider, linked: false, failure: linkFailureOf(error) } : undefined;
}

/** POST link answered with the provider's address: the browser goes there (Google gets login_hint). */
export function answerLinkRedirect(req: Request, res: Response, redirectTo: string, body: unknown, provider: string, flowId: string): void {
  if (responseMode(req) !== 'json') note(req, { provider, flowId, stage: 'at_provider' });
  answerProviderRedirect(req, res, { type: 'location', status: 422, redirectTo, body: body as never }, provider, sessionEmail(sessionOf(res)));
}

/** POST link refused for an old sign-in: remember to continue once the user has signed in again. */
export function noteLinkAwaitingSignIn(req: Request, res: Response, provider: string, flowId: string): void {
  if (responseMode(req) === 'json') return; // JSON callers submit again themselves (no continuity, as in Kratos)
  note(req, { provider, flowId, stage: 'signing_in', authenticatedAt: sessionOf(res).authenticated_at });
}

/** The page's answer to the return from the provider: linked, or why not. */
export type LinkReturn = { provider: string } & ({ linked: true } | { linked: false; failure: LinkFailure });

function errorsOf(flow: KratosFlow) {
  return (flow.ui.messages ?? []).filter((message) => message.type === 'error');
}

async function linkedNow(req: Request, res: Response, flow: KratosFlow, provider: string): Promise<boolean> {
  const unlinkOffered = flow.ui.nodes.some((node) => node.group === 'oidc' && node.attributes.name === 'unlink' && node.attributes.value === provider);
  return unlinkOffered || ((await loadAccountFacts(req, res))?.linkedProviders.includes(provider) ?? false);
}

/** What the flow says about the link we sent the user off for (undefined: nothing yet, e.g. Back from the provider). */
async function returnFromProvider(req: Request, res: Response, flow: KratosFlow, link: ProfileLink): Promise<LinkReturn | undefined> {
  const [error] = errorsOf(flow);
  if (error) return { provider: link.provider, linked: false, failure: linkFailureOf(error) };
  if (flow.state === 'success' && (await linkedNow(req, res, flow, link.provider))) return { provider: link.provider, linked: true };
  return undefined;
}

/** After the new sign-in: submit the link the user asked for, and send the browser on to the provider. */
async function continueAfterSignIn(req: Request, res: Response, flow: KratosFlow, link: ProfileLink): Promise<boolean> {
  const built = settingsSubmitFrom({ method: 'oidc', link: link.provider, csrf_token: flowCsrfToken(flow) }, flow);
  if (!built.ok) return false;
  const outcome = await submitFlow(req, res, 'settings', flow.id, built.body);
  if (outcome.type === 'location') {
    dropFlash(req, 'reauthenticatedFor'); // nothing to make again: the link went on by itself
    answerLinkRedirect(req, res, outcome.redirectTo, outcome.body, link.provider, flow.id);
    return true;
  }
  if (outcome.type === 'invalid' && errorsOf(outcome.flow).length > 0) {
    const failure = linkFailureOf(errorsOf(outcome.flow)[0]!);
    await renderProfile(req, res, {
      status: 400,
      flow: outcome.flow,
      failedMethod: 'oidc',
      fragment: 'oidc',
      linkReturn: { provider: link.provider, linked: false, failure },
    });
    return true;
  }
  return false; // still too old, the flow expired…: the page as usual (it says to try again)
}

/**
 * GET /profile-settings?flow= with a link under way for that flow: continue it after the new sign-in,
 * or show how it came back from the provider. Any other request goes on to the page.
 */
export const continueLink: RequestHandler = async (req, res, next) => {
  const link = req.method === 'GET' ? current(req) : undefined;
  if (!link || link.flowId !== flowIdOf(req)) return next();
  const session: KratosSession = sessionOf(res);
  if (link.stage === 'signing_in' && session.authenticated_at === link.authenticatedAt) return next();
  const loaded = await getFlow(req, res, 'settings', link.flowId);
  if (!loaded.ok) {
    forget(req);
    return next();
  }
  if (link.stage === 'signing_in') {
    forget(req);
    if (await continueAfterSignIn(req, res, loaded.data, link)) return;
    return next();
  }
  const outcome: LinkReturn | undefined =
    link.stage === 'failed'
      ? { provider: link.provider, linked: false, failure: link.failure ?? 'failed' }
      : await returnFromProvider(req, res, loaded.data, link);
  if (!outcome) return next();
  forget(req);
  if (outcome.linked) {
    addFlash(req, { toasts: [{ key: 'profile.linkedLogins.linked', variant: 'success', params: { provider: providerName(translator(req), link.provider) } }] });
    return renderProfile(req, res, { flow: loaded.data, linkReturn: outcome });
  }
  await renderProfile(req, res, { status: 400, flow: loaded.data, failedMethod: 'oidc', fragment: 'oidc', linkReturn: outcome });
};

/**
 * For the error UI: a Kratos error that ended a link we sent the user off for (the callback failed
 * before it could find the flow). Returns the settings address to show the failure on, else undefined.
 */
export function linkFailureFromError(req: Request, error: { reason?: string; message?: string } | undefined): string | undefined {
  const link = current(req);
  const reason = error?.reason ?? error?.message ?? '';
  // Only a provider round trip that failed (core/kratos/social.ts knows those reasons), not any error met meanwhile.
  if (!link || link.stage !== 'at_provider' || !socialFailureOf(reason)) return undefined;
  const failure = linkFailureOf({ id: 0, text: reason });
  note(req, { provider: link.provider, flowId: link.flowId, stage: 'failed', failure });
  return settingsAction(link.flowId);
}
