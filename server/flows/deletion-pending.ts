/**
 * An account waiting for deletion is offered its restore before anything else it signs in to. The backend
 * keeps the state (pending_deletion); the identity carries a marker of it (DELETION_REQUESTED_AT, in its
 * public metadata, so every session says it without a backend call). Without the marker a sign-in through
 * the document app (OAuth2) went on as usual, and the account was deleted at the end of the grace period
 * while in use.
 *
 *   throughRestoreOffer(req, session, target)
 *     where a sign-in goes: /profile-settings (the restore offer) with return_to = the target while the
 *     marker is there, else the target
 *   sentToRestoreOffer(req, res, session)
 *     the same for a signed-in page on the way to the product (home, /open-drive): back to it once restored
 *   markDeletion(req, session, pending)
 *     keeps the marker in step with the backend's state: written at the deletion, removed at the restore,
 *     and corrected whenever the profile reads the state (a deletion or a restore made elsewhere); never
 *     rejects
 */
import type { Request, Response } from 'express';
import type { KratosSession } from '../../core/kratos/types.ts';
import { pathWithQuery, ROUTES } from '../../core/routes.ts';
import { LOG_REASONS } from '../log-reasons.ts';
import { configOf } from '../request-context.ts';
import { respondRedirect, responseMode } from './respond.ts';
import { DELETION_REQUESTED_AT, publicMetadataOf, setPublicMetadata } from './identity-metadata.ts';

export function awaitsDeletion(session: KratosSession | null | undefined): boolean {
  return typeof publicMetadataOf(session)?.[DELETION_REQUESTED_AT] === 'string';
}

export function throughRestoreOffer(req: Request, session: KratosSession | null | undefined, target: string): string {
  if (!awaitsDeletion(session)) return target;
  const ours = new URL(configOf(req).PUBLIC_URL);
  const url = new URL(target, ours);
  if (url.origin === ours.origin && url.pathname === ROUTES.profile) return target; // the offer itself
  return pathWithQuery(ROUTES.profile, { return_to: target });
}

/** A signed-in page on the way to the product (home, /open-drive): sends a marked browser to the offer and back here; true when it did. */
export function sentToRestoreOffer(req: Request, res: Response, session: KratosSession | null | undefined): boolean {
  if (!awaitsDeletion(session) || responseMode(req) === 'json') return false;
  respondRedirect(req, res, throughRestoreOffer(req, session, req.originalUrl));
  return true;
}

export async function markDeletion(req: Request, session: KratosSession, pending: boolean): Promise<void> {
  const identityId = session.identity?.id;
  if (!identityId || awaitsDeletion(session) === pending) return;
  try {
    await setPublicMetadata(req, identityId, DELETION_REQUESTED_AT, pending ? new Date().toISOString() : undefined);
  } catch (error) {
    // Without the marker a sign-in elsewhere misses the offer once more; the next profile visit writes it again.
    req.log?.warn(
      { status: (error as { response?: { status?: number } }).response?.status, reason: LOG_REASONS.updateIdentity, pending },
      'deletion marker not updated on the identity',
    );
  }
}
