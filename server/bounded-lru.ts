import { LRUCache } from 'lru-cache';

/**
 * An LRU cache of at most `maxEntries` entries whose memory grows with what it holds. Given `max`,
 * lru-cache allocates its index arrays for that many entries up front (~440 KB at 20,000, more with a
 * TTL), so every rate limiter and the session store held that much while empty: ~9 MB of a ~46 MB live
 * heap under the soak (heap snapshot, 2026-11-27). Bounding by `maxSize` with every entry of size 1 keeps
 * the same count limit and least-recently-used eviction, with arrays that grow as entries come.
 */
export function boundedLru<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(
  maxEntries: number,
  options: Omit<LRUCache.Options<K, V, unknown>, 'max' | 'maxSize' | 'sizeCalculation'> = {},
): LRUCache<K, V> {
  return new LRUCache<K, V>({ ...options, maxSize: maxEntries, sizeCalculation: () => 1 });
}

/**
 * Caches made once per owner (an app, a kept page start) and dropped with it: tests run several apps in one
 * process, and one app's pages must never answer for another's.
 */
export function cachesPerOwner<Owner extends object, Caches>(make: () => Caches): (owner: Owner) => Caches {
  const byOwner = new WeakMap<Owner, Caches>();
  return (owner) => {
    let caches = byOwner.get(owner);
    if (caches === undefined) {
      caches = make();
      byOwner.set(owner, caches);
    }
    return caches;
  };
}
