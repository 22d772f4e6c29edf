// How the identity stand-in's store scales (issue #17 item 8): creates N identities (default 100,000)
// and reports identities created per second, then the time of an address lookup (what sending a
// recovery code does) and of an external-id lookup, as the median of 200.
// Run: ./node_modules/.bin/node scripts/bench-identity-store.ts [count]
import { performance } from 'node:perf_hooks';
import { Store, type StoredIdentity } from '../embedded/identity/store.ts';

const count = Number(process.argv[2] ?? 100_000);
const store = new Store(':memory:');
const at = new Date().toISOString();
const make = (n: number): StoredIdentity => {
  const email = `person${n}@example.com`;
  const address = { id: `a${n}`, value: email, via: 'email', created_at: at, updated_at: at };
  return {
    id: `id-${n}`,
    schema_id: 'default',
    state: 'active',
    traits: { email },
    verifiable_addresses: [{ ...address, verified: true, status: 'completed' }],
    recovery_addresses: [address],
    metadata_public: null,
    metadata_admin: null,
    external_id: `ext-${n}`,
    credentials: { password: { type: 'password', identifiers: [email], config: {}, version: 0, created_at: at, updated_at: at } },
    created_at: at,
    updated_at: at,
  };
};
const started = performance.now();
for (let n = 0; n < count; n += 1) store.saveIdentity(make(n));
const seconds = (performance.now() - started) / 1000;
const median = (fn: (n: number) => unknown) => {
  const times = Array.from({ length: 200 }, (_, i) => {
    const t = performance.now();
    fn(Math.floor((i * count) / 200));
    return performance.now() - t;
  }).sort((a, b) => a - b);
  return times[100]!;
};
const byAddress = median((n) => store.findIdentityByAddress(`person${n}@example.com`, 'recovery'));
const byExternalId = median((n) => store.findIdentityByExternalId(`ext-${n}`));
process.stdout.write(
  `${count} identities: ${Math.round(count / seconds)} created/s; address lookup ${byAddress.toFixed(3)} ms, external id ${byExternalId.toFixed(3)} ms (median of 200)\n`,
);
store.close();
