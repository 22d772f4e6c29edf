import { useT } from '../context.ts';
import { THEMES } from './constants.ts';
import { cx } from './cx.ts';

/**
 * Light / dark / auto, kept in localStorage under `theme`. It needs the browser's storage, so it is shown
 * only with JavaScript (`data-js-only`, decision 244); the page's first-paint script runs it and checks the
 * stored choice (client/first-paint.ts, decision 210).
 */
export function ThemeSwitcher(props: { className?: string; id?: string }) {
  const t = useT();
  const id = props.id ?? 'theme-switcher';
  return (
    <fieldset className={cx('theme-switcher', props.className)} id={id} data-island="theme" data-js-only="">
      <legend className="theme-switcher__legend">{t('ui.theme.label')}</legend>
      {THEMES.map((theme) => (
        <span className="theme-switcher__option" key={theme}>
          <input type="radio" className="theme-switcher__input" id={`${id}-${theme}`} name="theme" value={theme} defaultChecked={theme === 'light'} />
          <label htmlFor={`${id}-${theme}`}>{t(`ui.theme.${theme}`)}</label>
        </span>
      ))}
    </fieldset>
  );
}
