import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { BROWSER_TESTS, SERVER_TESTS } from './test/project-settings.ts';
import { realOryProjects } from './test/real-ory-projects.ts';

// Three levels of tests, one runner: `npm test` runs every project and sums the counts.
export default defineConfig({
  test: {
    // One build of the app for the whole run (test/support/global-build.ts).
    globalSetup: ['test/support/global-build.ts'],
    // A failing test prints what the stacks it ran on logged (test/support/stack-log.ts).
    setupFiles: ['test/support/report-stacks-on-failure.ts'],
    // Integration tests mostly wait on sockets, child processes and the stand-ins, so more workers
    // than the machine's two cores shorten the run (integration alone: 198 s → 118 s with four).
    maxWorkers: 4,
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.{ts,tsx}'], environment: 'node' },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.{ts,tsx}', 'test/embedded/**/*.test.{ts,tsx}'],
          ...SERVER_TESTS,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.{ts,tsx}'],
          ...BROWSER_TESTS,
        },
      },
      ...(realOryProjects() as TestProjectInlineConfiguration[]),
    ],
  },
});
