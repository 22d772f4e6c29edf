/**
 * The avatar on /profile-settings (login required), through the user backend.
 *
 *   POST /profile-settings/avatar[?flow=]          multipart `_csrf` then `file` → backend upload-avatar
 *   POST /profile-settings/avatar/remove[?flow=]   → backend remove-avatar
 *
 * Both go back to the settings flow the page showed; a refusal shows the page again with the message
 * in the avatar section (JSON: the error).
 */
import { Router, type Request, type Response } from 'express';
import { AVATAR_ERROR_KEYS, AVATAR_MAX_MEGABYTES } from '../../../core/avatar.ts';
import { AppError } from '../../../core/errors.ts';
import { ROUTES } from '../../../core/routes.ts';
import { backendClientFor, callerOf, isSignedOut } from '../../backend-client.ts';
import { respondError, respondRedirect, responseMode } from '../../flows/respond.ts';
import { requireLoginFrom } from '../../flows/session.ts';
import { documentEndpoint, errorResponse } from '../../openapi/registry.ts';
import { translator } from '../../request-context.ts';
import { CSRF_FIELD, CSRF_HEADER, isCsrfTokenValid, provideCsrfToken, requireCsrf } from '../../security/csrf.ts';
import { relayAvatarUpload } from '../../avatar-relay.ts';
import { backendFailure, backTo, settingsFlowAndUser, signInAgain } from './context.ts';
import { LOG_REASONS, type LogReason } from '../../log-reasons.ts';
import { addFlash } from './flash.ts';
import { renderProfile } from './page.ts';
import { AVATAR_ERRORS, avatarResult, flowIdQuery, ourCsrfBody } from './schemas.ts';

documentEndpoint({
  method: 'post',
  path: ROUTES.avatarUpload,
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
  path: ROUTES.avatarRemove,
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

/** Message keys of the refusals the user can act on, ours and the backend's alike. */
const MESSAGE_KEYS: Readonly<Record<string, string>> = {
  ...AVATAR_ERROR_KEYS,
  csrf_invalid: 'errorMessage.csrfInvalid',
  invalid_multipart: 'profile.avatar.unreadable',
  image_dimensions_too_large: 'profile.avatar.tooLarge',
};
const ALWAYS_400 = new Set(['invalid_multipart', 'image_dimensions_too_large']);

/** A refused or failed avatar call, with a translated message. */
function avatarError(req: Request, error: unknown, reason?: LogReason): AppError | 'signed-out' | 'pending-deletion' {
  if (!(error instanceof AppError)) throw error;
  if (isSignedOut(error)) return 'signed-out';
  if (error.code === 'account_pending_deletion') return 'pending-deletion';
  const key = MESSAGE_KEYS[error.code];
  if (!key) return backendFailure(req, error, reason);
  const message = translator(req)(key, { limit: AVATAR_MAX_MEGABYTES });
  return new AppError(ALWAYS_400.has(error.code) ? 400 : error.status, error.code, message, error.meta);
}

/** `reason`: what the failure is logged as (LOG_REASONS) when it is not one the person is told about. */
async function answerFailure(req: Request, res: Response, failure: unknown, reason?: LogReason): Promise<void> {
  const error = avatarError(req, failure, reason);
  if (error === 'signed-out') return signInAgain(req, res, ROUTES.profile);
  if (error === 'pending-deletion') return respondRedirect(req, res, ROUTES.profile);
  if (responseMode(req) === 'json') return respondError(req, res, error);
  const loaded = await settingsFlowAndUser(req, res);
  if (!loaded) return;
  await renderProfile(req, res, { status: error.status, flow: loaded.flow, user: loaded.user, avatarError: error.message, fragment: 'avatar', error });
}

/** Back to the page with the toast (JSON: the avatar as it is now). */
function done(req: Request, res: Response, toast: string, avatar: { avatarRemoteId: string | null; avatarUrl: string | null }): void {
  if (responseMode(req) !== 'json') addFlash(req, { toasts: [{ key: toast, variant: 'success' }] });
  respondRedirect(req, res, backTo(req), { ...avatar, user: avatar });
}

async function uploadAvatar(req: Request, res: Response): Promise<void> {
  const backend = backendClientFor(req);
  const caller = callerOf(req, res);
  const header = req.headers[CSRF_HEADER];
  let uploaded;
  try {
    uploaded = await relayAvatarUpload(req, res, {
      verifyCsrf: (token) => isCsrfTokenValid(req, token),
      headerToken: typeof header === 'string' ? header : undefined,
      csrfField: CSRF_FIELD,
      forward: (upload, signal) => backend.uploadAvatar(caller, upload, signal),
    });
  } catch (error) {
    return answerFailure(req, res, error);
  }
  done(req, res, 'profile.avatar.uploaded', { avatarRemoteId: uploaded.avatarRemoteId, avatarUrl: uploaded.avatarUrl });
}

async function removeAvatar(req: Request, res: Response): Promise<void> {
  try {
    await backendClientFor(req).removeAvatar(callerOf(req, res));
  } catch (error) {
    return answerFailure(req, res, error, LOG_REASONS.removeAvatar);
  }
  done(req, res, 'profile.avatar.removed', { avatarRemoteId: null, avatarUrl: null });
}

export function avatarRoutes(): Router {
  const router = Router();
  // The upload checks our CSRF token itself, from the multipart body it streams.
  router.post(ROUTES.avatarUpload, requireLoginFrom(ROUTES.profile), provideCsrfToken, uploadAvatar);
  router.post(ROUTES.avatarRemove, requireLoginFrom(ROUTES.profile), requireCsrf, provideCsrfToken, removeAvatar);
  return router;
}
