// The message catalogues, read for the language tests of the profile and invitation screens: they show
// no English text of their sections in another language.
import { readFileSync } from 'node:fs';
import path from 'node:path';

export type Tree = { [key: string]: string | Tree };

export const catalogue = (lng: string) => JSON.parse(readFileSync(path.resolve('locales', lng, 'common.json'), 'utf8')) as Tree;

function strings(tree: Tree): string[] {
  return Object.values(tree).flatMap((value) => (typeof value === 'string' ? [value] : strings(value)));
}

/** Our HTML with the entities these texts may contain decoded. */
export const decode = (html: string) =>
  html
    .replace(/&#x27;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');

/** Placeholder-free English texts of the profile and invitation sections, long enough to be unambiguous (brand names are the same everywhere). */
export const english = [...strings(catalogue('en').profile as Tree), ...strings(catalogue('en').invitation as Tree)].filter(
  (text) => !text.includes('{{') && text.length > 12,
);

export const OTHER_LANGUAGES = ['vi', 'fr', 'pt', 'es'];
