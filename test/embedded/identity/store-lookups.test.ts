// The identity stand-in finds an identity by address or external id through an index, not by reading
// every identity (issue #17 item 8: a recovery code took 1 s at 100,000 identities), and keeps that
// index right through changes, deletions and a database made before it existed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { Store as IdentityStore, type StoredIdentity } from '../../../embedded/identity/store.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'identity-lookups-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function identity(id: string, email: string, externalId?: string): StoredIdentity {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, Number(id.replace(/\D/g, '')) || 0)).toISOString();
  const address = { id: `${id}-a`, value: email, via: 'email', created_at: at, updated_at: at };
  return {
    id,
    schema_id: 'default',
    state: 'active',
    traits: { email },
    verifiable_addresses: [{ ...address, verified: false, status: 'pending' }],
    recovery_addresses: [address],
    metadata_public: null,
    metadata_admin: null,
    ...(externalId ? { external_id: externalId } : {}),
    credentials: { password: { type: 'password', identifiers: [email], config: {}, version: 0, created_at: at, updated_at: at } },
    created_at: at,
    updated_at: at,
  };
}

describe('identity store lookups', () => {
  it('finds by address and external id, follows a change of address, forgets a deleted identity', () => {
    const store = new IdentityStore(':memory:');
    store.saveIdentity(identity('id-1', 'ada@example.com', 'ext-1'));
    store.saveIdentity(identity('id-2', 'grace@example.com'));
    expect(store.findIdentityByAddress('ADA@example.com', 'recovery')?.id).toBe('id-1');
    expect(store.findIdentityByAddress('grace@example.com', 'verifiable')?.id).toBe('id-2');
    expect(store.findIdentityByExternalId('ext-1')?.id).toBe('id-1');
    const moved = identity('id-1', 'ada.lovelace@example.com', 'ext-1');
    store.saveIdentity(moved);
    expect(store.findIdentityByAddress('ada@example.com', 'recovery')).toBeUndefined();
    expect(store.findIdentityByAddress('ada.lovelace@example.com', 'recovery')?.id).toBe('id-1');
    store.deleteIdentity('id-1');
    expect(store.findIdentityByAddress('ada.lovelace@example.com', 'recovery')).toBeUndefined();
    expect(store.findIdentityByExternalId('ext-1')).toBeUndefined();
    store.close();
  });

  it('looks up through indexes, not by scanning', () => {
    const store = new IdentityStore(':memory:');
    const db = (store as unknown as { db: DatabaseSync }).db;
    const plan = (sql: string) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((row) => row.detail).join(' | ');
    expect(plan("SELECT identity_id FROM lookups WHERE kind = 'recovery' AND value = 'x'")).toMatch(/USING INDEX lookups_value/);
    expect(plan("DELETE FROM identifiers WHERE identity_id = 'x'")).toMatch(/USING INDEX identifiers_identity|USING COVERING INDEX identifiers_identity/);
    expect(plan("SELECT identity_id FROM identifiers WHERE identifier = 'x'")).toMatch(/INDEX identifiers_identifier/);
    store.close();
  });

  it('fills the index once for a database made before it', () => {
    const file = path.join(dir, 'old.sqlite');
    const first = new IdentityStore(file);
    first.saveIdentity(identity('id-7', 'old@example.com', 'ext-7'));
    first.close();
    // As a database from before the lookups table: drop it.
    const raw = new DatabaseSync(file);
    raw.exec('DROP TABLE lookups');
    raw.close();
    const reopened = new IdentityStore(file);
    expect(reopened.findIdentityByAddress('old@example.com', 'verifiable')?.id).toBe('id-7');
    expect(reopened.findIdentityByExternalId('ext-7')?.id).toBe('id-7');
    reopened.close();
  });
});
