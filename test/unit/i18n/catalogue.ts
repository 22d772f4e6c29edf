/**
 * Reading the locale files and the sources for the translation checks in `locales.test.ts`.
 * Plain functions over text so each rule can be tested on its own inputs.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export const LANGUAGES = ['en', 'vi', 'fr', 'pt', 'es'] as const;
export const NAMESPACES = ['common', 'terms'] as const;
export const REFERENCE_LANGUAGE = 'en';

export const ROOT = path.resolve(import.meta.dirname, '../../..');
export const LOCALES_DIR = path.join(ROOT, 'locales');

export type Leaves = Map<string, unknown>;

export function localeText(lng: string, ns: string): string {
  return readFileSync(path.join(LOCALES_DIR, lng, `${ns}.json`), 'utf8');
}

/** Leaf values by dotted path; array items get their index as a segment. */
export function flatten(value: unknown, prefix = '', into: Leaves = new Map()): Leaves {
  if (value !== null && typeof value === 'object') {
    const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item] as const) : Object.entries(value);
    if (entries.length === 0 && prefix) into.set(prefix, value);
    for (const [key, item] of entries) flatten(item, prefix ? `${prefix}.${key}` : key, into);
  } else {
    into.set(prefix, value);
  }
  return into;
}

/**
 * Keys that appear twice in one JSON object. `JSON.parse` keeps the last one silently, which is how a
 * section added twice by two people editing the same file at once would go unnoticed.
 */
export function duplicateKeys(json: string): string[] {
  const duplicates: string[] = [];
  let index = 0;
  const skipSpace = () => {
    while (/\s/.test(json[index] ?? '')) index++;
  };
  const readString = (): string => {
    const start = index;
    index++; // opening quote
    while (json[index] !== '"') index += json[index] === '\\' ? 2 : 1;
    index++;
    return JSON.parse(json.slice(start, index)) as string;
  };
  const readValue = (where: string): void => {
    skipSpace();
    const char = json[index];
    if (char === '{') {
      index++;
      const seen = new Set<string>();
      skipSpace();
      if (json[index] === '}') return void index++;
      for (;;) {
        skipSpace();
        const key = readString();
        const here = where ? `${where}.${key}` : key;
        if (seen.has(key)) duplicates.push(here);
        seen.add(key);
        skipSpace();
        index++; // colon
        readValue(here);
        skipSpace();
        if (json[index++] === '}') return;
      }
    }
    if (char === '[') {
      index++;
      skipSpace();
      if (json[index] === ']') return void index++;
      for (let item = 0; ; item++) {
        readValue(`${where}.${item}`);
        skipSpace();
        if (json[index++] === ']') return;
      }
    }
    if (char === '"') return void readString();
    while (index < json.length && !/[\s,\]}]/.test(json[index]!)) index++;
  };
  readValue('');
  return duplicates;
}

const PLACEHOLDER = /\{\{\s*(?:-\s*)?([^}\s,]+)[^}]*\}\}/g;
const NESTING = /\$t\(\s*([^,)\s]+)[^)]*\)/g;

/** `{{name}}` interpolations (format and unescape markers stripped) and `$t(key)` nestings of a value. */
export function placeholdersOf(value: string): string[] {
  const found = [...value.matchAll(PLACEHOLDER)].map((match) => `{{${match[1]}}}`);
  found.push(...[...value.matchAll(NESTING)].map((match) => `$t(${match[1]})`));
  return found.sort();
}

export function interpolationNames(value: string): string[] {
  return [...value.matchAll(PLACEHOLDER)].map((match) => match[1]!);
}

export function nestedKeys(value: string): string[] {
  return [...value.matchAll(NESTING)].map((match) => match[1]!);
}

/** A value that is nothing but placeholders and punctuation has no words a translator could change. */
export function hasWords(value: string): boolean {
  return /\p{L}/u.test(value.replace(PLACEHOLDER, '').replace(NESTING, ''));
}

/** i18next plural forms: `key_one`, `key_other`, … */
export const PLURAL_SUFFIX = /_(zero|one|two|few|many|other)$/;

/**
 * A key exists when it is a leaf, a plural family (`key_other` and friends) used through `count`, or a
 * section whose leaves the code reads below it (`messageKey: 'httpError.badRequest'` → `….title`).
 */
export function hasKey(leaves: Leaves, key: string): boolean {
  if (leaves.has(key) || leaves.has(`${key}_other`)) return true;
  const prefix = `${key}.`;
  for (const leaf of leaves.keys()) if (leaf.startsWith(prefix)) return true;
  return false;
}

