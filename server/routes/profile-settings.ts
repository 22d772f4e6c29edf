/**
 * /profile-settings (login required): name, password and linked logins through Kratos's settings flow;
 * avatar, deletion and reactivation through the user backend.
 *
 *   GET  /profile-settings[?flow=&confirm=delete-account]   the page (JSON: flow, user, password kind…);
 *                                                           a new flow → 303 to ?flow=<id>
 *   POST /profile-settings?flow=                            method=profile | password | oidc (Kratos's csrf_token)
 *   POST /profile-settings/avatar[?flow=]                   multipart `_csrf` then `file` → backend upload-avatar
 *   POST /profile-settings/avatar/remove[?flow=]            → backend remove-avatar
 *   POST /profile-settings/delete-account                   → backend delete-account (recent sign-in needed)
 *   POST /profile-settings/reactivate                       → backend reactivate-account
 *   GET  /profile-settings/account-deleted                  the notice after a deletion request
 *
 * A change Kratos refuses as `session_refresh_required` (403: the sign-in is too old for a password or
 * login-service change) changes nothing: the user goes through /sign-in?refresh=true and back to the
 * same settings flow, and submits again.
 */
import { Router, type Request, type Response } from 'express';
import { createElement } from 'react';
import { AccountDeletedNotice } from '../../views/components/profile/AccountDeletedNotice.tsx';
import { BackendError, backendClientFor, callerOf, isSignedOut } from '../backend-client.ts';
import { configOf, translator } from '../request-context.ts';
import { errorId, getFlow, isFlowId, submitFlow, type SubmitOutcome } from '../flows/kratos.ts';
import { mapIdentityProviderError, type SpecError } from '../../core/kratos/messages.ts';
import { errorBody, respondError, respondRedirect, responseMode } from '../flows/respond.ts';
import { replacementFlow } from '../flows/flow-replacement.ts';
import { translateValidation } from '../flows/schemas.ts';
import { requireLogin, SIGN_IN_PATH } from '../flows/session.ts';
import { renderPage } from '../render.tsx';
import { documentEndpoint, errorResponse } from '../openapi/registry.ts';
import { CSRF_FIELD, CSRF_HEADER, isCsrfTokenValid, provideCsrfToken, requireCsrf } from '../security/csrf.ts';
import { AVATAR_ERROR_KEYS, AVATAR_MAX_MEGABYTES } from '../../core/avatar.ts';
import { AvatarUploadError, relayAvatarUpload } from './profile/avatar-upload.ts';
import { addFlash, takeFlash } from './profile/flash.ts';
import {
  graceDays,
  loadUser,
  PROFILE_PATH,
  REACTIVATE_PATH,
  renderProfile,
  renderReactivate,
  sessionOf,
  settingsAction,
  settingsFlowOrAnswer,
  signInAgain,
} from './profile/page.ts';
import {
  AVATAR_ERRORS,
  avatarResult,
  deleteAccountBody,
  deletionResult,
  flowIdQuery,
  ourCsrfBody,
  pendingDeletionState,
  redirectResult,
  settingsBody,
  settingsQuery,
  settingsState,
} from './profile/schemas.ts';
import { settingsSubmitFrom, type SettingsMethod } from './profile/settings-body.ts';

const AVATAR_PATH = `${PROFILE_PATH}/avatar`;
const AVATAR_REMOVE_PATH = `${PROFILE_PATH}/avatar/remove`;
const DELETE_PATH = `${PROFILE_PATH}/delete-account`;
const DELETED_PATH = `${PROFILE_PATH}/account-deleted`;

documentEndpoint({
  method: 'get',
  path: PROFILE_PATH,
  summary: 'Profile settings (Kratos settings flow and the user record)',
  description:
    'Login required. Without `flow` (or with an expired one) a new settings flow is created: HTML answers 303 to `?flow=<id>`. ' +
    'An account waiting for deletion gets the reactivation offer instead.',
  tags: ['profile'],
  query: settingsQuery,
  responses: {
    200: { description: 'The settings state (or, for an account pending deletion, the reactivation state)', schema: settingsState.or(pendingDeletionState) },
    303: { description: 'HTML: to the new flow' },
    401: errorResponse('Not signed in: meta.redirect_browser_to is the sign-in page'),
  },
});

