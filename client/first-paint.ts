// The page's first script, inlined in every page's head with the CSP nonce (decision 210): what must work
// from the first paint, before the island bundle has arrived over a slow network.
// - What only works with a script is shown from the first paint: the root gets `data-js` before the body is
//   parsed, and the stylesheet hides `[data-js-only]` (the switcher, the toggles) on a root without it
//   (decision 244). Unhidden at the end of parsing, as before, they were painted and usable only then.
// - The theme: a stored dark (or auto → dark) choice paints dark at once, never flashing light; the theme
//   switcher in the footer checks the stored choice at the end of parsing, and auto follows the system live.
// - The password toggle: shows or hides the password, and every shown password is hidden again before its
//   form is sent, so a browser never stores it as plain text.
// Without JavaScript none of this runs: the root has no `data-js`, so the switcher and the toggles stay hidden.
// Delegated listeners on the document: fields swapped in later by the forms island need nothing more.
import { parseTheme, resolveTheme, THEME_KEY, type ThemeChoice } from './lib/theme.ts';

const root = document.documentElement;
const systemDark = matchMedia('(prefers-color-scheme: dark)');
const SWITCHER = '[data-island="theme"]';
const TOGGLE = '[data-password-toggle]';

function storedTheme(): ThemeChoice {
  try {
    return parseTheme(localStorage.getItem(THEME_KEY));
  } catch {
    return 'light';
  }
}

function paint(choice: ThemeChoice): void {
  root.dataset.theme = resolveTheme(choice, systemDark.matches);
}

/** Paints the stored choice and checks its radio (another tab may have changed it). */
function applyStoredTheme(): void {
  const choice = storedTheme();
  paint(choice);
  document.querySelectorAll<HTMLInputElement>(`${SWITCHER} input`).forEach((radio) => (radio.checked = radio.value === choice));
}

/** The button's label always says what pressing it will do. */
function showPassword(button: HTMLElement, shown: boolean): void {
  const input = document.getElementById(button.getAttribute('aria-controls') as string) as HTMLInputElement | null;
  if (!input) return;
  input.type = shown ? 'text' : 'password';
  button.setAttribute('aria-pressed', String(shown));
  button.setAttribute('aria-label', button.dataset[shown ? 'labelHide' : 'labelShow'] as string);
}

root.dataset.js = ''; // before anything is painted: see the header
paint(storedTheme());
systemDark.addEventListener('change', applyStoredTheme);
addEventListener('storage', (event) => event.key === THEME_KEY && applyStoredTheme());

document.addEventListener('DOMContentLoaded', applyStoredTheme);

document.addEventListener('change', (event) => {
  const radio = event.target as HTMLInputElement;
  if (!radio.closest(SWITCHER)) return;
  const choice = parseTheme(radio.value);
  try {
    localStorage.setItem(THEME_KEY, choice);
  } catch {
    // Storage refused (private mode): the choice lasts for this page only.
  }
  paint(choice);
});

document.addEventListener('click', (event) => {
  const button = (event.target as Element).closest<HTMLElement>(TOGGLE);
  if (button) showPassword(button, button.getAttribute('aria-pressed') !== 'true');
});

document.addEventListener(
  'submit',
  (event) => (event.target as HTMLFormElement).querySelectorAll<HTMLElement>(`${TOGGLE}[aria-pressed="true"]`).forEach((button) => showPassword(button, false)),
  // Capture: before the forms island's own submit handler reads the form.
  true,
);
