// Clear buttons, indeterminate checkboxes and the language switcher's submit on change; the password toggles
// of fields swapped in after the first paint shown (the first-paint script makes every toggle work: decision 210).
import { all, CLOSE_ICON, firstTime, hit } from '../lib/dom.ts';
const fresh = firstTime();

function controlled(button: Element): HTMLInputElement | null {
  const id = button.getAttribute('aria-controls');
  return id ? (document.getElementById(id) as HTMLInputElement | null) : null;
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
  for (const control of all(root, '[data-clearable]')) {
    const input = control.querySelector<HTMLInputElement>('input');
    if (!input || !fresh(control)) continue;
    const sync = () => (clearButtonFor(control, input).hidden = input.value === '' || input.readOnly);
    input.addEventListener('input', sync);
    sync();
  }
  for (const box of all<HTMLInputElement>(root, 'input[data-indeterminate]')) box.indeterminate = true;
  // The language switcher applies a choice made with the pointer at once; its Apply button is for pages
  // without JavaScript, and for the keyboard: arrows on a closed select change its value one language at a
  // time, so a change made by keys waits for Enter or Apply (applying it reloaded the page at the first step).
  for (const form of all<HTMLFormElement>(root, 'form[data-island="language"]')) {
    if (!fresh(form)) continue;
    const apply = form.querySelector<HTMLElement>('.lang-switcher__apply')!;
    apply.hidden = true;
    let byKeys = false;
    form.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && event.target !== apply) {
        event.preventDefault();
        form.requestSubmit();
      }
      // The select's own change comes in this task, before the timer.
      byKeys = true;
      setTimeout(() => (byKeys = false));
    });
    form.addEventListener('change', () => (byKeys ? (apply.hidden = false) : form.requestSubmit()));
  }
}

export function initFields(): void {
  document.addEventListener('click', (event) => {
    const clear = hit(event, '[data-clear]');
    const input = clear && controlled(clear);
    if (input) {
      input.value = '';
      input.dispatchEvent(new Event('input', { bubbles: true }));
      input.focus();
    }
  });
}
