// Issue 10: random requests to every form endpoint and the main pages (test/support/fuzz.ts), a
// bounded number per run: never a 5xx, never slower than 5 s, and nothing escapes a request (vitest
// fails the run on an uncaught error). `scripts/fuzz.ts` runs the same property for longer.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureRateLimits, resetRateLimitSettings } from '../../../server/security/rate-limit.ts';
import { configureUniformTiming } from '../../../server/security/uniform-timing.ts';
import { CookieJar, fuzzRequest, sendFuzzRequest, SLOW_MS } from '../../support/fuzz.ts';
import { startStack, type Stack } from '../../support/stack.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 250);

let stack: Stack;
beforeAll(async () => {
  configureRateLimits('off'); // every request must reach the handlers, not the limiter
  configureUniformTiming(0);
  stack = await startStack();
});
afterAll(async () => {
  resetRateLimitSettings();
  await stack?.close();
});

describe('fuzzing every form endpoint and the main pages', () => {
  it(`${RUNS} random requests: no 5xx, none slower than ${SLOW_MS} ms`, { timeout: Math.max(120_000, RUNS * 30) }, async () => {
    const jar = new CookieJar();
    const seen = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(fuzzRequest, async (request) => {
        const { status, ms, label } = await sendFuzzRequest(stack.appUrl, request, jar);
        seen.set(status, (seen.get(status) ?? 0) + 1);
        expect(status, label).toBeLessThan(500);
        expect(ms, label).toBeLessThan(SLOW_MS);
      }),
      { numRuns: RUNS },
    );
    // The generator reaches past the guards: some answers are pages, some refusals, some redirects.
    expect([...seen.keys()].some((status) => status >= 200 && status < 300)).toBe(true);
    expect([...seen.keys()].some((status) => status >= 400)).toBe(true);
    expect([...seen.keys()].some((status) => status >= 300 && status < 400)).toBe(true);
  });
});
