// SQLite persistence through node:sqlite. Documents are stored as JSON with a few indexed columns;
// every write runs inside a transaction.
import { DatabaseSync } from 'node:sqlite';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export interface StoredIdentity {
  id: string;
  schema_id: string;
  state: 'active' | 'inactive';
  state_changed_at?: string;
  traits: Record<string, unknown>;
  verifiable_addresses: VerifiableAddress[];
  recovery_addresses: RecoveryAddress[];
  metadata_public: unknown;
  metadata_admin: unknown;
  external_id?: string;
  credentials: Record<string, Credential>;
  created_at: string;
  updated_at: string;
}

export interface VerifiableAddress {
  id: string;
  value: string;
  verified: boolean;
  via: string;
  status: 'pending' | 'sent' | 'completed';
  verified_at?: string;
  created_at: string;
  updated_at: string;
}

export interface RecoveryAddress {
  id: string;
  value: string;
  via: string;
  created_at: string;
  updated_at: string;
}

export interface Credential {
  type: string;
  identifiers: string[];
  config: Record<string, unknown>;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface StoredSession {
  id: string;
  token: string;
  logout_token: string;
  identity_id: string;
  active: boolean;
  expires_at: string;
  authenticated_at: string;
  issued_at: string;
  aal: string;
  /** Kratos's AMR entries; `provider` for a social sign-in (omitempty). */
  authentication_methods: { method: string; aal: string; completed_at: string; provider?: string }[];
  devices: { id: string; ip_address: string; user_agent: string; location: string }[];
}

export interface CourierMessage {
  id: string;
  status: 'queued' | 'processing' | 'sent' | 'abandoned';
  type: 'email';
  recipient: string;
  subject: string;
  body: string;
  template_type: string;
  channel: string;
  send_count: number;
  dispatches: { id: string; message_id: string; status: 'failed' | 'success'; error?: unknown; created_at: string; updated_at: string }[];
  created_at: string;
  updated_at: string;
}

export class Store {
  db: DatabaseSync;

