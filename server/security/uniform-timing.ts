/**
 * Anti-enumeration timing for recovery and resend: whether an address belongs to an account or not,
 * the answer must not only read the same but also take about the same time. Kratos does more work for
 * a known address (a code is stored and a message queued), so the handler waits until a fixed floor has
 * passed since the request started, plus a little jitter, before answering.
 *
 *   const started = startTimer();
 *   … call Kratos …
 *   await waitForFloor(started);            // at least UNIFORM_ANSWER_FLOOR_MS after start
 *
 * The floor is generous compared with the usual Kratos round trip (a few ms locally, tens in production),
 * so the difference between the two paths disappears inside it. It only applies to the step that names
 * an email; entering a code is not affected.
 */
import { randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

export const UNIFORM_ANSWER_FLOOR_MS = 250;
const JITTER_MS = 25;

let floorMs = UNIFORM_ANSWER_FLOOR_MS;

/** Tests and the benchmark may shorten it (never in production code paths). */
export function configureUniformTiming(ms: number): void {
  floorMs = Math.max(0, ms);
}

export function startTimer(): bigint {
  return process.hrtime.bigint();
}

export async function waitForFloor(started: bigint): Promise<void> {
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
  const target = floorMs + (floorMs > 0 ? randomInt(0, JITTER_MS + 1) : 0);
  if (elapsed < target) await sleep(target - elapsed);
}
