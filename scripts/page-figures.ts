// The arithmetic of the page bench (scripts/bench-pages.ts), apart so a unit test can hold it
// (test/unit/page-figures.test.ts): medians, ranges, and which screens are over PAGE_BUDGETS.
import { CI_GATES, PAGE_BUDGETS } from './budgets.ts';

/**
 * One cold visit's figures. interactiveMs is undefined when the island never answered (a failure, never
 * a fast run). blockingMs is total blocking time after the first contentful paint (what gates);
 * blockingFromStartMs also counts the tasks before it (printed, for what the first paint itself costs).
 */
export type Visit = { interactiveMs?: number; blockingMs: number; blockingFromStartMs?: number; requests: number; bytes: number };

/** A long task on the page's clock (PerformanceObserver 'longtask': startTime and duration, ms). */
export type LongTask = { start: number; duration: number };

export type Spread = { median: number; min: number; max: number };

export type PageBudgets = typeof PAGE_BUDGETS;

/**
 * 'all': every budget fails the screen; 'wire': only requests and bytes do (times are printed); 'ci' (npm
 * test): the wire's, and times past CI_GATES.pageTimeCeilings (times past the budgets alone are printed).
 */
export type Gate = 'all' | 'wire' | 'ci';

/** The median of the figures (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const at = (index: number) => sorted[index]!;
  return sorted.length % 2 === 1 ? at(middle) : (at(middle - 1) + at(middle)) / 2;
}

export function spread(values: readonly number[]): Spread {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}

const LONG_TASK_MS = 50;

/**
 * Total blocking time: what each long task spends over 50 ms, counting only its part after `fromMs`.
 * With the first contentful paint as `fromMs` this is Total Blocking Time as Lighthouse and web.dev
 * define it (from FCP on; a task that spans FCP counts from FCP). The task that paints first is the
 * browser building the page, before anyone can try to use it; what comes after is what delays input.
 */
export function blockingTime(tasks: readonly LongTask[], fromMs = 0): number {
  return tasks.reduce((sum, task) => sum + Math.max(0, task.start + task.duration - Math.max(task.start, fromMs) - LONG_TASK_MS), 0);
}

/**
 * What is over budget for one screen, one line each (empty when within). Times are held by their
 * median; requests and bytes by the most any run needed (a cold visit should be the same every time).
 * A run where the island never answered fails the screen whatever the others did.
 */
export function overBudget(visits: readonly Visit[], budgets: PageBudgets = PAGE_BUDGETS, gate: Gate = 'all'): string[] {
  if (visits.length === 0) return ['no runs'];
  const failures: string[] = [];
  const requests = Math.max(...visits.map((visit) => visit.requests));
  if (requests > budgets.requests) failures.push(`${requests} requests > ${budgets.requests}`);
  const bytes = Math.max(...visits.map((visit) => visit.bytes));
  if (bytes > budgets.bytes) failures.push(`${(bytes / 1024).toFixed(1)} KB transferred > ${(budgets.bytes / 1024).toFixed(1)} KB`);
  if (gate === 'all') return [...overTimeBudget(visits, budgets), ...failures];
  if (gate === 'ci') return [...overTimeBudget(visits, { ...budgets, ...CI_GATES.pageTimeCeilings }), ...failures];
  // An island that never answered is broken, not slow: it fails whatever the gate.
  const unanswered = visits.filter((visit) => visit.interactiveMs === undefined).length;
  return unanswered > 0 ? [`the island never answered in ${unanswered} of ${visits.length} runs`, ...failures] : failures;
}

/** The time budgets alone (medians), also printed where they do not gate. */
export function overTimeBudget(visits: readonly Visit[], budgets: PageBudgets = PAGE_BUDGETS): string[] {
  if (visits.length === 0) return ['no runs'];
  const failures: string[] = [];
  const unanswered = visits.filter((visit) => visit.interactiveMs === undefined).length;
  if (unanswered > 0) failures.push(`the island never answered in ${unanswered} of ${visits.length} runs`);
  else {
    const interactive = median(visits.map((visit) => visit.interactiveMs!));
    if (interactive > budgets.interactiveMs) failures.push(`interactive at ${Math.round(interactive)} ms median > ${budgets.interactiveMs} ms`);
  }
  const blocking = median(visits.map((visit) => visit.blockingMs));
  if (blocking > budgets.blockingMs) failures.push(`blocking time ${Math.round(blocking)} ms median > ${budgets.blockingMs} ms`);
  return failures;
}

/** "1,499 ms (1,283–1,899)": a median with its range, for the printed table and the README. */
export function formatSpread({ median: mid, min, max }: Spread, unit: string, digits = 0): string {
  const number = (value: number) => value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return number(min) === number(max) ? `${number(mid)} ${unit}` : `${number(mid)} ${unit} (${number(min)}–${number(max)})`;
}
