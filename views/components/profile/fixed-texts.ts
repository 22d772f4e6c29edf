// Texts whose params are constants of the running app (the avatar size limit, the configured grace days,
// the names of the configured login services), never the user's data: in one language they are the same
// on every render, so i18next interpolates each once instead of on every /profile-settings view (a dozen
// interpolations were a fifth of the page's render in its CPU profile, issue #17 item 5). Param-less keys
// are already cached by core/translate.ts.
import { useView } from '../../context.ts';

/** Bounds the cache against surprises: the keys and values above are a small, fixed set. */
const MAX_TEXTS = 2_000;
const texts = new Map<string, string>();

export type FixedTranslate = (key: string, params: Readonly<Record<string, string | number>>) => string;

/** `t(key, params)` remembered per language; only for params that do not come from the user. */
export function useFixedT(): FixedTranslate {
  const { lang, t } = useView();
  return (key, params) => {
    let id = `${lang}\u0000${key}`;
    for (const [name, value] of Object.entries(params)) id += `\u0000${name}=${value}`;
    let text = texts.get(id);
    if (text === undefined) {
      text = t(key, params);
      if (texts.size < MAX_TEXTS) texts.set(id, text);
    }
    return text;
  };
}
