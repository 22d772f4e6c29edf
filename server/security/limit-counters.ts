/**
 * The rate limiters' counts in this process's memory (no REDIS_URL, or Redis unreachable), bounded in
 * number (decision 205). express-rate-limit's own MemoryStore keeps every key it saw for up to two
 * windows: under a flood of posts from many addresses (each a new per-IP and per-account-and-IP key) the
 * live heap grew by ~12 MB a minute and never fell back while the flood lasted.
 *
 * Here each limiter keeps at most `max` counters, on `lru-cache`; past it the counter used least recently
 * goes. That is safe for what the limits protect: a counter that is being hit (an account under attack,
 * an address that keeps failing) is recent and stays; only a quiet one is forgotten, and forgetting it
 * gives back at most one window's budget to a client that would need `max` other fresh keys, i.e. as
 * many addresses, to push it out. Counting within a window is MemoryStore's: a fixed window that starts
 * at the key's first hit (and ends on a whole second, see Counter).
 */
import type { ClientRateLimitInfo, IncrementResponse, Options, Store } from 'express-rate-limit';
import type { LRUCache } from 'lru-cache';
import { boundedLru } from '../bounded-lru.ts';

/** Counters one limiter's counter space keeps at most (~130 B each when full): ~2.6 MB per space under a flood (eleven spaces: one per scope and kind). */
export const MAX_LIMIT_COUNTERS = 20_000;

/**
 * A counter is one number, not an object: its window's end in whole seconds times HITS_SPAN, plus its
 * hits. Under a flood a space is full, and an object with its boxed millisecond timestamp took ~56 B of
 * each counter's ~219 B (heap measured, 2026-11-27). A window ends up to a second later than windowMs
 * after its first hit; hits past HITS_SPAN − 1 (far above any limit) count as that.
 */
type Counter = number;
const HITS_SPAN = 2 ** 21; // with seconds since 1970 below 2^32, every counter is an exact double
const emptyCounter = (endSeconds: number): Counter => endSeconds * HITS_SPAN;
const hitsOf = (value: Counter): number => value % HITS_SPAN;
const endMsOf = (value: Counter): number => Math.floor(value / HITS_SPAN) * 1000;

export class BoundedLimitStore implements Store {
  readonly localKeys = true;
  readonly #counters: LRUCache<string, Counter>;
  readonly #now: () => number;
  #windowMs = 60_000;

  /**
   * `now` is the clock windows are measured on (tests pass one they can move forward); `counters` a
   * counter space another store counts in too (memoryLimitStores), else one of its own.
   */
  constructor(options: { max?: number; now?: () => number; counters?: LRUCache<string, Counter> } = {}) {
    this.#counters = options.counters ?? boundedLru<string, Counter>(options.max ?? MAX_LIMIT_COUNTERS);
    this.#now = options.now ?? Date.now;
  }

  init(options: Options): void {
    this.#windowMs = options.windowMs;
  }

  get size(): number {
    return this.#counters.size;
  }

  /** The counter still in its window, or undefined (expired ones are dropped when met). */
  #live(key: string): Counter | undefined {
    const value = this.#counters.get(key);
    if (value !== undefined && endMsOf(value) <= this.#now()) {
      this.#counters.delete(key);
      return undefined;
    }
    return value;
  }

  #info(value: Counter): ClientRateLimitInfo {
    return { totalHits: hitsOf(value), resetTime: new Date(endMsOf(value)) };
  }

  get(key: string): ClientRateLimitInfo | undefined {
    const value = this.#live(key);
    return value === undefined ? undefined : this.#info(value);
  }

  increment(key: string): IncrementResponse {
    const value = this.#live(key) ?? emptyCounter(Math.ceil((this.#now() + this.#windowMs) / 1000));
    const next = value + (hitsOf(value) < HITS_SPAN - 1 ? 1 : 0);
    this.#counters.set(key, next);
    return this.#info(next);
  }

  decrement(key: string): void {
    const value = this.#live(key);
    if (value !== undefined && hitsOf(value) > 0) this.#counters.set(key, value - 1);
  }

  resetKey(key: string): void {
    this.#counters.delete(key);
  }

  resetAll(): void {
    this.#counters.clear();
  }
}

/**
 * One app's in-memory limiter stores: a store for each limiter (express-rate-limit refuses one store
 * shared by two limiters), counting in one counter space per prefix. Two forms a scope guards (sign-in
 * and Google One Tap; sign-up and an invitation) then count the same attempts together, as they do in
 * Redis, where the prefix names the keys; before, each form counted apart in memory and an attacker got
 * each scope's budget once per form. The spaces belong to the factory, so apps built in one process
 * (tests) never share counts.
 */
export function memoryLimitStores(options: { max?: number; now?: () => number } = {}): (prefix: string) => BoundedLimitStore {
  const spaces = new Map<string, LRUCache<string, Counter>>();
  return (prefix) => {
    let counters = spaces.get(prefix);
    if (!counters) {
      counters = boundedLru<string, Counter>(options.max ?? MAX_LIMIT_COUNTERS);
      spaces.set(prefix, counters);
    }
    return new BoundedLimitStore({ now: options.now, counters });
  };
}
