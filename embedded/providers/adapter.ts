// oidc-provider's storage, in memory and per provider. Its own memory adapter keeps one module-wide
// LRU of 1,000 entries shared by every instance, which a test run with many stacks would overflow.
// Clients come from here too (not from static `clients`), so relying parties trusted after the start
// (`trustRelyingParty`) get their redirect URIs at once: oidc-provider rebuilds a client whenever
// the metadata the adapter returns changes.
import type { Adapter, AdapterPayload } from 'oidc-provider';

export type ClientMetadata = Record<string, unknown> & { client_id: string; redirect_uris: string[] };

export interface ProviderStorage {
  adapterFactory(name: string): Adapter;
  clients: Map<string, ClientMetadata>;
  /** How many entries are held, expired or not (for tests). */
  size(): number;
}

interface Entry {
  payload: AdapterPayload;
  expiresAt: number;
}

/** Expired entries go when read, and all of them every so many writes, so a long `npm start` keeps only what is alive. */
const SWEEP_EVERY = 500;

export function createProviderStorage(): ProviderStorage {
  // Every map holds full keys (`<model>:<id>`).
  const entries = new Map<string, Entry>();
  const byUid = new Map<string, string>();
  const byUserCode = new Map<string, string>();
  const grantMembers = new Map<string, Set<string>>();
  const clients = new Map<string, ClientMetadata>();
  let writes = 0;

  const live = (key: string | undefined): AdapterPayload | undefined => {
    const entry = key === undefined ? undefined : entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      entries.delete(key!);
      return undefined;
    }
    return entry.payload;
  };

  const sweep = () => {
    for (const key of entries.keys()) live(key);
    for (const index of [byUid, byUserCode]) for (const [value, key] of index) if (!entries.has(key)) index.delete(value);
    for (const [grantId, members] of grantMembers) {
      for (const key of members) if (!entries.has(key)) members.delete(key);
      if (members.size === 0) grantMembers.delete(grantId);
    }
  };

  const adapterFactory = (name: string): Adapter => {
    const keyOf = (id: string) => `${name}:${id}`;
    return {
      async upsert(id, payload, expiresIn) {
        if (++writes % SWEEP_EVERY === 0) sweep();
        const key = keyOf(id);
        // oidc-provider reads time from Date, so storage expiry does too.
        entries.set(key, { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : Infinity });
        if (payload.uid) byUid.set(payload.uid, key);
        if (payload.userCode) byUserCode.set(payload.userCode, key);
        if (payload.grantId) grantMembers.set(payload.grantId, (grantMembers.get(payload.grantId) ?? new Set()).add(key));
      },
      async find(id) {
        return name === 'Client' ? clients.get(id) : live(keyOf(id));
      },
      async findByUid(uid) {
        return live(byUid.get(uid));
      },
      async findByUserCode(userCode) {
        return live(byUserCode.get(userCode));
      },
      async consume(id) {
        const payload = live(keyOf(id));
        if (payload) payload.consumed = Math.floor(Date.now() / 1000);
      },
      async destroy(id) {
        entries.delete(keyOf(id));
      },
      async revokeByGrantId(grantId) {
        for (const key of grantMembers.get(grantId) ?? []) entries.delete(key);
        grantMembers.delete(grantId);
      },
    };
  };

  return { adapterFactory, clients, size: () => entries.size };
}
