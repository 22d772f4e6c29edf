// The user record as the API shows it, and the purge that ends an account's deletion grace period.
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { AVATAR_NAME } from './avatar.ts';
import type { UserRecord } from './records.ts';
import type { AppOptions } from './options.ts';
import { iso } from './routes/route.ts';

export interface Accounts {
  avatarUrl(name: string | null): string | null;
  userJson(u: UserRecord): Record<string, unknown>;
  removeAvatarFile(name: string | null): Promise<void>;
  /** Purges an account whose grace period is over: local data first, then the identity (best effort). */
  purgeUser(user: UserRecord): Promise<UserRecord>;
  /** Purges every account whose grace period is over; returns how many. */
  purgeDue(): Promise<number>;
}

export function createAccounts(o: AppOptions): Accounts {
  const avatarUrl = (name: string | null) => (name ? `${o.publicUrl()}/avatars/${name}` : null);

  const removeAvatarFile = async (name: string | null) => {
    if (!name || !AVATAR_NAME.test(name)) return;
    await unlink(join(o.avatarsDir, name)).catch(() => {});
  };

  const purgeUser = async (user: UserRecord): Promise<UserRecord> => {
    const now = o.clock.now();
    const purged = o.store.updateUser(
      user._id,
      {
        state: 'deleted',
        deletedAt: now,
        email: null,
        name: null,
        avatarRemoteId: null,
        lastAccessAccount: null,
        linkedAccounts: [],
        deletionReason: null,
      },
      now,
    );
    await removeAvatarFile(user.avatarRemoteId);
    if (o.identityAdmin && user.identityId) {
      await o.identityAdmin.deleteIdentity(user.identityId).catch((err: unknown) => {
        o.logger.warn({ err, identityId: user.identityId }, 'could not delete identity of purged account');
      });
    }
    return purged;
  };

  return {
    avatarUrl,
    removeAvatarFile,
    purgeUser,
    userJson: (u) => ({
      _id: u._id,
      identityId: u.identityId,
      email: u.email,
      name: u.name,
      avatarRemoteId: u.avatarRemoteId,
      avatarUrl: avatarUrl(u.avatarRemoteId),
      state: u.state,
      deletionRequestedAt: iso(u.deletionRequestedAt),
      deletionScheduledAt: iso(u.deletionScheduledAt),
      reactivatedAt: iso(u.reactivatedAt),
      lastAccessAccount: u.lastAccessAccount,
      linkedAccounts: u.linkedAccounts,
      createdAt: iso(u.createdAt),
      updatedAt: iso(u.updatedAt),
    }),
    async purgeDue() {
      const due = o.store.usersDueForPurge(o.clock.now());
      for (const user of due) await purgeUser(user);
      return due.length;
    },
  };
}