documentEndpoint({
  method: 'post',
  path: PROFILE_PATH,
  summary: 'Save the name, change or set the password, or link/unlink a login service',
  description:
    'Posts one settings form of the flow. Only `traits.name` can change through method=profile; every other trait is kept as Kratos has it. ' +
    'A password or login-service change on an old sign-in answers 403 session_refresh_required with meta.redirect_browser_to ' +
    '(/sign-in?refresh=true&return_to=<this flow>); nothing is changed, submit again after signing in.',
  tags: ['profile'],
  query: flowIdQuery,
  body: settingsBody,
  responses: {
    200: { description: 'Saved (message 1050001); HTML posts get 303 back to the flow', schema: redirectResult },
    400: errorResponse('Validation error from Kratos or our checks (code validation_error, similarity_password, leaked_password, …)'),
    403: errorResponse('session_refresh_required (meta.redirect_browser_to), or account_pending_deletion'),
    410: errorResponse('Flow expired: a new flow id is in meta.flowId'),
    422: errorResponse('Linking a login service: code browser_location_change_required, meta.redirect_browser_to'),
  },
});

documentEndpoint({
  method: 'post',
  path: AVATAR_PATH,
  summary: 'Upload a new avatar (multipart/form-data: `_csrf` first, then one `file`)',
  description:
    'PNG or JPEG (decided by the file signature), at most 5,242,880 bytes, one file. The body is multipart/form-data with our CSRF ' +
    'token in the `_csrf` field before the `file` part (or in the x-csrf-token header). The image is streamed to the user service, ' +
    'which re-encodes it without metadata.',
  tags: ['profile'],
  query: flowIdQuery,
  responses: {
    200: { description: 'Uploaded; HTML posts get 303 back to the settings page', schema: avatarResult },
    400: AVATAR_ERRORS,
    403: errorResponse('Missing or wrong CSRF token (csrf_invalid), or account_pending_deletion'),
    413: AVATAR_ERRORS,
    503: errorResponse('The user service is unreachable'),
  },
});

documentEndpoint({
  method: 'post',
  path: AVATAR_REMOVE_PATH,
  summary: 'Remove the avatar',
  tags: ['profile'],
  query: flowIdQuery,
  body: ourCsrfBody,
  responses: {
    200: { description: 'Removed; HTML posts get 303 back to the settings page', schema: avatarResult },
    403: errorResponse('Missing or wrong CSRF token'),
    503: errorResponse('The user service is unreachable'),
  },
});

documentEndpoint({
  method: 'post',
  path: DELETE_PATH,
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
  path: REACTIVATE_PATH,
  summary: 'Restore an account waiting for deletion',
  tags: ['profile'],
  body: ourCsrfBody,
  responses: {
    200: { description: 'Restored; HTML posts get 303 to the settings page', schema: redirectResult },
    403: errorResponse('Missing or wrong CSRF token, or account_deleted (the grace period is over)'),
  },
});

documentEndpoint({
  method: 'get',
  path: DELETED_PATH,
  summary: 'Notice shown after a deletion request',
  tags: ['profile'],
  responses: { 200: { description: 'HTML notice (JSON: the scheduled date when known)' } },
});

function jsonError(res: Response, error: SpecError): void {
  res.status(error.status).set('Cache-Control', 'no-store').json(errorBody(error));
}

