// `node --expose-gc scripts/measure-limit-counters.ts`: the live heap a full counter space costs per
// counter, the figure behind MAX_LIMIT_COUNTERS's comment (server/security/limit-counters.ts). Fills the
// three spaces a flood of wrong-password sign-ins fills (per address, per account, per account and
// address) with 20,000 counters each, keys shaped as the limiters make them (an IPv4 address, a
// 22-character digest), and prints the heap they hold after a full collection.
import type { Options } from 'express-rate-limit';
import { createHash } from 'node:crypto';
import { MAX_LIMIT_COUNTERS, memoryLimitStores } from '../server/security/limit-counters.ts';

const collect = (globalThis as { gc?: () => void }).gc;
if (!collect) throw new Error('run with node --expose-gc');

// rate-limit.ts's key digest, written out: plain node cannot import that module (it renders a .tsx page).
const digest = (value: string) => createHash('sha256').update(value).digest().subarray(0, 16).toString('base64url');

collect();
const before = process.memoryUsage().heapUsed;
const stores = memoryLimitStores();
const space = (kind: string) => {
  const store = stores(`accounts:rl:sign-in:${kind}:`);
  store.init({ windowMs: 15 * 60_000 } as Options);
  return store;
};
const spaces = [space('ip'), space('email'), space('email-ip')] as const;
const [perAddress, perAccount, perPair] = spaces;
for (let n = 0; n < MAX_LIMIT_COUNTERS; n++) {
  const address = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
  perAddress.increment(address);
  const account = digest(`bench${n}@example.com`);
  perAccount.increment(account);
  perPair.increment(digest(`i/${address}/${account}`));
}
collect();
const counters = spaces.reduce((sum, store) => sum + store.size, 0);
const bytes = process.memoryUsage().heapUsed - before;
console.log(`${counters} counters in ${spaces.length} spaces: ${(bytes / 1e6).toFixed(1)} MB of live heap, ${Math.round(bytes / counters)} B per counter`);
