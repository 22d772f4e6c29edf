// The backend's stored records: their TypeScript shapes and how SQLite rows map onto them.

export type UserState = 'active' | 'pending_deletion' | 'deleted';

export interface LastAccessAccount {
  email: string;
  loginService: string | null;
  name: string | null;
  avatarRemoteId: string | null;
  at: string;
}

export interface LinkedAccount {
  provider: string;
  email: string;
  linkedAt: string;
}

export interface UserRecord {
  _id: string;
  identityId: string | null;
  email: string | null;
  name: string | null;
  avatarRemoteId: string | null;
  state: UserState;
  deletionRequestedAt: number | null;
  deletionScheduledAt: number | null;
  deletionReason: string | null;
  deletedAt: number | null;
  reactivatedAt: number | null;
  lastAccessAccount: LastAccessAccount | null;
  linkedAccounts: LinkedAccount[];
  lastSignOutAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface InvitationRecord {
  tokenHash: string;
  email: string;
  invitedBy: string | null;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
  usedByIdentityId: string | null;
}

export interface OutboxMessage {
  id: number;
  kind: string;
  email: string;
  identityId: string | null;
  link: string | null;
  expiresAt: string | null;
  createdAt: string;
}

export type Row = Record<string, unknown>;

function parseJson<T>(value: unknown, fallback: T): T {
  if (typeof value !== 'string') return fallback;
  try {
    return JSON.parse(value) as T;
  } catch {
    return fallback;
  }
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

export function toUser(row: Row): UserRecord {
  return {
    _id: String(row._id),
    identityId: str(row.identity_id),
    email: str(row.email),
    name: str(row.name),
    avatarRemoteId: str(row.avatar_remote_id),
    state: row.state as UserState,
    deletionRequestedAt: num(row.deletion_requested_at),
    deletionScheduledAt: num(row.deletion_scheduled_at),
    deletionReason: str(row.deletion_reason),
    deletedAt: num(row.deleted_at),
    reactivatedAt: num(row.reactivated_at),
    lastAccessAccount: parseJson<LastAccessAccount | null>(row.last_access_account, null),
    linkedAccounts: parseJson<LinkedAccount[]>(row.linked_accounts, []),
    lastSignOutAt: num(row.last_sign_out_at),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

export function toInvitation(row: Row): InvitationRecord {
  return {
    tokenHash: String(row.token_hash),
    email: String(row.email),
    invitedBy: str(row.invited_by),
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    usedAt: num(row.used_at),
    usedByIdentityId: str(row.used_by_identity_id),
  };
}

export const USER_COLUMNS: Record<string, string> = {
  identityId: 'identity_id',
  email: 'email',
  name: 'name',
  avatarRemoteId: 'avatar_remote_id',
  state: 'state',
  deletionRequestedAt: 'deletion_requested_at',
  deletionScheduledAt: 'deletion_scheduled_at',
  deletionReason: 'deletion_reason',
  deletedAt: 'deleted_at',
  reactivatedAt: 'reactivated_at',
  lastAccessAccount: 'last_access_account',
  linkedAccounts: 'linked_accounts',
  lastSignOutAt: 'last_sign_out_at',
};

export function toOutboxMessage(r: Row): OutboxMessage {
  return {
    id: Number(r.id),
    kind: String(r.kind),
    email: String(r.email),
    identityId: str(r.identity_id),
    link: str(r.link),
    expiresAt: str(r.expires_at),
    createdAt: new Date(Number(r.created_at)).toISOString(),
  };
}