  constructor(path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new DatabaseSync(path);
    this.db.exec(`
      PRAGMA journal_mode = ${path === ':memory:' ? 'MEMORY' : 'WAL'};
      PRAGMA foreign_keys = ON;
      CREATE TABLE IF NOT EXISTS identities (id TEXT PRIMARY KEY, data TEXT NOT NULL, created_at TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS identifiers (identifier TEXT NOT NULL, type TEXT NOT NULL, identity_id TEXT NOT NULL REFERENCES identities(id) ON DELETE CASCADE, PRIMARY KEY (type, identifier));
      CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, token TEXT NOT NULL UNIQUE, logout_token TEXT NOT NULL, identity_id TEXT NOT NULL REFERENCES identities(id) ON DELETE CASCADE, data TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS sessions_identity ON sessions(identity_id);
      CREATE TABLE IF NOT EXISTS flows (id TEXT PRIMARY KEY, kind TEXT NOT NULL, data TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS flow_errors (id TEXT PRIMARY KEY, data TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS courier_messages (id TEXT PRIMARY KEY, recipient TEXT NOT NULL, seq INTEGER NOT NULL, data TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS identifiers_identity ON identifiers(identity_id);
      CREATE INDEX IF NOT EXISTS identifiers_identifier ON identifiers(identifier);
    `);
    // Addresses and external ids, looked up by value (recovery, verification, the admin API) without
    // reading every identity: 1 s at 100,000 identities before (issue #17 item 8). Filled from the
    // identities once, for a database made before this table.
    const fresh = !this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'lookups'").get();
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS lookups (kind TEXT NOT NULL, value TEXT NOT NULL, identity_id TEXT NOT NULL REFERENCES identities(id) ON DELETE CASCADE);
      CREATE INDEX IF NOT EXISTS lookups_value ON lookups(kind, value);
      CREATE INDEX IF NOT EXISTS lookups_identity ON lookups(identity_id);
    `);
    if (fresh) this.tx(() => this.listIdentities().forEach((identity) => this.saveLookups(identity)));
  }

  /** The values an identity is found by, other than its credential identifiers. */
  private saveLookups(identity: StoredIdentity): void {
    this.db.prepare('DELETE FROM lookups WHERE identity_id = ?').run(identity.id);
    const insert = this.db.prepare('INSERT INTO lookups (kind, value, identity_id) VALUES (?, ?, ?)');
    for (const address of identity.verifiable_addresses) insert.run('verifiable', address.value.toLowerCase(), identity.id);
    for (const address of identity.recovery_addresses) insert.run('recovery', address.value.toLowerCase(), identity.id);
    if (identity.external_id) insert.run('external_id', identity.external_id, identity.id);
  }

  /** The oldest identity a lookup value belongs to (the order listIdentities gives). */
  private findByLookup(kind: string, value: string): StoredIdentity | undefined {
    const row = this.db
      .prepare('SELECT i.data FROM lookups l JOIN identities i ON i.id = l.identity_id WHERE l.kind = ? AND l.value = ? ORDER BY i.created_at, i.id LIMIT 1')
      .get(kind, value) as { data: string } | undefined;
    return row ? (JSON.parse(row.data) as StoredIdentity) : undefined;
  }

  close(): void {
    this.db.close();
  }

  /** Runs fn inside a transaction (fn must be synchronous). */
  tx<T>(fn: () => T): T {
    if (this.db.isTransaction) return fn();
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const r = fn();
      this.db.exec('COMMIT');
      return r;
    } catch (e) {
      this.db.exec('ROLLBACK');
      throw e;
    }
  }

  // --- kv ---
  getKv(key: string): string | undefined {
    const row = this.db.prepare('SELECT value FROM kv WHERE key = ?').get(key) as { value: string } | undefined;
    return row?.value;
  }
  setKv(key: string, value: string): void {
    this.tx(() => this.db.prepare('INSERT INTO kv (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value));
  }

  // --- identities ---
  getIdentity(id: string): StoredIdentity | undefined {
    const row = this.db.prepare('SELECT data FROM identities WHERE id = ?').get(id) as { data: string } | undefined;
    return row ? (JSON.parse(row.data) as StoredIdentity) : undefined;
  }

  findIdentityByIdentifier(type: string, identifier: string): StoredIdentity | undefined {
    const row = this.db.prepare('SELECT identity_id FROM identifiers WHERE type = ? AND identifier = ?').get(type, identifier.toLowerCase()) as
      { identity_id: string } | undefined;
    return row ? this.getIdentity(row.identity_id) : undefined;
  }

  findIdentityByAnyIdentifier(identifier: string): StoredIdentity | undefined {
    const row = this.db.prepare('SELECT identity_id FROM identifiers WHERE identifier = ? LIMIT 1').get(identifier.toLowerCase()) as
      { identity_id: string } | undefined;
    return row ? this.getIdentity(row.identity_id) : undefined;
  }

  findIdentityByAddress(value: string, kind: 'verifiable' | 'recovery'): StoredIdentity | undefined {
    return this.findByLookup(kind, value.toLowerCase());
  }

  findIdentityByExternalId(externalId: string): StoredIdentity | undefined {
    return this.findByLookup('external_id', externalId);
  }

  listIdentities(): StoredIdentity[] {
    return (this.db.prepare('SELECT data FROM identities ORDER BY created_at, id').all() as { data: string }[]).map(
      (r) => JSON.parse(r.data) as StoredIdentity,
    );
  }

  /** Returns false when a credential identifier is already used by another identity. */
  saveIdentity(identity: StoredIdentity): boolean {
    return this.tx(() => {
      for (const [type, cred] of Object.entries(identity.credentials)) {
        for (const ident of cred.identifiers) {
          const row = this.db.prepare('SELECT identity_id FROM identifiers WHERE type = ? AND identifier = ?').get(type, ident.toLowerCase()) as
            { identity_id: string } | undefined;
          if (row && row.identity_id !== identity.id) return false;
        }
      }
      this.db
        .prepare('INSERT INTO identities (id, data, created_at) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET data = excluded.data')
        .run(identity.id, JSON.stringify(identity), identity.created_at);
      this.db.prepare('DELETE FROM identifiers WHERE identity_id = ?').run(identity.id);
      const ins = this.db.prepare('INSERT OR REPLACE INTO identifiers (identifier, type, identity_id) VALUES (?, ?, ?)');
      for (const [type, cred] of Object.entries(identity.credentials)) {
        for (const ident of cred.identifiers) ins.run(ident.toLowerCase(), type, identity.id);
      }
      this.saveLookups(identity);
      return true;
    });
  }

  deleteIdentity(id: string): boolean {
    return this.tx(() => {
      this.db.prepare('DELETE FROM sessions WHERE identity_id = ?').run(id);
      this.db.prepare('DELETE FROM identifiers WHERE identity_id = ?').run(id);
      this.db.prepare('DELETE FROM lookups WHERE identity_id = ?').run(id);
      return Number(this.db.prepare('DELETE FROM identities WHERE id = ?').run(id).changes) > 0;
    });
  }

  // --- sessions ---
  saveSession(s: StoredSession): void {
    this.tx(() =>
      this.db
        .prepare(
          'INSERT INTO sessions (id, token, logout_token, identity_id, data) VALUES (?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET token = excluded.token, data = excluded.data',
        )
        .run(s.id, s.token, s.logout_token, s.identity_id, JSON.stringify(s)),
    );
  }
  getSession(id: string): StoredSession | undefined {
    const row = this.db.prepare('SELECT data FROM sessions WHERE id = ?').get(id) as { data: string } | undefined;
    return row ? (JSON.parse(row.data) as StoredSession) : undefined;
  }
  getSessionByToken(token: string): StoredSession | undefined {
    const row = this.db.prepare('SELECT data FROM sessions WHERE token = ?').get(token) as { data: string } | undefined;
    return row ? (JSON.parse(row.data) as StoredSession) : undefined;
  }
  listSessions(identityId?: string): StoredSession[] {
    const rows = (
      identityId ? this.db.prepare('SELECT data FROM sessions WHERE identity_id = ?').all(identityId) : this.db.prepare('SELECT data FROM sessions').all()
    ) as { data: string }[];
    return rows.map((r) => JSON.parse(r.data) as StoredSession).sort((a, b) => b.authenticated_at.localeCompare(a.authenticated_at));
  }
  deleteSessionsOf(identityId: string): number {
    return this.tx(() => Number(this.db.prepare('DELETE FROM sessions WHERE identity_id = ?').run(identityId).changes));
  }

  // --- flows ---
  saveFlow(kind: string, flow: { id: string }): void {
    this.tx(() =>
      this.db
        .prepare('INSERT INTO flows (id, kind, data) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET data = excluded.data')
        .run(flow.id, kind, JSON.stringify(flow)),
    );
  }
  getFlow<T>(kind: string, id: string): T | undefined {
    const row = this.db.prepare('SELECT data FROM flows WHERE id = ? AND kind = ?').get(id, kind) as { data: string } | undefined;
    return row ? (JSON.parse(row.data) as T) : undefined;
  }

  // --- errors ---
  saveError(id: string, data: unknown): void {
    this.tx(() => this.db.prepare('INSERT INTO flow_errors (id, data) VALUES (?, ?)').run(id, JSON.stringify(data)));
  }
  getError(id: string): unknown {
    const row = this.db.prepare('SELECT data FROM flow_errors WHERE id = ?').get(id) as { data: string } | undefined;
    return row ? JSON.parse(row.data) : undefined;
  }

  // --- courier ---
  saveMessage(m: CourierMessage): void {
    this.tx(() => {
      const existing = this.db.prepare('SELECT seq FROM courier_messages WHERE id = ?').get(m.id) as { seq: number } | undefined;
      if (existing) {
        this.db.prepare('UPDATE courier_messages SET data = ? WHERE id = ?').run(JSON.stringify(m), m.id);
      } else {
        const next = (this.db.prepare('SELECT COALESCE(MAX(seq), 0) + 1 AS n FROM courier_messages').get() as { n: number }).n;
        this.db
          .prepare('INSERT INTO courier_messages (id, recipient, seq, data) VALUES (?, ?, ?, ?)')
          .run(m.id, m.recipient.toLowerCase(), next, JSON.stringify(m));
      }
    });
  }
  getMessage(id: string): CourierMessage | undefined {
    const row = this.db.prepare('SELECT data FROM courier_messages WHERE id = ?').get(id) as { data: string } | undefined;
    return row ? (JSON.parse(row.data) as CourierMessage) : undefined;
  }
  /** Newest first. */
  listMessages(recipient?: string): CourierMessage[] {
    const rows = (
      recipient
        ? this.db.prepare('SELECT data FROM courier_messages WHERE recipient = ? ORDER BY seq DESC').all(recipient.toLowerCase())
        : this.db.prepare('SELECT data FROM courier_messages ORDER BY seq DESC').all()
    ) as { data: string }[];
    return rows.map((r) => JSON.parse(r.data) as CourierMessage);
  }
}