/** Sends the user through sign-in with refresh=true and back to `back`; nothing has been changed. */
function reauthenticate(req: Request, res: Response, back: string, method?: string): void {
  const t = translator(req);
  const returnTo = new URL(back, configOf(req).PUBLIC_URL).href;
  const to = `${SIGN_IN_PATH}?refresh=true&return_to=${encodeURIComponent(returnTo)}`;
  if (responseMode(req) === 'json') {
    return jsonError(res, {
      status: 403,
      code: 'session_refresh_required',
      message: t('errorMessage.sessionRefreshRequired'),
      meta: { errorCode: 'session_refresh_required', redirect_browser_to: to },
    });
  }
  addFlash(req, { reauthenticatedFor: method ?? 'settings' });
  respondRedirect(req, res, to);
}

function flowIdOf(req: Request): string | undefined {
  return isFlowId(req.query.flow) ? req.query.flow : undefined;
}

function backTo(req: Request): string {
  const flowId = flowIdOf(req);
  return flowId ? settingsAction(flowId) : PROFILE_PATH;
}

// ---------------------------------------------------------------- page

async function show(req: Request, res: Response): Promise<void> {
  const user = await loadUser(req, res);
  if (user.signedOut) return signInAgain(req, res);
  if (user.user?.state === 'pending_deletion') return renderReactivate(req, res, user.user);
  const loaded = await settingsFlowOrAnswer(req, res, req.query.flow);
  if (!loaded) return;
  if (loaded.created && responseMode(req) !== 'json') {
    const confirm = req.query.confirm === 'delete-account' ? '&confirm=delete-account' : '';
    return void res.set('Cache-Control', 'no-store').redirect(303, settingsAction(loaded.flow.id) + confirm);
  }
  await renderProfile(req, res, { flow: loaded.flow, user });
}

// ---------------------------------------------------------------- settings flow submit

const FIELD_OF: Record<SettingsMethod, string> = { profile: 'traits.name', password: 'password', oidc: 'link' };

function succeeded(outcome: SubmitOutcome): boolean {
  // Kratos answers a settings success with the flow itself (state success), which the shared
  // classifier files with the 200 flows of recovery and verification.
  return outcome.type === 'success' || (outcome.type === 'invalid' && outcome.status < 300 && outcome.flow.state === 'success');
}

async function submit(req: Request, res: Response): Promise<void> {
  const t = translator(req);
  const flowId = flowIdOf(req);
  if (!flowId) {
    if (responseMode(req) === 'json') {
      return jsonError(res, { status: 400, code: 'invalid_flow', message: t('errorMessage.badRequest'), meta: {} });
    }
    return respondRedirect(req, res, PROFILE_PATH);
  }
  const user = await loadUser(req, res);
  if (user.signedOut) return signInAgain(req, res, settingsAction(flowId));
  if (user.user?.state === 'pending_deletion') {
    if (responseMode(req) === 'json') {
      return jsonError(res, { status: 403, code: 'account_pending_deletion', message: t('profile.reactivate.title'), meta: {} });
    }
    return respondRedirect(req, res, PROFILE_PATH);
  }

  const existing = await getFlow(req, res, 'settings', flowId);
  if (!existing.ok) {
    if (existing.status === 401) return signInAgain(req, res, PROFILE_PATH);
    if (existing.status === 404 || existing.status === 410 || errorId(existing.data) === 'security_csrf_violation') {
      return restartFlow(req, res, existing.status, existing.data);
    }
    return respondError(req, res, mapIdentityProviderError(existing.status, existing.data, t));
  }
  const flow = existing.data;
  const body = (req.body ?? {}) as Record<string, unknown>;
  const built = settingsSubmitFrom(body, flow);
  if (!built.ok) {
    const method = built.method ?? 'profile';
    const key =
      built.reason === 'missing_value'
        ? 'validation.required'
        : built.reason === 'too_long'
          ? method === 'password'
            ? 'validation.passwordTooLong'
            : 'validation.nameTooLong'
          : 'errorMessage.badRequest';
    const field = FIELD_OF[method];
    return renderProfile(req, res, {
      status: 400,
      flow,
      user,
      failedMethod: method,
      fragment: method,
      fieldErrors: built.reason === 'missing_value' || built.reason === 'too_long' ? { [field]: [key] } : undefined,
      notices: built.reason === 'unknown_method' || built.reason === 'unknown_provider' ? [{ variant: 'error', text: t(key) }] : undefined,
      error: { status: 400, code: 'validation_error', message: translateValidation(t, key), meta: { field } },
    });
  }

  const outcome = await submitFlow(req, res, 'settings', flowId, built.body);
  if (succeeded(outcome)) {
    if (responseMode(req) !== 'json') {
      addFlash(req, {
        toasts: [{ key: built.method === 'password' ? 'profile.password.changed' : 'kratos.1050001', variant: 'success' }],
        passwordChanged: built.method === 'password' || undefined,
      });
    }
    return respondRedirect(req, res, settingsAction(flowId), { state: 'success', message: t('kratos.1050001') });
  }
  switch (outcome.type) {
    case 'invalid':
      return renderProfile(req, res, { status: 400, flow: outcome.flow, user, failedMethod: built.method, fragment: built.method });
    case 'location':
      if (responseMode(req) === 'json') return jsonError(res, mapIdentityProviderError(422, outcome.body, t));
      return respondRedirect(req, res, outcome.redirectTo);
    case 'expired':
    case 'csrf':
    case 'missing':
      return restartFlow(req, res, outcome.status, outcome.body, outcome);
    case 'signed_in':
      return respondRedirect(req, res, settingsAction(flowId));
    case 'error':
      if (outcome.status === 403 && errorId(outcome.body) === 'session_refresh_required') {
        return reauthenticate(req, res, settingsAction(flowId), built.method);
      }
      if (outcome.status === 401) return signInAgain(req, res, settingsAction(flowId));
      return respondError(req, res, mapIdentityProviderError(outcome.status, outcome.body, t));
  }
}

