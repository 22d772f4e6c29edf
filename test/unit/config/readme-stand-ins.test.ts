// Issue #16 item 12: every setting an operator may give `npm start` is in the README. The app's own
// variables are checked against its schema (config.test.ts); this checks the rest: each variable the
// stand-ins, the demo document app and the operator scripts read from their environment is named in
// the README (its table of the stand-ins' settings, or the app's table).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');
const READERS = [
  'embedded/backend/main.ts',
  'embedded/identity/main.ts',
  'embedded/oauth2/main.ts',
  'embedded/document-app/main.ts',
  'scripts/local-product.ts',
  'scripts/start-ory.ts',
  'scripts/invite.ts',
];

/** The names a file reads as `env.NAME`, `process.env.NAME` or `env['NAME']`. */
function variablesReadBy(file: string): string[] {
  const source = readFileSync(path.join(root, file), 'utf8');
  return [...new Set([...source.matchAll(/\benv(?:\.([A-Z][A-Z0-9_]*)|\[['"]([A-Z][A-Z0-9_]*)['"]\])/g)].map((m) => m[1] ?? m[2]!))];
}

describe('README: the settings of npm start', () => {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const named = new Set([...readme.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]));

  it.each(READERS)('names every variable %s reads', (file) => {
    const read = variablesReadBy(file);
    expect(read.length, `${file} reads no variable: has the pattern gone stale?`).toBeGreaterThan(0);
    expect(read.filter((name) => !named.has(name))).toEqual([]);
  });

  it('reads each form of access', () => {
    expect(variablesReadBy('embedded/backend/main.ts')).toEqual(expect.arrayContaining(['CANNY_PRIVATE_KEY', 'BACKEND_MAIL_URL']));
  });
});
