// What decides pass or fail for the server bench (scripts/bench.mjs), kept free of I/O so it is unit-tested
// (test/unit/bench-verdicts.test.ts): each bar of issue #17 turns measured figures into one verdict line.
import { SERVER_BUDGETS } from './budgets.ts';

/** One bar: what was measured against what budget, and whether it holds. */
export type Verdict = { part: string; bar: string; measured: string; pass: boolean };

/** One autocannon round reduced to what the bars read. */
export type Round = { rps: number; p99Ms: number; cpuUsPerRequest?: number };

export type OverloadRun = {
  /** Socket errors (resets, refused connections) and client-side timeouts, as autocannon counts them. */
  errors: number;
  timeouts: number;
  /** The slowest answer, ms. */
  maxLatencyMs: number;
  /** Answers by status code. */
  statuses: Record<string, number>;
  /** 503 answers sampled during the run (by fetch: autocannon shows no headers) that had no Retry-After. */
  refusalsWithoutRetryAfter: number;
};

/** The middle value (the upper middle of an even count); NaN for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}

const whole = (value: number) => Math.round(value).toLocaleString('en-US');

/** 10 connections, one core: median req/s at least the budget and median p99 at most its budget. */
export function signInThroughput(rounds: readonly Round[], budgets = SERVER_BUDGETS): Verdict {
  const rps = median(rounds.map((round) => round.rps));
  const p99 = median(rounds.map((round) => round.p99Ms));
  return {
    part: 'sign-in',
    bar: `GET /sign-in?flow= ≥ ${whole(budgets.signInRps)} req/s, p99 ≤ ${budgets.signInP99Ms} ms (median of ${rounds.length})`,
    measured: `${whole(rps)} req/s, p99 ${p99} ms`,
    pass: rounds.length > 0 && rps >= budgets.signInRps && p99 <= budgets.signInP99Ms,
  };
}

/** The app's CPU per request on the settings page of a signed-in user, median of the rounds. */
export function profileCpu(rounds: readonly Round[], budgets = SERVER_BUDGETS): Verdict {
  const measuredRounds = rounds.filter((round) => round.cpuUsPerRequest !== undefined);
  const cpu = median(measuredRounds.map((round) => round.cpuUsPerRequest!));
  return {
    part: 'profile',
    bar: `GET /profile-settings?flow= CPU ≤ ${whole(budgets.profileCpuUs)} µs/request`,
    measured: measuredRounds.length ? `${whole(cpu)} µs/request` : 'no CPU figure (/proc missing)',
    pass: measuredRounds.length > 0 && cpu <= budgets.profileCpuUs,
  };
}

/** Resident memory at the end of the soak. */
export function soakRss(rssMb: number, seconds: number, budgets = SERVER_BUDGETS): Verdict {
  return {
    part: 'soak',
    bar: `RSS ≤ ${budgets.soakRssMb} MB after ${seconds} s of load`,
    measured: Number.isFinite(rssMb) ? `${rssMb.toFixed(0)} MB` : 'no RSS figure',
    pass: Number.isFinite(rssMb) && rssMb <= budgets.soakRssMb,
  };
}

/** 100 connections: the tail of /sign-in stays short (median p99 of the rounds); errors fail it too. */
export function tailAt100(rounds: readonly (Round & { errors: number })[], budgets = SERVER_BUDGETS): Verdict {
  const p99 = median(rounds.map((round) => round.p99Ms));
  const errors = rounds.reduce((sum, round) => sum + round.errors, 0);
  return {
    part: 'c100',
    bar: `100 connections: /sign-in p99 ≤ ${budgets.c100P99Ms} ms`,
    measured: `p99 ${p99} ms, ${whole(median(rounds.map((round) => round.rps)))} req/s, ${errors} errors`,
    pass: rounds.length > 0 && p99 <= budgets.c100P99Ms && errors === 0,
  };
}

/**
 * 1,000 connections: no socket error or timeout, the slowest answer within the budget, and every answer
 * either a success or a 503 refusal that carries Retry-After.
 */
export function overloadAt1000(run: OverloadRun, budgets = SERVER_BUDGETS): Verdict {
  const others = Object.entries(run.statuses).filter(([status]) => !/^2|^503$/.test(status));
  const refused = run.statuses['503'] ?? 0;
  const answered = Object.values(run.statuses).reduce((sum, count) => sum + count, 0);
  const problems = [
    run.errors + run.timeouts > 0 ? `${run.errors} socket errors, ${run.timeouts} timeouts` : '',
    run.maxLatencyMs > budgets.c1000MaxMs ? `slowest ${whole(run.maxLatencyMs)} ms` : '',
    others.length ? `other statuses ${others.map(([status, count]) => `${status}×${count}`).join(' ')}` : '',
    run.refusalsWithoutRetryAfter > 0 ? `${run.refusalsWithoutRetryAfter} 503s without Retry-After` : '',
  ].filter(Boolean);
  return {
    part: 'c1000',
    bar: `1,000 connections: no socket error, all answered ≤ ${whole(budgets.c1000MaxMs)} ms, excess 503 + Retry-After`,
    measured: `${whole(answered)} answers (${whole(refused)} × 503), slowest ${whole(run.maxLatencyMs)} ms, ${run.errors + run.timeouts} errors`,
    pass: answered > 0 && problems.length === 0,
  };
}

/** The summary table: one row per bar, PASS/FAIL first. */
export function summaryTable(verdicts: readonly Verdict[]): string {
  const width = Math.max(...verdicts.map((verdict) => verdict.bar.length), 3);
  return verdicts.map((verdict) => `${verdict.pass ? 'PASS' : 'FAIL'}  ${verdict.bar.padEnd(width)}  ${verdict.measured}`).join('\n');
}

/** Lines to paste into README's "On the server" sub-section: the figures with the machine and its load. */
export function readmeLines(verdicts: readonly Verdict[], machine: { cores: number; cpu: string; load: string; date: string }): string {
  const head = `Measured ${machine.date} on ${machine.cores} cores (${machine.cpu}), load average ${machine.load} before the run:`;
  return [head, ...verdicts.map((verdict) => `- ${verdict.bar}: ${verdict.measured} — ${verdict.pass ? 'meets' : 'misses'} the bar`)].join('\n');
}
