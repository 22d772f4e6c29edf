import { readFileSync } from 'node:fs';
import path from 'node:path';
import i18next, { type i18n as I18n } from 'i18next';
import { LanguageDetector } from 'i18next-http-middleware';

export const NAMESPACES = ['common', 'terms'] as const;
export const LANGUAGE_COOKIE = 'lng';

/** Reads every locale file once at start-up; requests then translate from memory. */
export function loadResources(languages: readonly string[], localesDir = 'locales') {
  const resources: Record<string, Record<string, unknown>> = {};
  for (const lng of languages) {
    resources[lng] = {};
    for (const ns of NAMESPACES) {
      const file = path.resolve(localesDir, lng, `${ns}.json`);
      resources[lng][ns] = JSON.parse(readFileSync(file, 'utf8'));
    }
  }
  return resources;
}

export async function createI18n(
  languages: readonly string[],
  defaultLanguage: string,
  localesDir = 'locales',
): Promise<I18n> {
  const instance = i18next.createInstance();
  await instance.use(LanguageDetector).init({
    resources: loadResources(languages, localesDir) as never,
    supportedLngs: [...languages],
    fallbackLng: defaultLanguage,
    ns: [...NAMESPACES],
    defaultNS: 'common',
    interpolation: { escapeValue: false }, // React escapes.
    detection: {
      order: ['querystring', 'cookie', 'header'],
      lookupQuerystring: 'lng',
      lookupCookie: LANGUAGE_COOKIE,
      caches: false,
    },
  });
  return instance;
}
