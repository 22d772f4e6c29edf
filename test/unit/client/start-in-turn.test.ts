// startInTurn (client/lib/start-in-turn.ts): the entries of an island bundle start one per task, the first
// at once, in the order they were evaluated; one that throws does not stop the others.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

beforeEach(() => {
  vi.useFakeTimers();
  vi.resetModules();
});
afterEach(() => vi.useRealTimers());

// A fresh module each time: its queue is per page, and each case is a page.
const load = async () => (await import('../../../client/lib/start-in-turn.ts')).startInTurn;

describe('startInTurn', () => {
  it('runs the first start at once and each later one in a task of its own, in order', async () => {
    const startInTurn = await load();
    const ran: string[] = [];
    for (const island of ['avatar', 'tooltip', 'dialogs', 'socket']) startInTurn(() => ran.push(island));
    expect(ran).toEqual(['avatar']);
    vi.advanceTimersToNextTimer();
    expect(ran).toEqual(['avatar', 'tooltip']);
    vi.advanceTimersToNextTimer();
    expect(ran).toEqual(['avatar', 'tooltip', 'dialogs']);
    vi.advanceTimersToNextTimer();
    expect(ran).toEqual(['avatar', 'tooltip', 'dialogs', 'socket']);
  });

  it('starts an entry that comes once the others have all run at once', async () => {
    const startInTurn = await load();
    const ran: string[] = [];
    startInTurn(() => ran.push('dialogs'));
    vi.runAllTimers();
    startInTurn(() => ran.push('captcha'));
    expect(ran).toEqual(['dialogs', 'captcha']);
  });

  it('goes on with the next start when one throws', async () => {
    const startInTurn = await load();
    const ran: string[] = [];
    expect(() =>
      startInTurn(() => {
        throw new Error('island failed');
      }),
    ).toThrow('island failed');
    startInTurn(() => ran.push('socket'));
    expect(ran).toEqual([]);
    vi.advanceTimersToNextTimer();
    expect(ran).toEqual(['socket']);
  });
});
