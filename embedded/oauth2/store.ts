// The stand-in's SQLite storage (node:sqlite): one table of JSON documents keyed by kind and id, with
// the few columns the lookups need (subject, client, a reference such as the grant or the login session,
// and the expiry). Clients, authorization flows, login sessions, tokens, logout requests and the signing
// key all live here, so a file database keeps everything across restarts.
import { DatabaseSync } from 'node:sqlite';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export type Kind = 'client' | 'flow' | 'verdict' | 'login_session' | 'token' | 'logout' | 'key' | 'alias';

export type Columns = { subject?: string; clientId?: string; ref?: string; expiresAt?: number };

type Row = { data: string };

export class OAuth2Store {
  private readonly db: DatabaseSync;

  constructor(path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new DatabaseSync(path);
    this.db.exec(`
      PRAGMA journal_mode = WAL;
      CREATE TABLE IF NOT EXISTS documents (
        kind TEXT NOT NULL, id TEXT NOT NULL, data TEXT NOT NULL,
        subject TEXT, client_id TEXT, ref TEXT, expires_at INTEGER, seq INTEGER NOT NULL,
        PRIMARY KEY (kind, id));
      CREATE INDEX IF NOT EXISTS documents_subject ON documents (kind, subject);
      CREATE INDEX IF NOT EXISTS documents_client ON documents (kind, client_id);
      CREATE INDEX IF NOT EXISTS documents_ref ON documents (kind, ref);
      CREATE INDEX IF NOT EXISTS documents_seq ON documents (seq);
    `);
  }

  get<T>(kind: Kind, id: string): T | undefined {
    const row = this.db.prepare('SELECT data FROM documents WHERE kind = ? AND id = ?').get(kind, id) as Row | undefined;
    return row ? (JSON.parse(row.data) as T) : undefined;
  }

  put(kind: Kind, id: string, data: unknown, columns: Columns = {}): void {
    // seq keeps insertion order for listings (clients are listed oldest first, as Hydra does).
    const seq = (this.db.prepare('SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM documents').get() as { next: number }).next;
    this.db
      .prepare(
        `INSERT INTO documents (kind, id, data, subject, client_id, ref, expires_at, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (kind, id) DO UPDATE SET data = excluded.data, subject = excluded.subject, client_id = excluded.client_id,
           ref = excluded.ref, expires_at = excluded.expires_at`,
      )
      .run(kind, id, JSON.stringify(data), columns.subject ?? null, columns.clientId ?? null, columns.ref ?? null, columns.expiresAt ?? null, seq);
  }

  delete(kind: Kind, id: string): void {
    this.db.prepare('DELETE FROM documents WHERE kind = ? AND id = ?').run(kind, id);
  }

  find<T>(kind: Kind, where: Omit<Columns, 'expiresAt'>): T[] {
    const { sql, values } = whereClause(kind, where);
    return (this.db.prepare(`SELECT data FROM documents WHERE ${sql} ORDER BY seq`).all(...values) as Row[]).map((row) => JSON.parse(row.data) as T);
  }

  findWithIds<T>(kind: Kind, where: Omit<Columns, 'expiresAt'>): { id: string; data: T }[] {
    const { sql, values } = whereClause(kind, where);
    return (this.db.prepare(`SELECT id, data FROM documents WHERE ${sql} ORDER BY seq`).all(...values) as (Row & { id: string })[]).map((row) => ({
      id: row.id,
      data: JSON.parse(row.data) as T,
    }));
  }

  deleteWhere(kind: Kind, where: Omit<Columns, 'expiresAt'>): void {
    const { sql, values } = whereClause(kind, where);
    this.db.prepare(`DELETE FROM documents WHERE ${sql}`).run(...values);
  }

  /** An alternative key (a challenge, a verifier, a token signature) pointing at a document id. */
  alias(name: string, id: string, expiresAt?: number): void {
    this.put('alias', name, id, { ref: id, expiresAt });
  }

  resolve(name: string): string | undefined {
    return this.get<string>('alias', name);
  }

  /** Drops what has expired (expires_at is in ms of the provider's clock). */
  sweep(nowMs: number): void {
    this.db.prepare('DELETE FROM documents WHERE expires_at IS NOT NULL AND expires_at < ?').run(nowMs);
  }

  close(): void {
    this.db.close();
  }
}

function whereClause(kind: Kind, where: Omit<Columns, 'expiresAt'>): { sql: string; values: string[] } {
  const parts = ['kind = ?'];
  const values: string[] = [kind];
  const columns = { subject: where.subject, client_id: where.clientId, ref: where.ref };
  for (const [column, value] of Object.entries(columns)) {
    if (value === undefined) continue;
    parts.push(`${column} = ?`);
    values.push(value);
  }
  return { sql: parts.join(' AND '), values };
}
