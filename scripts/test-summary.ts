// How `npm test` counts a vitest JSON report (scripts/test.mjs), kept apart so it can be tested.
// Plain erasable TypeScript: Node 24 runs it as is.

type VitestReport = {
  numPassedTests?: number;
  numFailedTests?: number;
  testResults?: Array<{ status?: string; assertionResults?: unknown[] }>;
};

/**
 * Passed and failed counts of one vitest run. `reportText` is the JSON reporter's output (undefined
 * when none was written); `exitStatus` is vitest's. A file that fails to load has no tests and
 * counts as one failure; a failing run whose counts show no failure counts as one too.
 */
export function countVitestRun(
  reportText: string | undefined,
  exitStatus: number | null,
): { passed: number; failed: number; note?: string } {
  let passed = 0;
  let failed = 0;
  let note: string | undefined;
  try {
    const report = JSON.parse(reportText ?? '') as VitestReport;
    passed += Number(report.numPassedTests) || 0;
    failed += Number(report.numFailedTests) || 0;
    for (const file of report.testResults ?? []) {
      if (file.status === 'failed' && (file.assertionResults ?? []).length === 0) failed += 1;
    }
  } catch {
    failed += 1;
    note = 'vitest produced no report';
  }
  if (exitStatus !== 0 && failed === 0) {
    failed += 1;
    note = `vitest exited with status ${exitStatus}`;
  }
  return { passed, failed, note };
}
