/**
 * /open-drive (no login required to arrive): Google Drive's "Open with" and "New" entry (decision 140).
 * Drive sends `?state=<JSON>`: `{ ids | exportIds, resourceKeys?, action: "open", userId }` for Open with,
 * `{ action: "create", folderId?, folderResourceKey?, userId }` for New. We check it strictly (a forged or
 * malformed state is a translated 400), send a guest to sign-in and back, then hand the files to the
 * document app (DOCUMENT_APP_URL/open?ids=…&action=…&userId=…), or, with none configured, say what would open.
 */
import { Router, type Request, type Response } from 'express';
import { createElement } from 'react';
import { z } from 'zod';
import { AppError, ERROR_CODES } from '../../core/errors.ts';
import type { KratosSession } from '../../core/kratos/types.ts';
import { DRIVE_STATE_LIMITS } from '../../core/limits.ts';
import { ROUTES } from '../../core/routes.ts';
import { FlowErrorPage } from '../../views/pages/FlowErrorPage.tsx';
import { OpenDrivePage, type DriveRequest } from '../../views/pages/OpenDrivePage.tsx';
import { sentToRestoreOffer } from '../flows/deletion-pending.ts';
import { respondError, respondRedirect, responseMode } from '../flows/respond.ts';
import { requireLogin } from '../flows/session.ts';
import { documentEndpoint, errorResponse } from '../openapi/registry.ts';
import { renderPage } from '../render.tsx';
import { configOf, translator } from '../request-context.ts';

/** Drive file and folder ids: URL-safe base64-like, never shorter than 10 characters. */
const driveId = z.string().regex(new RegExp(`^[A-Za-z0-9_-]{10,${DRIVE_STATE_LIMITS.idMax}}$`));
const resourceKey = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/);
const ids = z.array(driveId).min(1).max(DRIVE_STATE_LIMITS.idsMax);
const userId = z.string().regex(new RegExp(`^[A-Za-z0-9_-]{1,${DRIVE_STATE_LIMITS.userIdMax}}$`));

const openState = z
  .object({
    action: z.literal('open'),
    ids: ids.optional(),
    exportIds: ids.optional(),
    resourceKeys: z.record(driveId, resourceKey).optional(),
    userId,
  })
  .refine((state) => state.ids || state.exportIds, { message: 'ids or exportIds' });
const createState = z.object({ action: z.literal('create'), folderId: driveId.optional(), folderResourceKey: resourceKey.optional(), userId });
const driveState = z.union([openState, createState]);
type DriveState = z.infer<typeof driveState>;

const openDriveQuery = z.object({ state: z.string().max(DRIVE_STATE_LIMITS.stateMax).describe('Google Drive’s state (JSON)') });

documentEndpoint({
  method: 'get',
  path: ROUTES.openDrive,
  summary: 'Google Drive “Open with” / “New”: the files go to the document app',
  tags: ['drive'],
  query: openDriveQuery,
  responses: {
    200: { description: 'No document app configured: what would open (HTML); JSON: where to go', schema: z.object({ redirect_to: z.string() }) },
    303: { description: 'To the document app; a guest to /sign-in?return_to=…' },
    400: errorResponse('drive_state_invalid'),
  },
});

function parseState(raw: unknown): DriveState | undefined {
  if (typeof raw !== 'string' || raw.length > DRIVE_STATE_LIMITS.stateMax) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const parsed = driveState.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}

function requestOf(state: DriveState): DriveRequest {
  if (state.action === 'create') return { action: 'create', ids: [], folderId: state.folderId };
  return { action: 'open', ids: [...(state.ids ?? []), ...(state.exportIds ?? [])] };
}

/** The document app's address for these files: `/open?ids=a,b&action=open&userId=…` (and `folderId` for New). */
function documentAppUrl(base: string, state: DriveState): string {
  const url = new URL('open', base.endsWith('/') ? base : `${base}/`);
  const request = requestOf(state);
  if (request.ids.length > 0) url.searchParams.set('ids', request.ids.join(','));
  url.searchParams.set('action', state.action);
  url.searchParams.set('userId', state.userId);
  if (request.folderId) url.searchParams.set('folderId', request.folderId);
  return url.href;
}

/** Checked before the login: a forged state is refused to guests too, and never sent through sign-in. */
function checkState(req: Request, res: Response, next: () => void): void {
  const state = parseState(req.query.state);
  if (state) {
    res.locals.driveState = state;
    return next();
  }
  const error = new AppError(400, ERROR_CODES.driveStateInvalid, translator(req)('openDrive.invalidState'));
  respondError(req, res, error, () => createElement(FlowErrorPage, { message: error.message, code: error.code, retryHref: ROUTES.home }));
}

function open(req: Request, res: Response): void {
  const config = configOf(req);
  const state = res.locals.driveState as DriveState;
  // An account waiting for deletion: the restore offer first, then back here (deletion-pending.ts).
  if (sentToRestoreOffer(req, res, res.locals.kratosSession as KratosSession)) return;
  if (config.DOCUMENT_APP_URL) return respondRedirect(req, res, documentAppUrl(config.DOCUMENT_APP_URL, state));
  const request = requestOf(state);
  if (responseMode(req) === 'json')
    return void res.set('Cache-Control', 'no-store').json({ action: request.action, ids: request.ids, folderId: request.folderId });
  renderPage(req, res, createElement(OpenDrivePage, { request }), { title: translator(req)('openDrive.title') });
}

export function openDriveRoutes(): Router {
  const router = Router();
  router.get(ROUTES.openDrive, checkState, requireLogin, open);
  return router;
}