export type UsedKey = { ns: string; key: string; file: string; line: number };

const SOURCE_DIRS = ['views', 'server', 'client'];
const SOURCE_FILE = /\.(?:ts|tsx|mts|js|mjs)$/;

export function sourceFiles(dirs = SOURCE_DIRS): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (name === 'node_modules' || name.startsWith('.')) continue;
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (SOURCE_FILE.test(name) && !name.endsWith('.d.ts')) files.push(full);
    }
  };
  for (const dir of dirs) walk(path.join(ROOT, dir));
  return files.sort();
}

/** `t('key')`, `req.t("key", …)`, `i18n.t(\`key\`)`: a literal first argument; `${…}` templates are dynamic. */
const T_CALL = /(?<![\w$])t\(\s*(['"`])((?:(?!\1)[^\\\n])*)\1\s*([,)])/g;
/** `ns: 'terms'` in the options of the same call (looked for up to the closing parenthesis). */
const NS_OPTION = /^[^)]*?\bns\s*:\s*['"](\w+)['"]/;
/** Props and fields named like `i18nKey`, `labelKey`, `titleKeys`: `labelKey="a.b"`, `labelKey: 'a.b'`. */
const KEY_PROP = /\b\w*Keys?\s*[:=]\s*\{?\s*(['"`])((?:(?!\1)[^\\\n$])*)\1/g;
const KEY_SHAPE = /^(?:(\w+):)?([A-Za-z][\w-]*(?:\.[\w&-]+)+)$/;

function lineOf(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length;
}

function splitNamespace(raw: string, fallbackNs: string): { ns: string; key: string } {
  const prefixed = /^(\w+):(.+)$/.exec(raw);
  return prefixed ? { ns: prefixed[1]!, key: prefixed[2]! } : { ns: fallbackNs, key: raw };
}

/** Literal keys of `t(…)` calls in a source text. */
export function callKeys(text: string, file: string): UsedKey[] {
  const used: UsedKey[] = [];
  for (const match of text.matchAll(T_CALL)) {
    const raw = match[2]!;
    if (!raw || (match[1] === '`' && raw.includes('${'))) continue;
    const rest = match[3] === ',' ? text.slice(match.index! + match[0].length) : '';
    const nsOption = NS_OPTION.exec(rest)?.[1];
    const { ns, key } = splitNamespace(raw, nsOption ?? 'common');
    used.push({ ns, key, file, line: lineOf(text, match.index!) });
  }
  return used;
}

/** `const FIELD_LABEL_KEYS: … = { … };`: a table of keys, read up to its closing brace at line start. */
const KEY_TABLE = /\bconst\s+\w*(?:KEY|Key)S?\w*\s*(?::[^=\n]*)?=\s*\{\n([\s\S]*?)\n\}/g;
const TABLE_VALUE = /:\s*(['"])((?:(?!\1)[^\\\n])*)\1/g;

/**
 * Keys held by props and fields named `…Key` (`labelKey: 'signIn.resend'`) and by tables named `…_KEYS` /
 * `…KeyBy…` (`{ password: 'authPage.password' }`). Such a value counts only when
 * it starts with a known translation section (of the English catalogue or of some `t()` call), so that a
 * `storageKey: 'theme.v1'` is not taken for a translation key.
 */
export function propKeys(text: string, file: string, sections: ReadonlySet<string>): UsedKey[] {
  const used: UsedKey[] = [];
  for (const match of text.matchAll(KEY_PROP)) {
    const shape = KEY_SHAPE.exec(match[2]!);
    if (!shape) continue;
    const key = shape[2]!;
    if (!shape[1] && !sections.has(key.split('.')[0]!)) continue;
    used.push({ ns: shape[1] ?? 'common', key, file, line: lineOf(text, match.index!) });
  }
  for (const table of text.matchAll(KEY_TABLE)) {
    const bodyStart = table.index! + table[0].indexOf('{');
    for (const match of table[1]!.matchAll(TABLE_VALUE)) {
      const shape = KEY_SHAPE.exec(match[2]!);
      if (!shape) continue;
      const key = shape[2]!;
      if (!shape[1] && !sections.has(key.split('.')[0]!)) continue;
      used.push({ ns: shape[1] ?? 'common', key, file, line: lineOf(text, bodyStart + 2 + match.index!) });
    }
  }
  return used;
}

export function usedKeys(text: string, file: string, sections: ReadonlySet<string>): UsedKey[] {
  return [...callKeys(text, file), ...propKeys(text, file, sections)];
}
