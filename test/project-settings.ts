// Timeouts and parallelism of the vitest projects, one fact each: the stand-in projects
// (vitest.config.ts) and their real-Ory twins (test/real-ory-projects.ts) read the same values.

/** Tests that start servers (the app, the stand-ins, real Kratos or Hydra). */
export const SERVER_TESTS = { testTimeout: 30_000, hookTimeout: 60_000 } as const;

/** Browser tests: one browser at a time, since the machine has two cores. */
export const BROWSER_TESTS = { testTimeout: 60_000, hookTimeout: 120_000, fileParallelism: false } as const;
