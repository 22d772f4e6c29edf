/**
 * Import direction (docs/architecture.md "Layers"): core imports nothing of ours; views may import core;
 * client may import core; server may import core and views; the stand-ins in embedded/ and the app never
 * import each other. A violation fails here with the file, the line and the rule.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const LAYERS = ['core', 'views', 'client', 'server', 'embedded'] as const;
type Layer = (typeof LAYERS)[number];

/** Which layers each layer may import from (itself included). */
const ALLOWED: Readonly<Record<Layer, readonly Layer[]>> = {
  core: ['core'],
  views: ['views', 'core'],
  client: ['client', 'core'],
  server: ['server', 'views', 'core'],
  embedded: ['embedded'],
};

type Violation = { file: string; line: number; specifier: string; from: Layer; to: Layer };

function layerOf(file: string): Layer | undefined {
  const top = path.relative(ROOT, file).split(path.sep)[0];
  return LAYERS.find((layer) => layer === top);
}

const IMPORT = /(?:^|\s)(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;

/** Every relative import of one source text that crosses a boundary it may not cross. */
export function violationsIn(file: string, text: string): Violation[] {
  const from = layerOf(file);
  if (!from) return [];
  const found: Violation[] = [];
  for (const match of text.matchAll(IMPORT)) {
    const specifier = match[1] ?? match[2] ?? match[3] ?? '';
    if (!specifier.startsWith('.')) continue;
    const to = layerOf(path.resolve(path.dirname(file), specifier));
    if (!to || ALLOWED[from].includes(to)) continue;
    const line = text.slice(0, match.index).split('\n').length;
    found.push({ file: path.relative(ROOT, file), line, specifier, from, to });
  }
  return found;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') out.push(...sourceFiles(full));
    } else if (/\.(ts|tsx|mjs|js)$/.test(entry.name)) out.push(full);
  }
  return out;
}

describe('import direction between layers', () => {
  const files = LAYERS.flatMap((layer) => sourceFiles(path.join(ROOT, layer)));

  it('reads the sources of every layer', () => {
    for (const layer of LAYERS) expect(files.filter((file) => layerOf(file) === layer).length, layer).toBeGreaterThan(2);
  });

  it('finds no import against the direction', () => {
    const violations = files.flatMap((file) => violationsIn(file, readFileSync(file, 'utf8')));
    expect(violations.map((v) => `${v.file}:${v.line} ${v.from} → ${v.to} (${v.specifier})`)).toEqual([]);
  });

  it('catches each kind of wrong import', () => {
    const at = (file: string) => path.join(ROOT, file);
    expect(violationsIn(at('views/pages/X.tsx'), "import { a } from '../../server/app.ts';")).toMatchObject([{ from: 'views', to: 'server' }]);
    expect(violationsIn(at('client/islands/x.ts'), "import type { A } from '../../views/components/A.tsx';")).toMatchObject([{ from: 'client', to: 'views' }]);
    expect(violationsIn(at('core/x.ts'), "export { y } from '../server/y.ts';")).toMatchObject([{ from: 'core', to: 'server' }]);
    expect(violationsIn(at('server/x.ts'), "const m = await import('../embedded/identity/index.ts');")).toMatchObject([{ from: 'server', to: 'embedded' }]);
    expect(violationsIn(at('embedded/backend/x.ts'), "import '../../core/routes.ts';")).toMatchObject([{ from: 'embedded', to: 'core' }]);
    expect(violationsIn(at('server/x.ts'), "import { ROUTES } from '../core/routes.ts';\nimport { A } from '../views/A.tsx';")).toEqual([]);
  });
});
