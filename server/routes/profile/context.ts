// What every /profile-settings route reads and the answers they share: the signed-in session, the
// backend's user record, the settings flow's address, "sign in again" (401 unauthorized for JSON),
// the re-authentication round trip, and a failed backend call as the AppError to answer.
import type { Request, Response } from 'express';
import { AppError, ERROR_CODES } from '../../../core/errors.ts';
import { mapIdentityProviderError } from '../../../core/kratos/messages.ts';
import type { KratosFlow, KratosSession } from '../../../core/kratos/types.ts';
import { pathWithQuery, ROUTES } from '../../../core/routes.ts';
import { backendClientFor, callerOf, isSignedOut, type CurrentUser } from '../../backend-client.ts';
import { isFlowId, loadFlow, type LoadedFlow } from '../../flows/kratos.ts';
import { respondError, respondRedirect, responseMode } from '../../flows/respond.ts';
import { configOf, translator } from '../../request-context.ts';
import { LOG_REASONS, type LogReason } from '../../log-reasons.ts';
import { addFlash } from './flash.ts';

/** Our form action for a settings flow. */
export function settingsAction(flowId: string): string {
  return pathWithQuery(ROUTES.profile, { flow: flowId });
}

/** The settings flow a post came from (`?flow=`), when it names one. */
export function flowIdOf(req: Request): string | undefined {
  return isFlowId(req.query.flow) ? req.query.flow : undefined;
}

/** Where an avatar answer goes back to: the flow the page showed, else the page. */
export function backTo(req: Request): string {
  const flowId = flowIdOf(req);
  return flowId ? settingsAction(flowId) : ROUTES.profile;
}

/** Days a deleted account can still be restored (the backend's grace period); ACCOUNT_DELETION_GRACE_DAYS. */
export function graceDays(req: Request): number {
  return configOf(req).ACCOUNT_DELETION_GRACE_DAYS;
}

export function sessionOf(res: Response): KratosSession {
  return res.locals.kratosSession as KratosSession;
}

export type LoadedUser = { user: CurrentUser | null; unavailable: boolean; signedOut: boolean };

/** The backend's record of the signed-in user; an outage leaves the page usable without the avatar. */
export async function loadUser(req: Request, res: Response): Promise<LoadedUser> {
  try {
    return { user: await backendClientFor(req).getCurrentUser(callerOf(req, res)), unavailable: false, signedOut: false };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    if (isSignedOut(error)) return { user: null, unavailable: false, signedOut: true };
    req.log?.warn({ code: error.code, status: error.status }, 'current user could not be loaded');
    return { user: null, unavailable: true, signedOut: false };
  }
}

/** Back to sign-in, and then here again. */
export function signInAgain(req: Request, res: Response, here = req.originalUrl): void {
  const to = pathWithQuery(ROUTES.signIn, { return_to: new URL(here, configOf(req).PUBLIC_URL).href });
  if (responseMode(req) === 'json') {
    return respondError(req, res, new AppError(401, ERROR_CODES.unauthorized, translator(req)('errorMessage.unauthorized'), { redirect_browser_to: to }));
  }
  res.set('Cache-Control', 'no-store').redirect(303, to);
}

/** Sends the user through sign-in with refresh=true and back to `back`; nothing has been changed. */
export function reauthenticate(req: Request, res: Response, back: string, method?: string): void {
  const returnTo = new URL(back, configOf(req).PUBLIC_URL).href;
  const to = pathWithQuery(ROUTES.signIn, { refresh: 'true', return_to: returnTo });
  if (responseMode(req) === 'json') {
    const message = translator(req)('errorMessage.sessionRefreshRequired');
    return respondError(req, res, new AppError(403, 'session_refresh_required', message, { errorCode: 'session_refresh_required', redirect_browser_to: to }));
  }
  addFlash(req, { reauthenticatedFor: method ?? 'settings' });
  respondRedirect(req, res, to);
}

/** No settings flow could be loaded or created: signed out → sign in again, else the mapped error. */
export function answerNoFlow(req: Request, res: Response, failure: Extract<LoadedFlow, { ok: false }>): void {
  if (failure.status === 401) return signInAgain(req, res, ROUTES.profile);
  respondError(req, res, mapIdentityProviderError(failure.status, failure.body, translator(req)));
}

/**
 * The settings flow named by ?flow= (or a new one) and the backend's user record, asked for together
 * (issue #17 item 5); answers for itself when there is no flow. Both are back before anything answers, and
 * a failure decides as when they ran one after the other: the flow's first, then the user's.
 */
export async function settingsFlowAndUser(req: Request, res: Response): Promise<{ flow: KratosFlow; user: LoadedUser } | null> {
  const [flow, user] = await Promise.allSettled([loadFlow(req, res, 'settings', req.query.flow), loadUser(req, res)]);
  if (flow.status === 'rejected') throw flow.reason;
  if (!flow.value.ok) {
    answerNoFlow(req, res, flow.value);
    return null;
  }
  if (user.status === 'rejected') throw user.reason;
  return { flow: flow.value.flow, user: user.value };
}

/**
 * A failed backend call as the error to answer: an outage is 503, anything else keeps its status and code.
 * Logged with `reason` when the call has one (LOG_REASONS), else UNKNOWN_ERROR for an answer that is not an outage.
 */
export function backendFailure(req: Request, error: unknown, reason?: LogReason): AppError {
  if (!(error instanceof AppError)) throw error;
  // token_expired here means even fresh tokens were refused: the services disagree, not the user's fault.
  const unavailable = error.status >= 500 || error.status === 499 || error.code === 'token_expired';
  req.log?.warn({ code: error.code, status: error.status, reason: reason ?? (unavailable ? undefined : LOG_REASONS.unknown) }, 'backend call failed');
  const t = translator(req);
  if (unavailable) return new AppError(503, 'backend_unavailable', t('errorMessage.grpcError'));
  return new AppError(error.status, error.code, t(error.code === 'account_deleted' ? 'profile.reactivate.tooLate' : 'errorMessage.unknownError'));
}
