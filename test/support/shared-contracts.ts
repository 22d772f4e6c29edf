// The contracts in ../shared (beside this repository) are not part of every clone. A test that needs one
// must never skip silently: without the file it is registered as skipped under a name that says why, and
// `npm test` names every skipped test above its closing line (scripts/test-summary.ts).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Appended to the name of a test skipped for a missing contract. */
export const CONTRACT_MISSING = '../shared/contracts missing';

/** Absolute path of a file in ../shared/contracts. */
export function contractPath(file: string): string {
  return path.resolve(ROOT, '../shared/contracts', file);
}

/** A test that reads `../shared/contracts/<file>`: run with its path, or reported as skipped with the reason in its name. */
export function itWithContract(name: string, file: string, fn: (contract: string) => void | Promise<void>): void {
  const contract = contractPath(file);
  if (existsSync(contract)) it(name, () => fn(contract));
  else it.skip(`${name} (${CONTRACT_MISSING}: ${file})`, () => {});
}
