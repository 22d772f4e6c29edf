// `npm test`: builds, runs every vitest project (unit, integration, e2e) and the size budget check,
// then prints one closing line that sums every suite: "N passed, N failed".
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';

const run = (cmd, args) => spawnSync(cmd, args, { stdio: 'inherit', env: process.env });

let passed = 0;
let failed = 0;

const build = run('node', ['scripts/build.mjs']);
if (build.status !== 0) {
  console.log('build failed');
  console.log('0 passed, 1 failed');
  process.exit(1);
}

mkdirSync('test-results', { recursive: true });
const extra = process.argv.slice(2);
const vitest = run('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', '--outputFile=test-results/vitest.json', ...extra]);
try {
  const report = JSON.parse(readFileSync('test-results/vitest.json', 'utf8'));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  // A file that fails to load has no tests: count it as a failure rather than losing it.
  for (const file of report.testResults ?? []) {
    if (file.status === 'failed' && (file.assertionResults ?? []).length === 0) failed += 1;
  }
} catch {
  failed += 1;
  console.log('vitest produced no report');
}
if (vitest.status !== 0 && failed === 0) failed += 1;

const size = run('node', ['scripts/bench-size.mjs', '--check']);
if (size.status === 0) passed += 1;
else failed += 1;

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
