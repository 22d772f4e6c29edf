// The rate limiters' in-memory counts (server/security/limit-counters.ts, decision 205): MemoryStore's
// fixed windows, and a bound on how many counters a limiter keeps that forgets only quiet ones.
import type { Options } from 'express-rate-limit';
import { describe, expect, it } from 'vitest';
import { BoundedLimitStore, memoryLimitStores } from '../../../server/security/limit-counters.ts';

const WINDOW_MS = 15 * 60_000;

function storeAt(start: number, max?: number) {
  const clock = { now: start };
  const store = new BoundedLimitStore({ max, now: () => clock.now });
  store.init({ windowMs: WINDOW_MS } as Options);
  return { store, clock };
}

describe('BoundedLimitStore', () => {
  it('counts hits in a window that starts at the first hit and ends windowMs later', () => {
    const { store, clock } = storeAt(1_000_000);
    expect(store.increment('a')).toEqual({ totalHits: 1, resetTime: new Date(1_000_000 + WINDOW_MS) });
    clock.now += WINDOW_MS - 1;
    expect(store.increment('a').totalHits).toBe(2);
    expect(store.get('a')).toEqual({ totalHits: 2, resetTime: new Date(1_000_000 + WINDOW_MS) });
    clock.now += 1;
    expect(store.get('a')).toBeUndefined();
    expect(store.increment('a')).toEqual({ totalHits: 1, resetTime: new Date(clock.now + WINDOW_MS) });
  });

  it('ends a window on the whole second after windowMs, since a counter keeps its end in seconds', () => {
    const { store, clock } = storeAt(1_000_500);
    expect(store.increment('a').resetTime).toEqual(new Date(1_901_000));
    clock.now = 1_900_999;
    expect(store.increment('a').totalHits).toBe(2);
    clock.now = 1_901_000;
    expect(store.get('a')).toBeUndefined();
  });

  it('counts exactly at a clock far ahead (a counter is one number: end and hits must not run together)', () => {
    const start = Date.UTC(2100, 0, 1);
    const { store } = storeAt(start);
    for (let hit = 0; hit < 2; hit++) store.increment('a');
    expect(store.increment('a')).toEqual({ totalHits: 3, resetTime: new Date(start + WINDOW_MS) });
  });

  it('takes a hit back (never below zero) and forgets a key on reset', () => {
    const { store } = storeAt(0);
    store.increment('a');
    store.increment('a');
    store.decrement('a');
    expect(store.get('a')?.totalHits).toBe(1);
    store.decrement('a');
    store.decrement('a');
    expect(store.get('a')?.totalHits).toBe(0);
    store.increment('b');
    store.resetKey('b');
    expect(store.get('b')).toBeUndefined();
    store.resetAll();
    expect(store.size).toBe(0);
  });

  it('keeps at most max counters however many keys a flood brings', () => {
    const { store } = storeAt(0, 100);
    for (let address = 0; address < 5_000; address++) store.increment(`sign-in:ip:10.0.${address >> 8}.${address & 255}`);
    expect(store.size).toBe(100);
  });

  it('keeps the counter that is being hit while a flood of new keys pushes quiet ones out', () => {
    const { store } = storeAt(0, 100);
    store.increment('quiet');
    for (let attempt = 0; attempt < 1_000; attempt++) {
      store.increment('sign-in:email:attacked');
      store.increment(`sign-in:ip:flood-${attempt}`);
    }
    expect(store.get('sign-in:email:attacked')?.totalHits).toBe(1_000);
    expect(store.get('quiet')).toBeUndefined();
  });
});

describe('memoryLimitStores', () => {
  function limiterStore(stores: ReturnType<typeof memoryLimitStores>, prefix: string) {
    const store = stores(prefix);
    store.init({ windowMs: WINDOW_MS } as Options);
    return store;
  }

  it('gives each limiter its own store, counting in one space per prefix, as Redis keys do', () => {
    const stores = memoryLimitStores({ now: () => 0 });
    const signIn = limiterStore(stores, 'accounts:rl:sign-in:ip:');
    const oneTap = limiterStore(stores, 'accounts:rl:sign-in:ip:');
    const recovery = limiterStore(stores, 'accounts:rl:recovery:ip:');
    expect(oneTap).not.toBe(signIn);
    signIn.increment('a');
    expect(oneTap.increment('a').totalHits).toBe(2);
    oneTap.decrement('a');
    expect(signIn.get('a')?.totalHits).toBe(1);
    expect(recovery.get('a')).toBeUndefined();
  });

  it('keeps each factory’s counts apart (two apps in one process)', () => {
    const first = limiterStore(memoryLimitStores({ now: () => 0 }), 'accounts:rl:sign-in:ip:');
    const second = limiterStore(memoryLimitStores({ now: () => 0 }), 'accounts:rl:sign-in:ip:');
    first.increment('a');
    expect(second.get('a')).toBeUndefined();
  });

  it('bounds the shared space, not each store', () => {
    const stores = memoryLimitStores({ max: 2, now: () => 0 });
    const one = limiterStore(stores, 'p:');
    const other = limiterStore(stores, 'p:');
    one.increment('a');
    other.increment('b');
    one.increment('c');
    expect(one.size).toBe(2);
    expect(other.get('a')).toBeUndefined();
  });
});
