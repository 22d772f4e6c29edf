/**
 * Deleting and restoring the account (login required), through the user backend.
 *
 *   POST /profile-settings/delete-account    → backend delete-account (needs a recent sign-in)
 *   GET  /profile-settings/account-deleted   the notice after a deletion request
 *   POST /profile-settings/reactivate        → backend reactivate-account, then on to return_to (the
 *                                              page a sign-in was going to: deletion-pending.ts)
 *
 * A sign-in older than PRIVILEGED_SESSION_MAX_AGE_MS deletes nothing: the user signs in again
 * (refresh=true) and comes back to the open confirmation.
 */
import { Router, type Request, type Response } from 'express';
import { createElement } from 'react';
import { AppError } from '../../../core/errors.ts';
import { pathWithQuery, ROUTES } from '../../../core/routes.ts';
import { AccountDeletedNotice } from '../../../views/components/profile/AccountDeletedNotice.tsx';
import { backendClientFor, callerOf, isSignedOut } from '../../backend-client.ts';
import { respondError, respondRedirect, responseMode } from '../../flows/respond.ts';
import { requireLoginFrom } from '../../flows/session.ts';
import { markDeletion } from '../../flows/deletion-pending.ts';
import { safeReturnTo } from '../../security/return-to.ts';
import { documentEndpoint, errorResponse } from '../../openapi/registry.ts';
import { renderPage } from '../../render.tsx';
import { configOf, translator } from '../../request-context.ts';
import { provideCsrfToken, requireCsrf } from '../../security/csrf.ts';
import { backendFailure, graceDays, loadUser, reauthenticate, sessionOf, signInAgain } from './context.ts';
import { addFlash, takeFlash } from './flash.ts';
import { renderReactivate } from './page.ts';
import { deleteAccountBody, deletionResult, reactivateBody, redirectResult } from './schemas.ts';
import { liveSessionsOf } from '../../socket/emit.ts';

documentEndpoint({
  method: 'post',
  path: ROUTES.deleteAccount,
  summary: 'Delete the account (restorable during the grace period)',
  description:
    'Signs the account out everywhere and schedules its deletion. Signing in again within the grace period offers reactivation. ' +
    'Needs a recent sign-in: otherwise 403 session_refresh_required with meta.redirect_browser_to.',
  tags: ['profile'],
  body: deleteAccountBody,
  responses: {
    200: { description: 'Scheduled; HTML posts get 303 to the notice page', schema: deletionResult },
    403: errorResponse('Missing or wrong CSRF token, or session_refresh_required'),
    503: errorResponse('The user service is unreachable'),
  },
});

documentEndpoint({
  method: 'post',
  path: ROUTES.reactivate,
  summary: 'Restore an account waiting for deletion',
  tags: ['profile'],
  body: reactivateBody,
  responses: {
    200: { description: 'Restored; HTML posts get 303 to return_to, else the settings page', schema: redirectResult },
    403: errorResponse('Missing or wrong CSRF token, or account_deleted (the grace period is over)'),
  },
});

documentEndpoint({
  method: 'get',
  path: ROUTES.accountDeleted,
  summary: 'Notice shown after a deletion request',
  tags: ['profile'],
  responses: { 200: { description: 'HTML notice (JSON: the scheduled date when known)' } },
});

/** A backend refusal that means "nothing to do here": the settings page shows the account as it is. */
function alreadyThere(error: unknown, code: string): boolean {
  return error instanceof AppError && error.code === code;
}

function signedInRecently(req: Request, res: Response): boolean {
  const authenticatedAt = Date.parse(sessionOf(res).authenticated_at ?? '');
  return Number.isFinite(authenticatedAt) && authenticatedAt + configOf(req).PRIVILEGED_SESSION_MAX_AGE_MS > Date.now();
}

async function deleteAccount(req: Request, res: Response): Promise<void> {
  if (!signedInRecently(req, res)) {
    return reauthenticate(req, res, pathWithQuery(ROUTES.profile, { confirm: 'delete-account' }), 'delete-account');
  }
  const backend = backendClientFor(req);
  const reason = typeof req.body?.reason === 'string' && req.body.reason.trim() ? req.body.reason.trim().slice(0, 500) : undefined;
  let result;
  try {
    result = await backend.deleteAccount(callerOf(req, res), reason);
  } catch (error) {
    if (isSignedOut(error)) return signInAgain(req, res, ROUTES.profile);
    if (alreadyThere(error, 'account_pending_deletion')) return respondRedirect(req, res, ROUTES.profile);
    return respondError(req, res, backendFailure(req, error));
  }
  // The backend has revoked every session of the identity: the stored token is worthless now.
  backend.forgetSession(sessionOf(res).id);
  await markDeletion(req, sessionOf(res), true); // a sign-in anywhere now meets the restore offer first
  // Every page of the account, on every device, now belongs to a signed-out account (spec §4).
  liveSessionsOf(req).forceReload({ identityId: sessionOf(res).identity?.id }, 'account-deleted');
  const days = Math.round(result.gracePeriodDays) || graceDays(req);
  if (responseMode(req) !== 'json') addFlash(req, { deletion: { scheduledAt: result.deletionScheduledAt, graceDays: days } });
  respondRedirect(req, res, ROUTES.accountDeleted, { state: 'pending_deletion', deletionScheduledAt: result.deletionScheduledAt, gracePeriodDays: days });
}

function accountDeleted(req: Request, res: Response): void {
  const deletion = takeFlash(req).deletion;
  const days = deletion?.graceDays ?? graceDays(req);
  const scheduledAt = deletion?.scheduledAt ?? null;
  if (responseMode(req) === 'json') return void res.set('Cache-Control', 'no-store').json({ deletionScheduledAt: scheduledAt, gracePeriodDays: days });
  renderPage(req, res, createElement(AccountDeletedNotice, { scheduledAt, graceDays: days }), { title: translator(req)('profile.deleted.title') });
}

async function reactivate(req: Request, res: Response): Promise<void> {
  const returnTo = safeReturnTo(req.body?.return_to, configOf(req));
  try {
    await backendClientFor(req).reactivateAccount(callerOf(req, res));
  } catch (error) {
    if (isSignedOut(error)) return signInAgain(req, res, ROUTES.profile);
    if (alreadyThere(error, 'account_not_pending_deletion')) {
      await markDeletion(req, sessionOf(res), false);
      return respondRedirect(req, res, returnTo ?? ROUTES.profile);
    }
    const failure = backendFailure(req, error);
    const loaded = await loadUser(req, res);
    if (loaded.user?.state === 'pending_deletion' && responseMode(req) !== 'json') {
      return renderReactivate(req, res, loaded.user, { status: failure.status, error: failure.message, returnTo });
    }
    return respondError(req, res, failure);
  }
  await markDeletion(req, sessionOf(res), false);
  // The toast is the profile's (only it shows stored toasts): none on the way to elsewhere, where it would wait for the next visit.
  if (responseMode(req) !== 'json' && !returnTo) addFlash(req, { toasts: [{ key: 'profile.reactivate.done', variant: 'success' }] });
  respondRedirect(req, res, returnTo ?? ROUTES.profile, { state: 'active' });
}

export function accountRoutes(): Router {
  const router = Router();
  router.post(ROUTES.deleteAccount, requireLoginFrom(ROUTES.profile), requireCsrf, deleteAccount);
  router.post(ROUTES.reactivate, requireLoginFrom(ROUTES.profile), requireCsrf, provideCsrfToken, reactivate);
  router.get(ROUTES.accountDeleted, accountDeleted);
  return router;
}
