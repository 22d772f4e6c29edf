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
const cache = new Map<string, string>();

export function cachedTranslate(lang: string, t: Translate): Translate {
  return (key, params) => {
    if (params !== undefined) return t(key, params);
    const id = `${lang}\u0000${key}`;
    const hit = cache.get(id);
    if (hit !== undefined) return hit;
    const value = t(key);
    if (cache.size < MAX_ENTRIES) cache.set(id, value);
    return value;
  };
}
