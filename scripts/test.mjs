// `npm test`: builds, runs every vitest project (unit, integration, e2e) and the size budget check,
// then prints one closing line that sums every suite: "N passed, N failed". Extra arguments go to
// vitest (`npm test -- test/unit`). Exit status: 0 only when nothing failed.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { countVitestRun } from './test-summary.ts';

const REPORT = 'test-results/vitest.json';
// This very Node (24 under npm) for every child, whatever `node` the PATH holds.
const node = process.execPath;
const run = (args) => spawnSync(node, args, { stdio: 'inherit', env: process.env });

let passed = 0;
let failed = 0;
const summary = () => console.log(`${passed} passed, ${failed} failed`);

if (run(['scripts/build.mjs']).status !== 0) {
  console.log('build failed');
  failed += 1;
  summary();
  process.exit(1);
}

mkdirSync('test-results', { recursive: true });
rmSync(REPORT, { force: true }); // a stale report must never stand in for this run
const extra = process.argv.slice(2);
const vitest = run(['node_modules/vitest/vitest.mjs', 'run', '--reporter=default', '--reporter=json', `--outputFile=${REPORT}`, ...extra]);
let reportText;
try {
  reportText = readFileSync(REPORT, 'utf8');
} catch {
  reportText = undefined;
}
const counted = countVitestRun(reportText, vitest.status);
passed += counted.passed;
failed += counted.failed;
if (counted.note) console.log(counted.note);

const size = run(['scripts/bench-size.mjs', '--check']);
if (size.status === 0) passed += 1;
else {
  failed += 1;
  console.log('size budget check failed');
}

summary();
process.exit(failed === 0 ? 0 : 1);
