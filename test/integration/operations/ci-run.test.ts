import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO } from '../../support/app.ts';

// .ci/run against a stand-in npm (the real one would reinstall this checkout's node_modules and run
// the whole suite): what is checked here is the script's own logic, i.e. the order of the steps,
// the exit status, and the summary line printed last.

const work = mkdtempSync(path.join(tmpdir(), 'accounts-ci-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function fakeCheckout(testScript: string, oryBuild = 'echo "ory: kratos v1.3.1 taken from the cache"'): { root: string; calls: string } {
  const root = mkdtempSync(path.join(work, 'repo-'));
  mkdirSync(path.join(root, '.ci'));
  copyFileSync(path.join(REPO, '.ci/run'), path.join(root, '.ci/run'));
  chmodSync(path.join(root, '.ci/run'), 0o755);
  const bin = path.join(root, 'fake-bin');
  mkdirSync(bin);
  const calls = path.join(root, 'calls.log');
  // `npm ci` lays out node_modules/.bin with this Node (24) and an esbuild that answers --version.
  writeFileSync(
    path.join(bin, 'npm'),
    `#!/usr/bin/env bash
echo "npm $*" >> "${calls}"
case "$1" in
  ci)
    mkdir -p node_modules/.bin
    ln -sf "${process.execPath}" node_modules/.bin/node
    printf '#!/bin/sh\\necho 0.28.2\\n' > node_modules/.bin/esbuild && chmod +x node_modules/.bin/esbuild ;;
  run)
    [ "$2" = "ory:build" ] && { ${oryBuild}; } ;;
  test)
    echo "REQUIRE_REAL_ORY=$REQUIRE_REAL_ORY"
${testScript} ;;
esac
`,
  );
  chmodSync(path.join(bin, 'npm'), 0o755);
  return { root, calls };
}

function runCi(root: string) {
  // Both streams into one, as a CI log shows them.
  const result = spawnSync('bash', ['-c', '.ci/run 2>&1'], {
    cwd: root,
    env: { PATH: `${path.join(root, 'fake-bin')}:/usr/bin:/bin`, HOME: root },
    encoding: 'utf8',
  });
  const lines = `${result.stdout}`.split('\n').filter(Boolean);
  return { status: result.status, last: lines.at(-1), stdout: result.stdout };
}

// With Chromium missing the script would apt-get it: not something a test may do.
describe.skipIf(!existsSync('/usr/bin/chromium'))('.ci/run', () => {
  it('passes: npm ci then npm test, the summary last, exit 0', () => {
    const { root, calls } = fakeCheckout(`echo "vitest output"; echo "12 passed, 0 failed"; exit 0`);
    const result = runCi(root);
    expect(result.status).toBe(0);
    expect(result.last).toBe('12 passed, 0 failed');
    expect(readFileSync(calls, 'utf8')).toBe('npm ci\nnpm run ory:build\nnpm test\n');
    // The real-Ory suites are required in CI: npm test counts missing binaries as a failure.
    expect(result.stdout).toContain('REQUIRE_REAL_ORY=1');
  });

  it('a failed Ory build is reported and the tests still run (they then count the real-Ory suites as failed)', () => {
    const { root, calls } = fakeCheckout(`echo "5 passed, 1 failed"; exit 1`, 'echo "ory: kratos did not build" >&2; exit 1');
    const result = runCi(root);
    expect(result.stdout).toContain('ci: npm run ory:build failed');
    expect(readFileSync(calls, 'utf8')).toBe('npm ci\nnpm run ory:build\nnpm test\n');
    expect(result.status).toBe(1);
    expect(result.last).toBe('5 passed, 1 failed');
  });

  it('fails: the summary is still the last line even when npm prints after it, and the status is npm test’s', () => {
    const { root } = fakeCheckout(
      `echo "10 passed, 2 failed"; echo "npm error Lifecycle script \\\`test\\\` failed with error:" >&2; echo "npm error code 1" >&2; exit 1`,
    );
    const result = runCi(root);
    expect(result.status).toBe(1);
    expect(result.last).toBe('10 passed, 2 failed');
  });

  it('a test run that prints no summary counts as one failure', () => {
    const { root } = fakeCheckout(`echo "crashed before the summary"; exit 3`);
    const result = runCi(root);
    expect(result.status).toBe(3);
    expect(result.last).toBe('0 passed, 1 failed');
  });
});
