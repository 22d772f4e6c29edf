import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// The profile, invitation and canny sections exist in all five languages, with the same keys and the
// same {{placeholders}}, and are really translated (not English copied over).
const LANGUAGES = ['en', 'vi', 'fr', 'pt', 'es'] as const;
const SECTIONS = ['profile', 'invitation', 'canny'] as const;

type Tree = { [key: string]: string | Tree };
const load = (lng: string) => JSON.parse(readFileSync(path.resolve('locales', lng, 'common.json'), 'utf8')) as Tree;

function flatten(tree: Tree, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(tree)) {
    if (typeof value === 'string') out[prefix + key] = value;
    else Object.assign(out, flatten(value, `${prefix}${key}.`));
  }
  return out;
}

const placeholders = (text: string) => [...text.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();
// Brand names and the like may stay the same across languages.
const SAME_EVERYWHERE = /^profile\.linkedLogins\.provider\./;

describe('profile locale sections', () => {
  const english = load('en');
  for (const section of SECTIONS) {
    const reference = flatten(english[section] as Tree, `${section}.`);
    it(`${section} has texts in English`, () => {
      expect(Object.keys(reference).length).toBeGreaterThan(2);
      for (const text of Object.values(reference)) expect(text.trim()).not.toBe('');
    });
    for (const lng of LANGUAGES.filter((l) => l !== 'en')) {
      it(`${section} in ${lng}: same keys and placeholders, translated`, () => {
        const translated = flatten((load(lng)[section] ?? {}) as Tree, `${section}.`);
        expect(Object.keys(translated).sort()).toEqual(Object.keys(reference).sort());
        for (const [key, text] of Object.entries(reference)) {
          expect(placeholders(translated[key]!), key).toEqual(placeholders(text));
          if (!SAME_EVERYWHERE.test(key)) expect(translated[key], key).not.toBe(text);
        }
      });
    }
  }
});
