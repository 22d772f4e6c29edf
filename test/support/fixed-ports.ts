// `npm start` binds fixed ports (3000, 4433, 4434, 4500, 4601–4604 …) and `npm run start:ory` the
// providers' ones too: the test files that run them hold this lock, so two of them never run at once
// in one machine's test run. A lock whose holder died is taken over.
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { vi } from 'vitest';

const LOCK_DIR = path.join(tmpdir(), 'accounts-fixed-ports.lock');
const OWNER = path.join(LOCK_DIR, 'pid');

function holderAlive(): boolean {
  try {
    process.kill(Number(readFileSync(OWNER, 'utf8')), 0);
    return true;
  } catch {
    return false;
  }
}

/** The lock appears whole (its owner's pid inside) or not at all: a directory renamed into place. */
function tryTake(): boolean {
  const candidate = mkdtempSync(`${LOCK_DIR}-`);
  writeFileSync(path.join(candidate, 'pid'), String(process.pid));
  try {
    renameSync(candidate, LOCK_DIR);
    return true;
  } catch {
    rmSync(candidate, { recursive: true, force: true });
    if (!holderAlive()) rmSync(LOCK_DIR, { recursive: true, force: true }); // its holder is gone: free for the next try
    return false;
  }
}

/** Waits until this process holds the fixed ports; answers the function that lets them go. */
export async function holdFixedPorts(timeout = 20 * 60_000): Promise<() => void> {
  await vi.waitFor(
    () => {
      if (!tryTake()) throw new Error('another test run holds npm start’s fixed ports');
    },
    { timeout, interval: 250 },
  );
  return () => rmSync(LOCK_DIR, { recursive: true, force: true });
}
