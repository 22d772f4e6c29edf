// How `npm test` counts a vitest JSON report (scripts/test.mjs), kept apart so it can be tested.
// Plain erasable TypeScript: Node 24 runs it as is.

type VitestReport = {
  numPassedTests?: number;
  numFailedTests?: number;
  testResults?: Array<{ name?: string; status?: string; assertionResults?: Array<{ status?: string; fullName?: string; title?: string }> }>;
};

/** Skipped, pending and todo tests of a vitest JSON report, each named (`file › full name`): none may go unnoticed. */
export function skippedTests(reportText: string | undefined, root = ''): string[] {
  try {
    const report = JSON.parse(reportText ?? '') as VitestReport;
    const names: string[] = [];
    for (const file of report.testResults ?? []) {
      const where = String(file.name ?? '?').replace(root.endsWith('/') || !root ? root : `${root}/`, '');
      for (const test of file.assertionResults ?? []) {
        if (test.status === 'skipped' || test.status === 'pending' || test.status === 'todo') names.push(`${where} › ${test.fullName ?? test.title ?? '?'}`);
      }
    }
    return names;
  } catch {
    return [];
  }
}

/**
 * Passed and failed counts of one vitest run. `reportText` is the JSON reporter's output (undefined
 * when none was written); `exitStatus` is vitest's. A file that fails to load has no tests and
 * counts as one failure; a failing run whose counts show no failure counts as one too.
 */
export function countVitestRun(reportText: string | undefined, exitStatus: number | null): { passed: number; failed: number; note?: string } {
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

/** What one check (typecheck, lint, format) adds to the closing line: one suite, passed or failed. */
export type CheckCount = { passed: number; failed: number; line: string };

/**
 * A check counts as passed only when it exited 0 *and* reported no problem; anything else (problems,
 * a non-zero or missing exit status such as a crash or a kill, or output that could not be read) is
 * one failure. `problems` is what the check's output says (undefined when it could not be read);
 * `unit` names them in the line printed, e.g. `lint: 3 problems`.
 */
export function countCheck(name: string, exitStatus: number | null, problems: number | undefined, unit = 'problem'): CheckCount {
  const plural = (n: number) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  if (problems !== undefined && problems > 0) return { passed: 0, failed: 1, line: `${name}: ${plural(problems)}` };
  if (exitStatus !== 0) return { passed: 0, failed: 1, line: `${name}: failed (exit status ${exitStatus})` };
  if (problems === undefined) return { passed: 0, failed: 1, line: `${name}: failed (no readable output)` };
  return { passed: 1, failed: 0, line: `${name}: passed` };
}

/** `tsc` output: the number of `error TS1234:` diagnostics. */
export function countTscErrors(output: string): number {
  return output.match(/\berror TS\d+:/g)?.length ?? 0;
}

/** `prettier --check` output: the files it names as not formatted (`[warn] path`, not its closing sentence). */
export function countPrettierFiles(output: string): number {
  return output.split('\n').filter((l) => /^\[warn\] /.test(l) && !/^\[warn\] Code style issues/.test(l)).length;
}

type EslintFileResult = {
  filePath?: string;
  messages?: Array<{ line?: number; column?: number; severity?: number; message?: string; ruleId?: string | null }>;
};

/**
 * ESLint's JSON report (`-f json`): the problem count (errors and warnings alike: both fail the check)
 * and one line per problem for the log; undefined when there is no readable report.
 */
export function readEslintReport(reportText: string | undefined, root: string): { problems: number; lines: string[] } | undefined {
  let results: EslintFileResult[];
  try {
    results = JSON.parse(reportText ?? '') as EslintFileResult[];
    if (!Array.isArray(results)) return undefined;
  } catch {
    return undefined;
  }
  const lines: string[] = [];
  for (const file of results) {
    const path = String(file.filePath ?? '?').replace(root.endsWith('/') ? root : `${root}/`, '');
    for (const m of file.messages ?? []) {
      const level = m.severity === 1 ? 'warning' : 'error';
      lines.push(`${path}:${m.line ?? 0}:${m.column ?? 0}  ${level}  ${m.message ?? ''}  ${m.ruleId ?? ''}`.trimEnd());
    }
  }
  return { problems: lines.length, lines };
}
