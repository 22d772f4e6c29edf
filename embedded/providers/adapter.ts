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
}

interface Entry {
  payload: AdapterPayload;
  expiresAt: number;
}

export function createProviderStorage(): ProviderStorage {
  const entries = new Map<string, Entry>();
  const uidIndex = new Map<string, string>();
  const userCodeIndex = new Map<string, string>();
  const grantMembers = new Map<string, Set<string>>();
  const clients = new Map<string, ClientMetadata>();

  const live = (key: string): AdapterPayload | undefined => {
    const entry = entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      entries.delete(key);
      return undefined;
    }
    return entry.payload;
  };

  const adapterFactory = (name: string): Adapter => {
    const key = (id: string) => `${name}:${id}`;
    return {
      async upsert(id, payload, expiresIn) {
        // oidc-provider reads time from Date, so storage expiry does too.
        entries.set(key(id), { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : Infinity });
        if (payload.uid) uidIndex.set(payload.uid, id);
        if (payload.userCode) userCodeIndex.set(payload.userCode, id);
        if (payload.grantId) {
          const members = grantMembers.get(payload.grantId) ?? new Set();
          members.add(key(id));
          grantMembers.set(payload.grantId, members);
        }
      },
      async find(id) {
        if (name === 'Client') return clients.get(id);
        return live(key(id));
      },
      async findByUid(uid) {
        const id = uidIndex.get(uid);
        return id === undefined ? undefined : live(key(id));
      },
      async findByUserCode(userCode) {
        const id = userCodeIndex.get(userCode);
        return id === undefined ? undefined : live(key(id));
      },
      async consume(id) {
        const payload = live(key(id));
        if (payload) payload.consumed = Math.floor(Date.now() / 1000);
      },
      async destroy(id) {
        entries.delete(key(id));
      },
      async revokeByGrantId(grantId) {
        for (const member of grantMembers.get(grantId) ?? []) entries.delete(member);
        grantMembers.delete(grantId);
      },
    };
  };

  return { adapterFactory, clients };
}
