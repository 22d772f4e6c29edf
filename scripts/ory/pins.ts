// Where the real Ory binaries live: one fact, read by the build script, the test harness and
// `npm run start:ory`. The cache folder carries a hash of the pin, so changing a pin rebuilds.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const repositoryRoot = resolve(here, '..', '..');
/** `versionVariable`: the Go variable the release's own build sets to its version (it reports `master` otherwise). */
export type Pin = { module: string; version: string; tags: string; dropReplace: string[]; get: string[]; versionVariable: string };
export const pins = JSON.parse(readFileSync(join(here, 'pins.json'), 'utf8')) as Record<string, Pin>;
export const pinnedNames = Object.keys(pins).filter((name) => !name.startsWith('$'));

/** The cached binary of one pinned release (it may not exist yet). ORY_CACHE_DIR moves the cache. */
export function binaryPath(name: string): string {
  const pin = pins[name];
  if (!pin) throw new Error(`no pin for ${name}`);
  const hash = createHash('sha256').update(JSON.stringify(pin)).digest('hex').slice(0, 12);
  const cache = process.env.ORY_CACHE_DIR ?? join(repositoryRoot, '.cache', 'ory');
  return join(cache, `${name}-${pin.version}-${hash}`, name);
}
