import { describe, expect, it } from 'vitest';
import { countVitestRun, skippedTests } from '../../../scripts/test-summary.ts';
import { CONTRACT_MISSING } from '../../support/shared-contracts.ts';

const report = (fields: Record<string, unknown>) => JSON.stringify({ numPassedTests: 0, numFailedTests: 0, testResults: [], ...fields });

describe('npm test counting (scripts/test-summary.ts)', () => {
  it('adds passed and failed tests', () => {
    expect(countVitestRun(report({ numPassedTests: 40, numFailedTests: 2 }), 1)).toMatchObject({ passed: 40, failed: 2 });
    expect(countVitestRun(report({ numPassedTests: 40 }), 0)).toMatchObject({ passed: 40, failed: 0 });
  });

  it('a file that fails to load counts as a failure', () => {
    const text = report({
      numPassedTests: 5,
      testResults: [
        { status: 'passed', assertionResults: [{}, {}] },
        { status: 'failed', assertionResults: [], message: 'Cannot find module' },
      ],
    });
    expect(countVitestRun(text, 1)).toMatchObject({ passed: 5, failed: 1 });
  });

  it('no report, or a failing exit without failures, is one failure', () => {
    expect(countVitestRun(undefined, 1)).toMatchObject({ passed: 0, failed: 1, note: 'vitest produced no report' });
    expect(countVitestRun('{truncated', 0)).toMatchObject({ failed: 1 });
    expect(countVitestRun(report({ numPassedTests: 3 }), 1)).toMatchObject({ passed: 3, failed: 1 });
  });

  it('names every skipped test, so a suite missing ../shared is reported, never silent', () => {
    const text = report({
      testResults: [
        {
          name: '/repo/test/unit/i18n/locales.test.ts',
          status: 'passed',
          assertionResults: [
            { status: 'passed', fullName: 'kratos messages have every id' },
            { status: 'skipped', fullName: `kratos messages match the catalogue of the Kratos contract (§17) (${CONTRACT_MISSING}: ory-kratos.md)` },
            { status: 'todo', fullName: 'later' },
          ],
        },
      ],
    });
    expect(skippedTests(text, '/repo')).toEqual([
      `test/unit/i18n/locales.test.ts › kratos messages match the catalogue of the Kratos contract (§17) (${CONTRACT_MISSING}: ory-kratos.md)`,
      'test/unit/i18n/locales.test.ts › later',
    ]);
    expect(skippedTests(report({}), '/repo')).toEqual([]);
    expect(skippedTests(undefined)).toEqual([]);
  });
});
