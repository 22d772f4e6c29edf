// The rate limiters' counts in Redis (rate-limit-redis), so every instance counts the same attempts.
// While Redis is unreachable each instance counts on its own in memory (the limits fall back, they do
// not fail open or closed): a user is never locked out by an outage, and an attacker still meets a
// per-instance limit. Decision: docs/decisions/160-live-sessions-and-scale-out.md.
import type { IncrementResponse, Options, Store } from 'express-rate-limit';
import type { Logger } from 'pino';
import { RedisStore } from 'rate-limit-redis';
import type { RedisClient } from '../redis.ts';
import { BoundedLimitStore, memoryLimitStores } from './limit-counters.ts';

/** A Redis answer slower than this counts as an outage for that request. */
const REDIS_DEADLINE_MS = 1_000;

function withDeadline<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('redis rate-limit store: deadline')), REDIS_DEADLINE_MS);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

export class SharedLimitStore implements Store {
  readonly localKeys = false;
  readonly prefix: string;
  readonly #client: RedisClient;
  readonly #redis: RedisStore;
  readonly #memory: BoundedLimitStore;
  readonly #logger: Logger;
  #options: Options | undefined;
  /** The scripts loaded into Redis; dropped after a failure, so they are loaded again once Redis is back. */
  #ready: Promise<void> | undefined;
  #degraded = false;

  /** `memory` counts while Redis is unreachable: this instance's counter space for the prefix (sharedLimitStores). */
  constructor(client: RedisClient, prefix: string, logger: Logger, memory = new BoundedLimitStore()) {
    this.#client = client;
    this.#memory = memory;
    this.prefix = prefix;
    this.#logger = logger;
    this.#redis = new RedisStore({ prefix, sendCommand: (...args: string[]) => client.sendCommand(args) as Promise<never> });
  }

  init(options: Options): void {
    this.#options = options;
    this.#memory.init(options);
  }

  async #shared<T>(work: () => Promise<T>, fallback: () => T | Promise<T>): Promise<T> {
    if (!this.#client.isReady) return this.#fallBack(fallback);
    try {
      this.#ready ??= this.#redis.init(this.#options!);
      await withDeadline(this.#ready);
      const result = await withDeadline(work());
      if (this.#degraded) this.#logger.info({ store: this.prefix }, 'rate limits: counting in redis again');
      this.#degraded = false;
      return result;
    } catch (error) {
      this.#ready = undefined;
      if (!this.#degraded) this.#logger.warn({ err: { message: (error as Error).message }, store: this.prefix }, 'rate limits: redis failed');
      return this.#fallBack(fallback);
    }
  }

  #fallBack<T>(fallback: () => T | Promise<T>): T | Promise<T> {
    if (!this.#degraded) this.#logger.warn({ store: this.prefix }, 'rate limits: counting in memory on this instance until redis is back');
    this.#degraded = true;
    return fallback();
  }

  increment(key: string): Promise<IncrementResponse> {
    return this.#shared(
      () => this.#redis.increment(key),
      () => this.#memory.increment(key),
    );
  }

  async decrement(key: string): Promise<void> {
    await this.#shared(
      () => this.#redis.decrement(key),
      () => this.#memory.decrement(key),
    );
  }

  async resetKey(key: string): Promise<void> {
    await this.#shared(
      () => this.#redis.resetKey(key),
      () => this.#memory.resetKey(key),
    );
  }

  async get(key: string) {
    return this.#shared(
      () => this.#redis.get(key),
      () => this.#memory.get(key),
    );
  }

  shutdown(): void {
    this.#memory.resetAll();
  }
}

/** With REDIS_URL: one client for every limiter's store, and the factory rate-limit.ts builds them with. */
export async function sharedLimitStores(url: string, logger: Logger): Promise<{ client: RedisClient; factory: (prefix: string) => Store }> {
  const { redisClient } = await import('../redis.ts');
  const client = await redisClient(url, logger, 'rate limits');
  const memory = memoryLimitStores();
  return { client, factory: (prefix) => new SharedLimitStore(client, prefix, logger, memory(prefix)) };
}
