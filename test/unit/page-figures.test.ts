// The page bench's own arithmetic (scripts/page-figures.ts): a wrong median or a lenient check would
// let a slow screen pass `npm run bench:pages` in CI.
import { describe, expect, it } from 'vitest';
import { blockingTime, formatSpread, median, overBudget, overTimeBudget, spread, type Visit } from '../../scripts/page-figures.ts';
import { CI_GATES, PAGE_BUDGETS, SIGNED_IN_PAGE_BUDGETS } from '../../scripts/budgets.ts';

const within: Visit = { interactiveMs: 800, blockingMs: 0, requests: 4, bytes: 14 * 1024 };
const runs = (overrides: Partial<Visit>[]) => overrides.map((override) => ({ ...within, ...override }));

describe('page bench figures', () => {
  it('takes the median of odd and even counts, whatever the order', () => {
    expect(median([1499, 1283, 1899])).toBe(1499);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(() => median([])).toThrow();
    expect(spread([7, 3, 5])).toEqual({ median: 5, min: 3, max: 7 });
  });

  it('counts only what each long task spends over 50 ms', () => {
    const tasks = [40, 50, 80, 170].map((duration, index) => ({ start: index * 1000, duration }));
    expect(blockingTime(tasks)).toBe(30 + 120);
    expect(blockingTime([])).toBe(0);
  });

  it('from the first contentful paint on, as Lighthouse counts it: a task spanning it counts from there', () => {
    const tasks = [
      { start: 100, duration: 120 }, // ends at 220, before the paint at 300: not counted
      { start: 250, duration: 150 }, // 300–400 after the paint: 100 ms, 50 over
      { start: 500, duration: 90 }, // wholly after: 40 over
    ];
    expect(blockingTime(tasks, 300)).toBe(50 + 40);
    expect(blockingTime(tasks, 0)).toBe(70 + 100 + 40);
  });

  it('passes a screen within every budget, at the budget itself too', () => {
    expect(overBudget(runs([{}, {}, {}]))).toEqual([]);
    expect(overBudget(runs([{ interactiveMs: PAGE_BUDGETS.interactiveMs, blockingMs: PAGE_BUDGETS.blockingMs, bytes: PAGE_BUDGETS.bytes }]))).toEqual([]);
  });

  it('holds times by their median: one slow run passes, a slow majority fails', () => {
    expect(overBudget(runs([{ interactiveMs: 5000 }, {}, {}]))).toEqual([]);
    expect(overBudget(runs([{ interactiveMs: 950 }, { interactiveMs: 901 }, {}]))).toEqual(['interactive at 901 ms median > 900 ms']);
    expect(overBudget(runs([{ blockingMs: 82 }, { blockingMs: 11 }, {}]))).toEqual(['blocking time 11 ms median > 10 ms']);
  });

  it('holds requests and bytes by the worst run', () => {
    expect(overBudget(runs([{ requests: 5 }, {}, {}]))).toEqual(['5 requests > 4']);
    expect(overBudget(runs([{}, { bytes: 19.7 * 1024 }, {}]))).toEqual(['19.7 KB transferred > 15.0 KB']);
  });

  it('fails a screen whose island never answered in any run, and one with no runs', () => {
    expect(overBudget(runs([{ interactiveMs: undefined }, {}, {}]))).toEqual(['the island never answered in 1 of 3 runs']);
    expect(overBudget([])).toEqual(['no runs']);
  });

  it('on the CI gate (npm test), fails on the wire and on times past the CI ceilings only', () => {
    const { interactiveMs, blockingMs } = CI_GATES.pageTimeCeilings;
    const busy = runs([{ interactiveMs: 1200, blockingMs: 40 }, { interactiveMs: 1100, blockingMs: 30 }, {}]);
    expect(overBudget(busy, PAGE_BUDGETS, 'ci')).toEqual([]);
    expect(overTimeBudget(busy)).toEqual(['interactive at 1100 ms median > 900 ms', 'blocking time 30 ms median > 10 ms']);
    const regressed = runs([{ interactiveMs: 1499, blockingMs: 82 }, { interactiveMs: 1499, blockingMs: 82 }, {}]);
    expect(overBudget(regressed, PAGE_BUDGETS, 'ci')).toEqual([
      `interactive at 1499 ms median > ${interactiveMs} ms`,
      `blocking time 82 ms median > ${blockingMs} ms`,
    ]);
    expect(overBudget(runs([{ requests: 5 }, {}]), PAGE_BUDGETS, 'ci')).toEqual(['5 requests > 4']);
    expect(overBudget(runs([{ interactiveMs: undefined }, {}]), PAGE_BUDGETS, 'ci')).toEqual(['the island never answered in 1 of 2 runs']);
  });

  it('on the wire gate, fails on requests, bytes and a silent island, never on times alone', () => {
    const slow = runs([{ interactiveMs: 1500, blockingMs: 90 }, { interactiveMs: 1400, blockingMs: 80 }, {}]);
    expect(overBudget(slow, PAGE_BUDGETS, 'wire')).toEqual([]);
    expect(overTimeBudget(slow)).toEqual(['interactive at 1400 ms median > 900 ms', 'blocking time 80 ms median > 10 ms']);
    expect(overBudget(runs([{ requests: 5 }, {}]), PAGE_BUDGETS, 'wire')).toEqual(['5 requests > 4']);
    expect(overBudget(runs([{ interactiveMs: undefined }, {}]), PAGE_BUDGETS, 'wire')).toEqual(['the island never answered in 1 of 2 runs']);
  });

  it('gives signed-in pages room for their live session, not more time', () => {
    expect(overBudget(runs([{ requests: 6, bytes: 20.3 * 1024 }]), SIGNED_IN_PAGE_BUDGETS)).toEqual([]);
    expect(overBudget(runs([{ requests: 7 }]), SIGNED_IN_PAGE_BUDGETS)).toEqual(['7 requests > 6']);
    expect(overBudget(runs([{ interactiveMs: 950 }]), SIGNED_IN_PAGE_BUDGETS)).toEqual(['interactive at 950 ms median > 900 ms']);
  });

  it('prints a median with its range, or one figure when every run agreed', () => {
    expect(formatSpread({ median: 1499, min: 1283, max: 1899 }, 'ms')).toBe('1,499 ms (1,283–1,899)');
    expect(formatSpread({ median: 5, min: 5, max: 5 }, 'requests')).toBe('5 requests');
    expect(formatSpread({ median: 19.66, min: 19.6, max: 19.7 }, 'KB', 1)).toBe('19.7 KB (19.6–19.7)');
    expect(formatSpread({ median: 15.31, min: 15.3, max: 15.32 }, 'KB', 1)).toBe('15.3 KB');
  });
});
