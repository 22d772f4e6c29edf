// server/bounded-lru.ts: the count bound and LRU order of `max`, without lru-cache's up-front arrays
// (the rate limiters' stores and the session memory store are built on it).
import { getHeapStatistics } from 'node:v8';
import { LRUCache } from 'lru-cache';
import { describe, expect, it } from 'vitest';
import { boundedLru } from '../../../server/bounded-lru.ts';

/** Heap bytes `make` adds while what it returns is kept (garbage made meanwhile counts too, so only large gaps mean anything). */
function heapGrowth(make: () => unknown): number {
  const before = getHeapStatistics().used_heap_size;
  const kept = make();
  const grown = getHeapStatistics().used_heap_size - before;
  expect(kept).toBeTruthy();
  return grown;
}

describe('boundedLru', () => {
  it('keeps at most maxEntries, forgetting the least recently used', () => {
    const cache = boundedLru<string, number>(3);
    cache.set('a', 1).set('b', 2).set('c', 3);
    expect(cache.get('a')).toBe(1); // a is now the most recent; b the least
    cache.set('d', 4);
    expect(cache.size).toBe(3);
    expect([...cache.keys()].sort()).toEqual(['a', 'c', 'd']);
    cache.set('c', 30); // replacing an entry does not evict
    expect(cache.size).toBe(3);
    expect(cache.get('c')).toBe(30);
  });

  it('honours the other options, such as a TTL on an injected clock', () => {
    const clock = { now: 1_000 };
    const cache = boundedLru<string, string>(10, { ttl: 500, ttlResolution: 0, perf: { now: () => clock.now } });
    cache.set('sid', 'data');
    clock.now += 499;
    expect(cache.get('sid')).toBe('data');
    clock.now += 2;
    expect(cache.get('sid')).toBeUndefined();
  });

  it('grows with what it holds: a hundred empty caches of 20,000 cost well under what lru-cache preallocates for one max', () => {
    const preallocated = heapGrowth(() => Array.from({ length: 100 }, () => new LRUCache<string, number>({ max: 20_000 })));
    const lazy = heapGrowth(() => Array.from({ length: 100 }, () => boundedLru<string, number>(20_000)));
    // With `max`, each keeps two 20,000-slot arrays on the heap (~320 KB): ~32 MB for a hundred.
    expect(preallocated).toBeGreaterThan(20_000_000);
    expect(lazy).toBeLessThan(2_000_000);
  });

  it('still holds maxEntries entries once they come', () => {
    const cache = boundedLru<number, number>(20_000);
    for (let i = 0; i < 25_000; i++) cache.set(i, i);
    expect(cache.size).toBe(20_000);
    expect(cache.get(4_999)).toBeUndefined();
    expect(cache.get(5_000)).toBe(5_000);
  });
});