/** The flow is gone, expired or from another browser: on to a fresh one, telling the user why. */
async function restartFlow(req: Request, res: Response, status: number, body: unknown, outcome?: SubmitOutcome): Promise<void> {
  const t = translator(req);
  const next = outcome
    ? await replacementFlow(req, res, 'settings', outcome)
    : await replacementFlow(req, res, 'settings', { type: status === 410 ? 'expired' : status === 404 ? 'missing' : 'csrf', status, body } as SubmitOutcome);
  if (!next.ok) {
    if (next.status === 401) return signInAgain(req, res, PROFILE_PATH);
    return respondError(req, res, mapIdentityProviderError(next.status, next.body, t));
  }
  if (responseMode(req) === 'json') {
    const error = mapIdentityProviderError(status, body, t);
    return void res
      .status(status)
      .set('Cache-Control', 'no-store')
      .json({ ...errorBody(error), meta: { ...error.meta, flowId: next.flow.id } });
  }
  addFlash(req, { toasts: [{ key: 'profile.flowRestarted', variant: 'warning' }] });
  respondRedirect(req, res, settingsAction(next.flow.id));
}

// ---------------------------------------------------------------- avatar

function headerToken(req: Request): string | undefined {
  const value = req.headers[CSRF_HEADER];
  return typeof value === 'string' ? value : undefined;
}

