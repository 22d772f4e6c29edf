// Theme island: light / dark / auto in localStorage `theme`; auto follows the system live.
// The document shell already painted the right theme before this runs (no flash).
import { all, firstTime } from '../lib/dom.ts';
import { parseTheme, resolveTheme, THEME_KEY, type ThemeChoice } from '../lib/theme.ts';

const fresh = firstTime();
const system = () => matchMedia('(prefers-color-scheme: dark)');

function stored(): ThemeChoice {
  try {
    return parseTheme(localStorage.getItem(THEME_KEY));
  } catch {
    return 'light';
  }
}

function apply(): void {
  const choice = stored();
  document.documentElement.dataset.theme = resolveTheme(choice, system().matches);
  for (const radio of all<HTMLInputElement>(document, '[data-island="theme"] input[name="theme"]')) radio.checked = radio.value === choice;
}

export function mountTheme(root: ParentNode): void {
  for (const switcher of all(root, '[data-island="theme"]')) {
    if (!fresh(switcher)) continue;
    switcher.hidden = false;
    switcher.addEventListener('change', (event) => {
      const value = parseTheme((event.target as HTMLInputElement).value);
      try {
        localStorage.setItem(THEME_KEY, value);
      } catch {
        // Storage refused (private mode): the choice lasts for this page only.
      }
      document.documentElement.dataset.theme = resolveTheme(value, system().matches);
    });
  }
  apply();
}

export function initTheme(): void {
  system().addEventListener('change', apply);
  // Another tab changed the choice.
  addEventListener('storage', (event) => event.key === THEME_KEY && apply());
}
