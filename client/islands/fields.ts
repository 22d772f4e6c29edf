// Password show/hide toggles, clear buttons and indeterminate checkboxes on server-rendered fields.
import { all, CLOSE_ICON, firstTime, hit } from '../lib/dom.ts';
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
  button.setAttribute('aria-label', (shown ? button.dataset.labelHide : button.dataset.labelShow) || '');
}

function clearButtonFor(control: HTMLElement, input: HTMLInputElement): HTMLButtonElement {
  let button = control.querySelector<HTMLButtonElement>('[data-clear]');
  if (!button) {
    button = document.createElement('button');
    button.type = 'button';
    button.className = 'field__clear';
    button.dataset.clear = '';
    button.setAttribute('aria-label', control.dataset.clearLabel || '');
    button.setAttribute('aria-controls', input.id);
    button.innerHTML = CLOSE_ICON;
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
    const toggle = hit(event, '[data-password-toggle]');
    if (toggle) return setPasswordShown(toggle, toggle.getAttribute('aria-pressed') !== 'true');
    const clear = hit(event, '[data-clear]');
    const input = clear && controlled(clear);
    if (input) {
      input.value = '';
      input.dispatchEvent(new Event('input', { bubbles: true }));
      input.focus();
    }
  });
  // A shown password goes back to hidden before the form leaves, so it is never stored as plain text.
  document.addEventListener(
    'submit',
    (event) => {
      for (const toggle of all(event.target as HTMLFormElement, '[data-password-toggle][aria-pressed="true"]')) setPasswordShown(toggle, false);
    },
    true,
  );
}