/** A refused or failed avatar call, as the spec's error with a translated message. */
function avatarError(req: Request, error: unknown): SpecError | 'signed-out' | 'pending-deletion' {
  const t = translator(req);
  const limit = { limit: AVATAR_MAX_MEGABYTES };
  if (error instanceof AvatarUploadError) {
    const key =
      error.code === 'csrf_invalid'
        ? 'errorMessage.csrfInvalid'
        : error.code === 'invalid_multipart'
          ? 'profile.avatar.unreadable'
          : AVATAR_ERROR_KEYS[error.code];
    return { status: error.status, code: error.code, message: t(key, limit), meta: error.code === 'limit_file_size' ? { maxBytes: 5_242_880, maxMegabytes: AVATAR_MAX_MEGABYTES } : {} };
  }
  if (!(error instanceof BackendError)) throw error;
  if (isSignedOut(error)) return 'signed-out';
  if (error.code === 'account_pending_deletion') return 'pending-deletion';
  const known = AVATAR_ERROR_KEYS[error.code as keyof typeof AVATAR_ERROR_KEYS];
  if (known) return { status: error.status, code: error.code, message: t(known, limit), meta: error.meta ?? {} };
  if (error.code === 'image_dimensions_too_large') return { status: 400, code: error.code, message: t('profile.avatar.tooLarge'), meta: error.meta ?? {} };
  if (error.code === 'invalid_multipart') return { status: 400, code: error.code, message: t('profile.avatar.unreadable'), meta: {} };
  req.log?.warn({ code: error.code, status: error.status }, 'avatar call failed');
  // token_expired here means even fresh tokens were refused: the services disagree, not the user's fault.
  const unavailable = error.status >= 500 || error.status === 499 || error.code === 'token_expired';
  return {
    status: unavailable ? 503 : error.status,
    code: unavailable ? 'backend_unavailable' : error.code,
    message: t(unavailable ? 'errorMessage.grpcError' : 'errorMessage.unknownError'),
    meta: {},
  };
}

async function answerAvatarFailure(req: Request, res: Response, failure: unknown): Promise<void> {
  const error = avatarError(req, failure);
  if (error === 'signed-out') return signInAgain(req, res, PROFILE_PATH);
  if (error === 'pending-deletion') return respondRedirect(req, res, PROFILE_PATH);
  if (responseMode(req) === 'json') return jsonError(res, error);
  const loaded = await settingsFlowOrAnswer(req, res, req.query.flow);
  if (!loaded) return;
  await renderProfile(req, res, { status: error.status, flow: loaded.flow, avatarError: error.message, fragment: 'avatar', error });
}

async function uploadAvatar(req: Request, res: Response): Promise<void> {
  const backend = backendClientFor(req);
  const caller = callerOf(req, res);
  let uploaded;
  try {
    uploaded = await relayAvatarUpload(req, res, {
      verifyCsrf: (token) => isCsrfTokenValid(req, token),
      headerToken: headerToken(req),
      csrfField: CSRF_FIELD,
      forward: (upload, signal) => backend.uploadAvatar(caller, upload, signal),
    });
  } catch (error) {
    return answerAvatarFailure(req, res, error);
  }
  if (responseMode(req) !== 'json') addFlash(req, { toasts: [{ key: 'profile.avatar.uploaded', variant: 'success' }] });
  const avatar = { avatarRemoteId: uploaded.avatarRemoteId, avatarUrl: uploaded.avatarUrl };
  respondRedirect(req, res, backTo(req), { ...avatar, user: avatar });
}

async function removeAvatar(req: Request, res: Response): Promise<void> {
  try {
    await backendClientFor(req).removeAvatar(callerOf(req, res));
  } catch (error) {
    return answerAvatarFailure(req, res, error);
  }
  if (responseMode(req) !== 'json') addFlash(req, { toasts: [{ key: 'profile.avatar.removed', variant: 'success' }] });
  const avatar = { avatarRemoteId: null, avatarUrl: null };
  respondRedirect(req, res, backTo(req), { ...avatar, user: avatar });
}

// ---------------------------------------------------------------- deletion and reactivation

function privilegedMaxAgeMs(req: Request): number {
  return configOf(req).PRIVILEGED_SESSION_MAX_AGE_MS;
}

function backendFailure(req: Request, error: unknown): SpecError {
  if (!(error instanceof BackendError)) throw error;
  const t = translator(req);
  const unavailable = error.status >= 500 || error.status === 499 || error.code === 'token_expired';
  req.log?.warn({ code: error.code, status: error.status }, 'backend call failed');
  return {
    status: unavailable ? 503 : error.status,
    code: unavailable ? 'backend_unavailable' : error.code,
    message: t(unavailable ? 'errorMessage.grpcError' : error.code === 'account_deleted' ? 'profile.reactivate.tooLate' : 'errorMessage.unknownError'),
    meta: {},
  };
}

