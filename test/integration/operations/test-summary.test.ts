import { describe, expect, it } from 'vitest';
import { countVitestRun } from '../../../scripts/test-summary.ts';

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
});
