// The loading curve shared by the navigation bar and the loading overlay: fast to 60 %, then slower
// past 60, 80 and 90 %, creeping towards (never reaching) 100 % until the work is done.
export const PROGRESS_TICK_MS = 200;
export const PROGRESS_CEILING = 99;

/** The next percentage after one tick while still loading. */
export function nextProgress(percent: number): number {
  const step = percent < 60 ? 12 : percent < 80 ? 3 : percent < 90 ? 1 : 0.2;
  return Math.min(PROGRESS_CEILING, percent + step);
}