async function deleteAccount(req: Request, res: Response): Promise<void> {
  const session = sessionOf(res);
  const authenticatedAt = Date.parse(session.authenticated_at ?? '');
  if (!Number.isFinite(authenticatedAt) || authenticatedAt + privilegedMaxAgeMs(req) <= Date.now()) {
    return reauthenticate(req, res, `${PROFILE_PATH}?confirm=delete-account`, 'delete-account');
  }
  const backend = backendClientFor(req);
  const reason = typeof req.body?.reason === 'string' && req.body.reason.trim() ? req.body.reason.trim().slice(0, 500) : undefined;
  let result;
  try {
    result = await backend.deleteAccount(callerOf(req, res), reason);
  } catch (error) {
    if (isSignedOut(error)) return signInAgain(req, res, PROFILE_PATH);
    if (error instanceof BackendError && error.code === 'account_pending_deletion') return respondRedirect(req, res, PROFILE_PATH);
    return respondError(req, res, backendFailure(req, error));
  }
  // The backend has revoked every session of the identity: the stored token is worthless now.
  backend.forgetSession(session.id);
  const days = Math.round(result.gracePeriodDays) || graceDays(req);
  if (responseMode(req) !== 'json') addFlash(req, { deletion: { scheduledAt: result.deletionScheduledAt, graceDays: days } });
  respondRedirect(req, res, DELETED_PATH, { state: 'pending_deletion', deletionScheduledAt: result.deletionScheduledAt, gracePeriodDays: days });
}

function accountDeleted(req: Request, res: Response): void {
  const t = translator(req);
  const deletion = takeFlash(req).deletion;
  const days = deletion?.graceDays ?? graceDays(req);
  if (responseMode(req) === 'json') {
    return void res.set('Cache-Control', 'no-store').json({ deletionScheduledAt: deletion?.scheduledAt ?? null, gracePeriodDays: days });
  }
  renderPage(req, res, createElement(AccountDeletedNotice, { scheduledAt: deletion?.scheduledAt ?? null, graceDays: days }), {
    title: t('profile.deleted.title'),
  });
}

async function reactivate(req: Request, res: Response): Promise<void> {
  try {
    await backendClientFor(req).reactivateAccount(callerOf(req, res));
  } catch (error) {
    if (isSignedOut(error)) return signInAgain(req, res, PROFILE_PATH);
    if (error instanceof BackendError && error.code === 'account_not_pending_deletion') return respondRedirect(req, res, PROFILE_PATH);
    const failure = backendFailure(req, error);
    const loaded = await loadUser(req, res);
    if (loaded.user?.state === 'pending_deletion' && responseMode(req) !== 'json') {
      return renderReactivate(req, res, loaded.user, { status: failure.status, error: failure.message });
    }
    return respondError(req, res, failure);
  }
  if (responseMode(req) !== 'json') addFlash(req, { toasts: [{ key: 'profile.reactivate.done', variant: 'success' }] });
  respondRedirect(req, res, PROFILE_PATH, { state: 'active' });
}

export function profileSettingsRoutes(): Router {
  const router = Router();
  router.get(PROFILE_PATH, requireLogin, provideCsrfToken, show);
  router.post(PROFILE_PATH, requireLogin, provideCsrfToken, submit);
  // The upload checks our CSRF token itself, from the multipart body it streams.
  router.post(AVATAR_PATH, requireLogin, provideCsrfToken, uploadAvatar);
  router.post(AVATAR_REMOVE_PATH, requireLogin, requireCsrf, provideCsrfToken, removeAvatar);
  router.post(DELETE_PATH, requireLogin, requireCsrf, deleteAccount);
  router.post(REACTIVATE_PATH, requireLogin, requireCsrf, provideCsrfToken, reactivate);
  router.get(DELETED_PATH, accountDeleted);
  return router;
}
