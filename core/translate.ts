/**
 * Memoised translations. The catalogues are loaded once at start-up and never change, so the text of
 * (language, key) without interpolation params is a constant: looking it up through i18next on every
 * render (≈4 µs a call, dozens per page) is work that can be done once.
 *
 *   cachedTranslate(lang, t) → a Translate that serves param-less keys from a process-wide cache and
 *                              passes calls with params straight to `t`
 *
 * The cache is bounded (keys come from our code and from Kratos message ids, a finite set; the bound
 * only guards against surprises).
 */
/** Any `(key, params) => text` that answers the key itself when it has no text (i18next's behaviour). */
export type Translate = (key: string, params?: Record<string, unknown>) => string;

const MAX_ENTRIES = 20_000;
const MAX_LANGUAGES = 64;
// One map per language, found once per translator: a key is then looked up as it is (most are string
// literals, whose hash V8 keeps), not joined to the language on every call (~1% of a sign-in page's CPU).
const cacheByLanguage = new Map<string, Map<string, string>>();
let entries = 0;

export function cachedTranslate(lang: string, t: Translate): Translate {
  let cache = cacheByLanguage.get(lang);
  if (!cache) {
    cache = new Map();
    // Languages come from the configured list; the bound only guards against surprises, like MAX_ENTRIES.
    if (cacheByLanguage.size < MAX_LANGUAGES) cacheByLanguage.set(lang, cache);
  }
  const texts = cache;
  return (key, params) => {
    if (params !== undefined) return t(key, params);
    const hit = texts.get(key);
    if (hit !== undefined) return hit;
    const value = t(key);
    if (entries < MAX_ENTRIES) {
      texts.set(key, value);
      entries++;
    }
    return value;
  };
}
