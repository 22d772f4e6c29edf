import { describe, expect, it } from 'vitest';
import pino from 'pino';
import type { Options } from 'express-rate-limit';
import { SharedLimitStore } from '../../../server/security/shared-limit-store.ts';
import type { RedisClient } from '../../../server/redis.ts';

// The rate limiters' Redis store falls back to counting in memory while Redis is unreachable, and
// goes back to Redis once it answers again (decision 160).

function fakeClient() {
  const counts = new Map<string, number>();
  const state = { isReady: true, failing: false, commands: 0 };
  const client = {
    get isReady() {
      return state.isReady;
    },
    async sendCommand(args: string[]) {
      state.commands += 1;
      if (state.failing) throw new Error('Connection is closed');
      if (args[0] === 'SCRIPT') return 'sha';
      if (args[0] === 'EVALSHA') {
        const key = args[3]!;
        counts.set(key, (counts.get(key) ?? 0) + 1);
        return [counts.get(key), 60_000];
      }
      return 1;
    },
  };
  return { client: client as unknown as RedisClient, state, counts };
}

const options = { windowMs: 60_000 } as Options;

describe('SharedLimitStore', () => {
  it('counts in Redis while it is ready', async () => {
    const { client, counts } = fakeClient();
    const store = new SharedLimitStore(client, 'rl:test:', pino({ level: 'silent' }));
    store.init(options);
    expect((await store.increment('k')).totalHits).toBe(1);
    expect((await store.increment('k')).totalHits).toBe(2);
    expect(counts.get('rl:test:k')).toBe(2);
    store.shutdown();
  });

  it('counts in memory while Redis is down or failing, then in Redis again', async () => {
    const { client, state, counts } = fakeClient();
    const store = new SharedLimitStore(client, 'rl:test:', pino({ level: 'silent' }));
    store.init(options);
    state.isReady = false;
    expect((await store.increment('k')).totalHits).toBe(1);
    expect((await store.increment('k')).totalHits).toBe(2);
    expect(state.commands).toBe(0);
    state.isReady = true;
    state.failing = true;
    expect((await store.increment('k')).totalHits).toBe(3);
    state.failing = false;
    expect((await store.increment('k')).totalHits).toBe(1);
    expect(counts.get('rl:test:k')).toBe(1);
    store.shutdown();
  });
});
