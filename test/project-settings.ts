// Timeouts and parallelism of the vitest projects, one fact each: the stand-in projects
// (vitest.config.ts) and their real-Ory twins (test/real-ory-projects.ts) read the same values.

/** Tests that start servers (the app, the stand-ins, real Kratos or Hydra). */
export const SERVER_TESTS = { testTimeout: 30_000, hookTimeout: 60_000 } as const;

/**
 * A server test that starts its own services inside the test (a conformance scenario with its own
 * configuration): the start-up a hook would have had, then the test's own time. Starting two Hydras and
 * two identity services took over 30 s in a loaded CI run, where it takes ~1 s on a quiet machine.
 */
export const SERVER_TEST_WITH_OWN_SERVICES_TIMEOUT = SERVER_TESTS.hookTimeout + SERVER_TESTS.testTimeout;

/** Browser tests: one browser at a time, since the machine has two cores. */
export const BROWSER_TESTS = { testTimeout: 60_000, hookTimeout: 120_000, fileParallelism: false } as const;
