// SQLite storage (node:sqlite). Every write runs inside a transaction (`Store.tx`).
import { DatabaseSync } from 'node:sqlite';
import { randomBytes } from 'node:crypto';
import { toInvitation, toOutboxMessage, toUser, USER_COLUMNS, type InvitationRecord, type OutboxMessage, type Row, type UserRecord } from './records.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS users (
  _id TEXT PRIMARY KEY,
  identity_id TEXT UNIQUE,
  email TEXT,
  name TEXT,
  avatar_remote_id TEXT,
  state TEXT NOT NULL DEFAULT 'active' CHECK (state IN ('active','pending_deletion','deleted')),
  deletion_requested_at INTEGER,
  deletion_scheduled_at INTEGER,
  deletion_reason TEXT,
  deleted_at INTEGER,
  reactivated_at INTEGER,
  last_access_account TEXT,
  linked_accounts TEXT NOT NULL DEFAULT '[]',
  last_sign_out_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS users_email ON users(email);
CREATE INDEX IF NOT EXISTS users_deletion ON users(state, deletion_scheduled_at);
CREATE TABLE IF NOT EXISTS invitations (
  token_hash TEXT PRIMARY KEY,
  email TEXT NOT NULL,
  invited_by TEXT,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER,
  used_by_identity_id TEXT
);
CREATE TABLE IF NOT EXISTS outbox (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL,
  email TEXT NOT NULL,
  identity_id TEXT,
  link TEXT,
  expires_at TEXT,
  created_at INTEGER NOT NULL
);
`;

/** Mongo-style 24 hex character id, as the real backend's `_id`. */
export const newObjectId = (): string => randomBytes(12).toString('hex');

export type UserPatch = Partial<Omit<UserRecord, '_id' | 'createdAt' | 'updatedAt'>>;

export class Store {
  db: DatabaseSync;

  constructor(path: string) {
    this.db = new DatabaseSync(path);
    this.db.exec('PRAGMA foreign_keys = ON');
    this.db.exec('PRAGMA busy_timeout = 5000');
    if (path !== ':memory:') this.db.exec('PRAGMA journal_mode = WAL');
    this.db.exec(SCHEMA);
  }

  /** Runs `fn` inside BEGIN IMMEDIATE … COMMIT (ROLLBACK on throw). `fn` must be synchronous. */
  tx<T>(fn: () => T): T {
    if (this.db.isTransaction) return fn();
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const result = fn();
      this.db.exec('COMMIT');
      return result;
    } catch (err) {
      this.db.exec('ROLLBACK');
      throw err;
    }
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }

  userById(id: string): UserRecord | null {
    const row = this.db.prepare('SELECT * FROM users WHERE _id = ?').get(id) as Row | undefined;
    return row ? toUser(row) : null;
  }

  userByIdentity(identityId: string): UserRecord | null {
    const row = this.db.prepare('SELECT * FROM users WHERE identity_id = ?').get(identityId) as Row | undefined;
    return row ? toUser(row) : null;
  }

  usersByEmail(email: string): UserRecord[] {
    const rows = this.db.prepare("SELECT * FROM users WHERE email = ? AND state != 'deleted' ORDER BY updated_at DESC").all(email) as Row[];
    return rows.map(toUser);
  }

  usersDueForPurge(now: number): UserRecord[] {
    const rows = this.db.prepare("SELECT * FROM users WHERE state = 'pending_deletion' AND deletion_scheduled_at <= ?").all(now) as Row[];
    return rows.map(toUser);
  }

  createUser(input: { identityId: string; email: string | null; name?: string | null }, now: number): UserRecord {
    return this.tx(() => {
      const existing = this.userByIdentity(input.identityId);
      if (existing) return existing;
      const id = newObjectId();
      this.db
        .prepare('INSERT INTO users (_id, identity_id, email, name, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(id, input.identityId, input.email, input.name ?? null, 'active', now, now);
      return this.userById(id)!;
    });
  }

  updateUser(id: string, patch: UserPatch, now: number): UserRecord {
    return this.tx(() => {
      const sets: string[] = [];
      const values: (string | number | null)[] = [];
      for (const [key, value] of Object.entries(patch)) {
        const column = USER_COLUMNS[key];
        if (!column || value === undefined) continue;
        sets.push(`${column} = ?`);
        if (key === 'lastAccessAccount' || key === 'linkedAccounts') {
          values.push(value === null ? null : JSON.stringify(value));
        } else {
          values.push(value as string | number | null);
        }
      }
      sets.push('updated_at = ?');
      values.push(now);
      values.push(id);
      this.db.prepare(`UPDATE users SET ${sets.join(', ')} WHERE _id = ?`).run(...values);
      return this.userById(id)!;
    });
  }

  deleteUserRow(id: string): void {
    this.tx(() => {
      this.db.prepare('DELETE FROM users WHERE _id = ?').run(id);
    });
  }

  createInvitation(inv: Omit<InvitationRecord, 'usedAt' | 'usedByIdentityId'>): void {
    this.tx(() => {
      this.db
        .prepare('INSERT INTO invitations (token_hash, email, invited_by, created_at, expires_at) VALUES (?, ?, ?, ?, ?)')
        .run(inv.tokenHash, inv.email, inv.invitedBy, inv.createdAt, inv.expiresAt);
    });
  }

  invitation(tokenHash: string): InvitationRecord | null {
    const row = this.db.prepare('SELECT * FROM invitations WHERE token_hash = ?').get(tokenHash) as Row | undefined;
    return row ? toInvitation(row) : null;
  }

  /** Marks an unused, unexpired invitation as used; false when it was not (any more) usable. */
  reserveInvitation(tokenHash: string, now: number): boolean {
    return this.tx(() => {
      const res = this.db.prepare('UPDATE invitations SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?').run(now, tokenHash, now);
      return Number(res.changes) === 1;
    });
  }

  releaseInvitation(tokenHash: string): void {
    this.tx(() => {
      this.db.prepare('UPDATE invitations SET used_at = NULL WHERE token_hash = ? AND used_by_identity_id IS NULL').run(tokenHash);
    });
  }

  completeInvitation(tokenHash: string, identityId: string): void {
    this.tx(() => {
      this.db.prepare('UPDATE invitations SET used_by_identity_id = ? WHERE token_hash = ?').run(identityId, tokenHash);
    });
  }

  addOutbox(msg: { kind: string; email: string; identityId: string | null; link: string | null; expiresAt: string | null }, now: number): void {
    this.tx(() => {
      this.db
        .prepare('INSERT INTO outbox (kind, email, identity_id, link, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(msg.kind, msg.email, msg.identityId, msg.link, msg.expiresAt, now);
    });
  }

  outbox(limit = 50): OutboxMessage[] {
    const rows = this.db.prepare('SELECT * FROM outbox ORDER BY id DESC LIMIT ?').all(limit) as Row[];
    return rows.map(toOutboxMessage);
  }
}
