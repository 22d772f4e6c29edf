// The suites that run a second time against real Ory Kratos (ORY_TARGET=kratos), and those that
// cannot, each with its reason: one list, read by vitest.config.ts and by the test summary.
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
  ];
}
