// Password show/hide toggles, clear buttons and indeterminate checkboxes on server-rendered fields.
import { all, firstTime } from '../lib/dom.ts';

const CLEAR_ICON = '<svg class="icon" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" aria-hidden="true"><path d="M6 6l12 12M18 6L6 18"/></svg>';
const fresh = firstTime();

function controlled(button: Element): HTMLInputElement | null {
  const id = button.getAttribute('aria-controls');
  return id ? (document.getElementById(id) as HTMLInputElement | null) : null;
}

/** Shows or hides the password; the button's label always says what pressing it will do. */
export function setPasswordShown(button: HTMLElement, shown: boolean): void {
  const input = controlled(button);
  if (!input) return;
  input.type = shown ? 'text' : 'password';
  button.setAttribute('aria-pressed', String(shown));
  button.setAttribute('aria-label', (shown ? button.dataset.labelHide : button.dataset.labelShow) ?? '');
}

function clearButtonFor(control: HTMLElement, input: HTMLInputElement): HTMLButtonElement {
  let button = control.querySelector<HTMLButtonElement>('[data-clear]');
  if (!button) {
    button = document.createElement('button');
    button.type = 'button';
    button.className = 'field__clear';
    button.dataset.clear = '';
    button.setAttribute('aria-label', control.dataset.clearLabel ?? '');
    button.setAttribute('aria-controls', input.id);
    button.innerHTML = CLEAR_ICON;
    input.after(button);
  }
  return button;
}

export function mountFields(root: ParentNode): void {
  for (const button of all(root, '[data-password-toggle]')) button.hidden = false;
  for (const control of all(root, '[data-clearable]')) {
    const input = control.querySelector<HTMLInputElement>('input');
    if (!input || !fresh(control)) continue;
    const sync = () => (clearButtonFor(control, input).hidden = input.value === '' || input.readOnly);
    input.addEventListener('input', sync);
    sync();
  }
  for (const box of all<HTMLInputElement>(root, 'input[data-indeterminate]')) box.indeterminate = true;
}

export function initFields(): void {
  document.addEventListener('click', (event) => {
    const target = event.target as Element;
    const toggle = target.closest?.<HTMLElement>('[data-password-toggle]');
    if (toggle) return setPasswordShown(toggle, toggle.getAttribute('aria-pressed') !== 'true');
    const clear = target.closest?.<HTMLElement>('[data-clear]');
    const input = clear && controlled(clear);
    if (input) {
      input.value = '';
      input.dispatchEvent(new Event('input', { bubbles: true }));
      input.focus();
    }
  });
  // A shown password goes back to hidden before the form leaves, so it is never stored as plain text.
  document.addEventListener('submit', (event) => {
    for (const toggle of all((event.target as HTMLFormElement), '[data-password-toggle][aria-pressed="true"]')) setPasswordShown(toggle, false);
  }, true);
}
