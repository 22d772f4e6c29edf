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
 * at the key's first hit.
 */
import type { ClientRateLimitInfo, IncrementResponse, Options, Store } from 'express-rate-limit';
import type { LRUCache } from 'lru-cache';
import { boundedLru } from '../bounded-lru.ts';

/** Counters one limiter store keeps at most (~224 B each when full): ~4.5 MB per store under a flood; each form a limiter guards has its own stores (twenty in all). */
export const MAX_LIMIT_COUNTERS = 20_000;

type Counter = { hits: number; resetAt: number };

export class BoundedLimitStore implements Store {
  readonly localKeys = true;
  readonly #counters: LRUCache<string, Counter>;
  readonly #now: () => number;
  #windowMs = 60_000;

  /** `now` is the clock windows are measured on (tests pass one they can move forward). */
  constructor(options: { max?: number; now?: () => number } = {}) {
    this.#counters = boundedLru<string, Counter>(options.max ?? MAX_LIMIT_COUNTERS);
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
    const counter = this.#counters.get(key);
    if (counter && counter.resetAt <= this.#now()) {
      this.#counters.delete(key);
      return undefined;
    }
    return counter;
  }

  get(key: string): ClientRateLimitInfo | undefined {
    const counter = this.#live(key);
    return counter && { totalHits: counter.hits, resetTime: new Date(counter.resetAt) };
  }

  increment(key: string): IncrementResponse {
    let counter = this.#live(key);
    if (!counter) {
      counter = { hits: 0, resetAt: this.#now() + this.#windowMs };
      this.#counters.set(key, counter);
    }
    counter.hits += 1;
    return { totalHits: counter.hits, resetTime: new Date(counter.resetAt) };
  }

  decrement(key: string): void {
    const counter = this.#live(key);
    if (counter && counter.hits > 0) counter.hits -= 1;
  }

  resetKey(key: string): void {
    this.#counters.delete(key);
  }

  resetAll(): void {
    this.#counters.clear();
  }
}
