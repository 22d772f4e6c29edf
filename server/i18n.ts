import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { RequestHandler } from 'express';
import i18next, { type i18n as I18n, type TFunction } from 'i18next';
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

export async function createI18n(languages: readonly string[], defaultLanguage: string, localesDir = 'locales'): Promise<I18n> {
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

/** A Map that forgets everything once it holds `limit` entries: enough for a bounded memo. */
function boundedMemo<V>(limit: number) {
  const entries = new Map<string, V>();
  return {
    get: (key: string) => entries.get(key),
    set(key: string, value: V) {
      if (entries.size >= limit) entries.clear();
      entries.set(key, value);
    },
  };
}

/**
 * A language's translator that remembers the plain lookups (a key without options), which are most
 * of a page's texts: the catalogues never change after start-up, so the answer never changes either.
 */
function memoisedTranslator(fixed: TFunction): TFunction {
  const plain = boundedMemo<string>(5_000);
  const translate = (key: unknown, options?: unknown) => {
    if (options !== undefined || typeof key !== 'string') return (fixed as (k: unknown, o?: unknown) => string)(key, options);
    let text = plain.get(key);
    if (text === undefined) {
      text = String(fixed(key));
      plain.set(key, text);
    }
    return text;
  };
  return translate as unknown as TFunction;
}

/**
 * Per-request language, detected by the library's detector (?lng → cookie → Accept-Language → default)
 * and served by a translator fixed per language and made once at start-up. i18next-http-middleware's
 * `handle` clones the whole i18next instance on every request, which cost a noticeable share of the
 * CPU of each page; nothing here needs a per-request instance because the language never changes
 * within a request. Detection depends only on the query's lng, the lng cookie and Accept-Language,
 * which repeat across requests, so its result is remembered too.
 */
export function i18nRequest(instance: I18n): RequestHandler {
  const detector = instance.services.languageDetector as { detect(req: unknown, res: unknown): string | string[] | undefined };
  const supported = new Set((instance.options.supportedLngs || []).filter((lng) => lng !== 'cimode'));
  const fallback = instance.languages?.[0] ?? String(instance.options.fallbackLng ?? 'en');
  const translators = new Map<string, TFunction>();
  for (const lng of supported) translators.set(lng, memoisedTranslator(instance.getFixedT(lng)));
  const detected = boundedMemo<string>(1_000);
  const detect = (req: Parameters<RequestHandler>[0], res: Parameters<RequestHandler>[1]) => {
    const found = detector.detect(req, res);
    const candidate = Array.isArray(found) ? found[0] : found;
    return candidate && supported.has(candidate) ? candidate : fallback;
  };
  return (req, res, next) => {
    const fromQuery = req.query.lng;
    const cookie = req.cookies?.[LANGUAGE_COOKIE];
    // Only the usual shapes are remembered: a repeated ?lng= (an array), an odd cookie or an outsized
    // key (the memo must stay small whatever clients send) is detected afresh.
    const simple = (fromQuery === undefined || typeof fromQuery === 'string') && (cookie === undefined || typeof cookie === 'string');
    const key = simple ? `${fromQuery ?? ''}\n${cookie ?? ''}\n${req.headers['accept-language'] ?? ''}` : '';
    let lng: string;
    if (simple && key.length <= 256) {
      const known = detected.get(key);
      lng = known ?? detect(req, res);
      if (known === undefined) detected.set(key, lng);
    } else {
      lng = detect(req, res);
    }
    req.language = lng;
    req.t = (translators.get(lng) ?? instance.getFixedT(lng)) as never;
    res.setHeader('Content-Language', lng);
    next();
  };
}
