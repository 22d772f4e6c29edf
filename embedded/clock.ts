// The time source of both stand-ins. Every expiry decision (flows, sessions, codes, tokens, invitations,
// deletion grace periods) reads the clock it was started with, so a test can move time forward instead of
// sleeping until a lifespan runs out. The app never imports this: it is shared by embedded/ and tests only.

export interface Clock {
  /** Milliseconds since the epoch, like Date.now(). */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export interface TestClock extends Clock {
  /** Moves the clock forward by `ms` (negative values move it back). */
  advance(ms: number): void;
  /** Sets the clock to an absolute time in ms since the epoch. */
  set(ms: number): void;
}

/**
 * A clock that stands still until told to move. It starts at `start` (default: the real time now), so
 * cookie expiry dates the stand-ins send stay plausible to an HTTP client that judges them by real time.
 */
export function createTestClock(start: number = Date.now()): TestClock {
  let current = start;
  return {
    now: () => current,
    advance(ms) {
      current += ms;
    },
    set(ms) {
      current = ms;
    },
  };
}
