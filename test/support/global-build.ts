/**
 * Vitest global setup: the app is built once per run into a temporary directory, and every test that
 * needs the built server or assets reads that one build (`buildApp()` in test/support/app.ts) instead
 * of building its own. Tests only read the build; the directory is removed when the run ends.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

const REPO = path.resolve(import.meta.dirname, '../..');

declare module 'vitest' {
  export interface ProvidedContext {
    appBuildDir: string;
  }
}

export default function setup(project: TestProject) {
  const dir = mkdtempSync(path.join(tmpdir(), 'accounts-shared-build-'));
  execFileSync(process.execPath, ['scripts/build.mjs', '--outdir', dir], { cwd: REPO, stdio: 'pipe' });
  symlinkSync(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  project.provide('appBuildDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
