// The embedded providers' storage: entries expire, indexes and grants find what is alive, and a long
// run does not keep what has expired.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createProviderStorage } from '../../../embedded/providers/adapter.ts';

afterEach(() => vi.useRealTimers());

describe('createProviderStorage', () => {
  it('finds by id, uid and grant until the entry expires', async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
    const storage = createProviderStorage();
    const sessions = storage.adapterFactory('Session');
    const codes = storage.adapterFactory('AuthorizationCode');
    await sessions.upsert('s1', { uid: 'u1', accountId: 'a' }, 60);
    await codes.upsert('c1', { grantId: 'g1' }, 600);
    expect(await sessions.findByUid('u1')).toMatchObject({ accountId: 'a' });
    expect(await codes.find('s1')).toBeUndefined();
    await codes.consume('c1');
    expect((await codes.find('c1'))!.consumed).toBe(Math.floor(Date.now() / 1000));
    vi.advanceTimersByTime(61_000);
    expect(await sessions.find('s1')).toBeUndefined();
    expect(await sessions.findByUid('u1')).toBeUndefined();
    await codes.revokeByGrantId('g1');
    expect(await codes.find('c1')).toBeUndefined();
  });

  it('clients come from its client registry', async () => {
    const storage = createProviderStorage();
    storage.clients.set('client', { client_id: 'client', redirect_uris: ['http://rp.test/cb'] });
    expect(await storage.adapterFactory('Client').find('client')).toMatchObject({ redirect_uris: ['http://rp.test/cb'] });
  });

  it('drops expired entries as it is written to, read or not', async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
    const storage = createProviderStorage();
    const interactions = storage.adapterFactory('Interaction');
    await interactions.upsert('old', { uid: 'old' }, 1);
    vi.advanceTimersByTime(2_000);
    for (let i = 0; i < 500; i++) await interactions.upsert(`i${i}`, {}, 60);
    // The 500th write swept the expired entry, never read again (without the sweep: 501).
    expect(storage.size()).toBe(500);
  });
});
