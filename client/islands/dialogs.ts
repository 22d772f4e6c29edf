// Dialogs (open/close, Escape, focus), popovers (Escape, outside click), Reload buttons and the cross-tab
// session-changed warning. An entry of its own (client/dialogs.ts), loaded where that markup is.
import { all, firstTime, hit } from '../lib/dom.ts';

const FOCUSABLE = 'a[href],button:not([disabled]),input:not([disabled]),select,textarea,[tabindex]:not([tabindex="-1"])';
const SESSION_KEY = 'session';
const fresh = firstTime();
const openers = new WeakMap<HTMLElement, Element | null>();

/** While a dialog's form is in flight (or it is marked processing), closing it is ignored. */
export function isBusy(layer: Element): boolean {
  return layer.hasAttribute('data-processing') || layer.querySelector('[aria-busy="true"]') !== null;
}

export function openDialog(layer: HTMLElement): void {
  openers.set(layer, document.activeElement);
  layer.hidden = false;
  const first = layer.querySelector<HTMLElement>(`.dialog__body ${FOCUSABLE}, .dialog__actions ${FOCUSABLE}, ${FOCUSABLE}`);
  if (first) first.focus();
}

export function closeDialog(layer: HTMLElement): boolean {
  if (isBusy(layer)) return false;
  layer.hidden = true;
  const opener = openers.get(layer);
  if (opener instanceof HTMLElement) opener.focus();
  return true;
}

function openLayers(): HTMLElement[] {
  return all(document, '.dialog-layer:not([hidden])');
}

export function mountDialogs(root: ParentNode): void {
  for (const close of all(root, '.dialog__close[hidden]')) close.hidden = false;
  for (const watch of all(root, '[data-island="session-watch"]')) {
    if (!fresh(watch)) continue;
    const open = () => {
      const layer = watch.querySelector<HTMLElement>('.dialog-layer');
      if (layer) openDialog(layer);
    };
    // The live-session socket (client/socket.ts): a force-reload, or the session found gone on reconnection.
    addEventListener('session-changed', open);
    const key = watch.dataset.sessionKey;
    if (!key) continue;
    try {
      localStorage.setItem(SESSION_KEY, key);
    } catch {
      continue;
    }
    // Another tab signed in as someone else, or out: this page's data no longer matches the session.
    addEventListener('storage', (event) => {
      if (event.key === SESSION_KEY && event.newValue !== key) open();
    });
  }
}

/** Tab and Shift+Tab cycle inside the open modal dialog instead of leaving it for the page behind. */
function trapFocus(event: KeyboardEvent): void {
  const top = openLayers().pop();
  if (!top) return;
  const focusable = all(top, FOCUSABLE).filter((el) => !el.hidden && el.getClientRects().length > 0);
  const first = focusable[0];
  const last = focusable[focusable.length - 1];
  const active = document.activeElement;
  if (!first || !last) return;
  if (!top.contains(active) || (event.shiftKey ? active === first : active === last)) {
    event.preventDefault();
    (event.shiftKey ? last : first).focus();
  }
}

export function initDialogs(): void {
  document.addEventListener('click', (event) => {
    const target = event.target as HTMLElement;
    if (hit(event, '[data-reload]')) {
      event.preventDefault();
      return location.reload();
    }
    const opener = hit(event, '[data-dialog-open]');
    const layer = opener && document.getElementById(opener.dataset.dialogOpen || '');
    if (layer) {
      event.preventDefault();
      return openDialog(layer);
    }
    const closer = hit(event, '[data-dialog-close]');
    // A click on the backdrop (the layer itself) closes too, when the dialog can be closed at all.
    const owner = closer ? closer.closest<HTMLElement>('.dialog-layer') : target.matches('.dialog-layer') ? target : null;
    if (owner && (closer || owner.querySelector('[data-dialog-close]'))) {
      event.preventDefault();
      closeDialog(owner);
    }
    for (const popover of all<HTMLDetailsElement>(document, 'details[data-popover][open]')) {
      if (!popover.contains(target)) popover.open = false;
    }
  });
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Tab') return trapFocus(event);
    if (event.key !== 'Escape') return;
    for (const popover of all<HTMLDetailsElement>(document, 'details[data-popover][open]')) popover.open = false;
    const top = openLayers().pop();
    if (top && top.querySelector('[data-dialog-close]')) closeDialog(top);
  });
}
