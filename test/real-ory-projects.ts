// The suites that run a second time against real Ory Kratos (ORY_TARGET=kratos), and those that
// cannot, each with its reason: one list, read by vitest.config.ts and by the test summary.
import { existsSync } from 'node:fs';
import { binaryPath } from '../scripts/ory/pins.ts';

export const realKratosBuilt = (): boolean => existsSync(binaryPath('kratos'));

export function realOryProjects(): object[] {
  if (!realKratosBuilt()) return [];
  const env = { ORY_TARGET: 'kratos' };
  return [
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
