// `npm run ory:build`: builds the pinned releases of Ory Kratos and Ory Hydra (scripts/ory/pins.json)
// from their Go modules with this machine's Go toolchain, into the git-ignored cache .cache/ory/.
// A binary is rebuilt only when its pin changes (the cache folder is named after the pin's hash).
//
// Why the go.mod edits: a module download leaves out nested modules, and both releases replace one
// client library with a nested folder (./internal/client-go, ./internal/httpclient). Dropping the
// replace points the build at the published module of the same version, which the server code
// either does not import (Kratos) or imports with the same API (Hydra's CLI).
//
// Usage: node scripts/ory/build.ts [kratos|hydra ...]   (default: both). Prints one line per binary:
// "ory: kratos v1.3.1 built in 312 s (76.5 MB): <path>" or "... taken from the cache".
import { spawnSync } from 'node:child_process';
import { cpSync, chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { binaryPath, pins, pinnedNames } from './pins.ts';

function go(args: string[], cwd: string, extraEnv: Record<string, string> = {}): string {
  const child = spawnSync('go', args, {
    cwd,
    env: { ...process.env, GOFLAGS: '-mod=mod', ...extraEnv },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.error) throw new Error(`go ${args.join(' ')}: ${child.error.message} (is the Go toolchain installed?)`);
  if (child.status !== 0) throw new Error(`go ${args.join(' ')} failed:\n${child.stderr}`);
  return child.stdout;
}

function makeWritable(dir: string): void {
  chmodSync(dir, 0o755);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) makeWritable(path);
    else chmodSync(path, 0o644);
  }
}

function build(name: string): void {
  const pin = pins[name]!;
  const binary = binaryPath(name);
  if (existsSync(binary)) {
    console.log(`ory: ${name} ${pin.version} taken from the cache: ${binary}`);
    return;
  }
  const started = Date.now();
  const download = JSON.parse(go(['mod', 'download', '-json', `${pin.module}@${pin.version}`], tmpdir()));
  if (download.Error) throw new Error(download.Error);
  const work = mkdtempSync(join(tmpdir(), `ory-${name}-`));
  try {
    // The module cache is read-only: build in a writable copy.
    cpSync(download.Dir, work, { recursive: true });
    makeWritable(work);
    for (const module of pin.dropReplace) go(['mod', 'edit', `-dropreplace=${module}`], work);
    for (const module of pin.get) go(['get', module], work);
    mkdirSync(join(binary, '..'), { recursive: true });
    const partial = `${binary}.partial`;
    go(['build', '-tags', pin.tags, '-ldflags', `-X ${pin.versionVariable}=${pin.version}`, '-o', partial, '.'], work, { CGO_ENABLED: '1' });
    renameSync(partial, binary);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const seconds = Math.round((Date.now() - started) / 1000);
  const megabytes = (statSync(binary).size / 1e6).toFixed(1);
  console.log(`ory: ${name} ${pin.version} built in ${seconds} s (${megabytes} MB): ${binary}`);
}

const wanted = process.argv.slice(2);
const names = wanted.length ? wanted : pinnedNames;
let failed = false;
for (const name of names) {
  if (!pins[name]) {
    console.error(`ory: unknown binary "${name}" (pinned: ${pinnedNames.join(', ')})`);
    process.exit(2);
  }
  try {
    build(name);
  } catch (error) {
    failed = true;
    console.error(`ory: ${name} ${pins[name].version} did not build: ${error instanceof Error ? error.message : String(error)}`);
  }
}
process.exit(failed ? 1 : 0);
