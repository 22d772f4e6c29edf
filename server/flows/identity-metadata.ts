/**
 * Our markers in an identity's public metadata (Kratos's `metadata_public`, which every session's identity
 * carries, so reading a marker costs no call). Written through Kratos's admin API, one member at a time
 * (JSON Patch on the member, not the whole object), so two markers written at once do not erase each other.
 *
 *   BACKEND_SIGNED_UP_AT    the backend knows the account (signed-in-landing.ts, decision 150)
 *   DELETION_REQUESTED_AT   the account waits for deletion: a sign-in goes to the restore offer first
 *                           (deletion-pending.ts)
 */
import type { Request } from 'express';
import type { KratosSession } from '../../core/kratos/types.ts';
import { oryClients } from '../ory.ts';
import { configOf } from '../request-context.ts';

/** The backend has the account (ISO 8601 of its sign-up call). */
export const BACKEND_SIGNED_UP_AT = 'backendSignedUpAt';
/** The account's deletion was requested (ISO 8601); gone once it is restored. */
export const DELETION_REQUESTED_AT = 'deletionRequestedAt';

type Metadata = Record<string, unknown> | null | undefined;

export function publicMetadataOf(session: KratosSession | null | undefined): Metadata {
  return (session?.identity as { metadata_public?: Metadata } | undefined)?.metadata_public;
}

/**
 * Sets (a string) or removes (undefined) one member of the identity's public metadata. Rejects with the
 * admin API's error; a member already absent is no error.
 */
export async function setPublicMetadata(req: Request, identityId: string, member: string, value: string | undefined): Promise<void> {
  const admin = oryClients(configOf(req)).identityAdmin;
  const current = ((await admin.getIdentity({ id: identityId })).data as { metadata_public?: Metadata }).metadata_public;
  const hasObject = typeof current === 'object' && current !== null && !Array.isArray(current);
  if (value === undefined && !(hasObject && member in current)) return;
  const jsonPatch =
    value === undefined
      ? [{ op: 'remove' as const, path: `/metadata_public/${member}` }]
      : hasObject
        ? [{ op: 'add' as const, path: `/metadata_public/${member}`, value }]
        : [{ op: 'add' as const, path: '/metadata_public', value: { [member]: value } }];
  await admin.patchIdentity({ id: identityId, jsonPatch });
}
