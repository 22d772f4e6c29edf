// The suites that run a second time against real Ory Kratos (ORY_TARGET=kratos), and those that
// cannot, each with its reason: one list, read by vitest.config.ts and by the test summary.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { binaryPath } from '../scripts/ory/pins.ts';

export const realKratosBuilt = (): boolean => existsSync(binaryPath('kratos'));
export const realHydraBuilt = (): boolean => existsSync(binaryPath('hydra'));

export function realOryProjects(): object[] {
  if (!realKratosBuilt()) return [];
  const env = { ORY_TARGET: 'kratos' };
  return [
    // Real Kratos and real Hydra together, no stand-in involved (test/ory/).
    ...(realHydraBuilt() ? [{ extends: true, test: { name: 'ory', include: ['test/ory/**/*.test.ts'], testTimeout: 30_000, hookTimeout: 60_000 } }] : []),
    {
      extends: true,
      test: {
        name: 'integration-ory',
        include: ['test/integration/**/*.test.{ts,tsx}'],
        env,
        testTimeout: 30_000,
        hookTimeout: 60_000,
      },
    },
    {
      // The stand-in and real Kratos side by side, one set of scenarios, every difference named
      // (test/conformance/harness.ts; accepted differences in test/conformance/allowed-differences.ts).
      extends: true,
      test: {
        name: 'conformance',
        include: ['test/conformance/**/*.test.ts'],
        testTimeout: 30_000,
        hookTimeout: 60_000,
      },
    },
  ];
}

/**
 * The real-Ory suites this run cannot start, each with why (for the closing summary): none when both
 * binaries are built.
 */
export function realOrySkips(): string[] {
  const why =
    spawnSync('go', ['version']).status === 0
      ? 'not built yet: run `npm run ory:build`'
      : 'the Go toolchain is missing, so `npm run ory:build` cannot build it';
  const skips: string[] = [];
  if (!realKratosBuilt()) skips.push(`real-Ory suites integration-ory, e2e-ory and conformance: real Kratos is ${why}`);
  if (!realHydraBuilt()) skips.push(`real-Ory suite ory (Kratos with Hydra): real Hydra is ${why}`);
  return skips;
}
