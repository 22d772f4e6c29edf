import { useT, useView } from '../context.ts';
import { Button } from './Button.tsx';
import { cx } from './cx.ts';

/** Each language named in itself, so a reader finds their own whatever the page language is. */
export const LANGUAGE_NAMES: Record<string, string> = {
  en: 'English',
  vi: 'Tiếng Việt',
  fr: 'Français',
  pt: 'Português',
  es: 'Español',
};

/** The current path and query without `lng`, so switching language does not pin the old one. */
export function returnPath(url: string): string {
  const parsed = new URL(url, 'http://local.invalid');
  parsed.searchParams.delete('lng');
  return parsed.pathname + parsed.search;
}

/** The address the switcher leads to; the /language route sets the cookie and redirects back. */
export function languageHref(lng: string, url: string): string {
  return `/language?${new URLSearchParams({ lng, return_to: returnPath(url) }).toString()}`;
}

/**
 * A GET form to /language: without JavaScript the visitor picks and presses Apply; with it, picking
 * is enough (the island submits on change and hides the button).
 */
export function LanguageSwitcher(props: { className?: string; id?: string }) {
  const t = useT();
  const { lang, languages, url } = useView();
  const id = props.id ?? 'language-switcher';
  return (
    <form className={cx('lang-switcher', props.className)} method="get" action="/language" data-island="language">
      <label className="lang-switcher__label" htmlFor={`${id}-select`}>
        {t('ui.language.label')}
      </label>
      <select className="lang-switcher__select" id={`${id}-select`} name="lng" defaultValue={lang}>
        {languages.map((lng) => (
          <option key={lng} value={lng} lang={lng}>
            {LANGUAGE_NAMES[lng] ?? lng}
          </option>
        ))}
      </select>
      <input type="hidden" name="return_to" value={returnPath(url)} />
      <Button variant="SECONDARY" size="SM" type="submit" className="lang-switcher__apply">
        {t('ui.language.apply')}
      </Button>
    </form>
  );
}
