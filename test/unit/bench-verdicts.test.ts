import { describe, expect, it } from 'vitest';
import { SERVER_BUDGETS } from '../../scripts/budgets.ts';
import { median, overloadAt1000, profileCpu, readmeLines, signInThroughput, soakRss, summaryTable, tailAt100 } from '../../scripts/bench-verdicts.ts';

const budgets = SERVER_BUDGETS;

describe('server bench verdicts', () => {
  it('takes the middle of the rounds, not the best', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([10, 40, 20, 30])).toBe(30);
    expect(median([])).toBeNaN();
  });

  it('passes sign-in throughput only when the median rate and the median p99 both hold', () => {
    const fast = { rps: 1_600, p99Ms: 12 };
    expect(signInThroughput([fast, fast, { rps: 900, p99Ms: 80 }], budgets).pass).toBe(true);
    expect(signInThroughput([fast, { rps: 1_400, p99Ms: 12 }, { rps: 1_450, p99Ms: 12 }], budgets).pass).toBe(false);
    expect(signInThroughput([fast, { rps: 1_600, p99Ms: 21 }, { rps: 1_600, p99Ms: 25 }], budgets).pass).toBe(false);
    expect(signInThroughput([], budgets).pass).toBe(false);
  });

  it('holds the settings page to its CPU per request, and fails without a figure', () => {
    expect(profileCpu([{ rps: 1, p99Ms: 1, cpuUsPerRequest: 1_200 }], budgets).pass).toBe(true);
    expect(profileCpu([{ rps: 1, p99Ms: 1, cpuUsPerRequest: 1_201 }], budgets).pass).toBe(false);
    expect(profileCpu([{ rps: 1, p99Ms: 1 }], budgets).pass).toBe(false);
  });

  it('holds RSS after the soak to its budget', () => {
    expect(soakRss(159.9, 300, budgets).pass).toBe(true);
    expect(soakRss(161, 300, budgets).pass).toBe(false);
    expect(soakRss(Number.NaN, 300, budgets).pass).toBe(false);
  });

  it('fails 100 connections on a long tail or on any error', () => {
    expect(tailAt100([{ rps: 800, p99Ms: 200, errors: 0 }], budgets).pass).toBe(true);
    expect(tailAt100([{ rps: 800, p99Ms: 704, errors: 0 }], budgets).pass).toBe(false);
    expect(tailAt100([{ rps: 800, p99Ms: 200, errors: 3 }], budgets).pass).toBe(false);
  });

  it('accepts overload only as quick successes and 503s with Retry-After, with no socket error', () => {
    const calm = { errors: 0, timeouts: 0, maxLatencyMs: 1_500, statuses: { '200': 5_000, '503': 2_000 }, refusalsWithoutRetryAfter: 0 };
    expect(overloadAt1000(calm, budgets).pass).toBe(true);
    expect(overloadAt1000({ ...calm, errors: 96 }, budgets).pass).toBe(false);
    expect(overloadAt1000({ ...calm, timeouts: 1 }, budgets).pass).toBe(false);
    expect(overloadAt1000({ ...calm, maxLatencyMs: 2_700 }, budgets).pass).toBe(false);
    expect(overloadAt1000({ ...calm, statuses: { '200': 10, '500': 1 } }, budgets).pass).toBe(false);
    expect(overloadAt1000({ ...calm, statuses: { '200': 10, '429': 1 } }, budgets).pass).toBe(false);
    expect(overloadAt1000({ ...calm, refusalsWithoutRetryAfter: 1 }, budgets).pass).toBe(false);
    expect(overloadAt1000({ ...calm, statuses: {} }, budgets).pass).toBe(false);
  });

  it('prints one PASS/FAIL row per bar and README lines with the machine', () => {
    const verdicts = [soakRss(120, 300, budgets), soakRss(200, 300, budgets)];
    expect(
      summaryTable(verdicts)
        .split('\n')
        .map((line) => line.slice(0, 4)),
    ).toEqual(['PASS', 'FAIL']);
    const lines = readmeLines(verdicts, { cores: 2, cpu: 'Xeon', load: '1.9 1.9 1.6', date: '2026-11-26' });
    expect(lines).toContain('2 cores (Xeon), load average 1.9 1.9 1.6');
    expect(lines).toContain('200 MB — misses the bar');
  });
});
