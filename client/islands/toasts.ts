// Toasts island: the server-rendered region becomes the top-right stack; other islands call toast().
import { overLimit, requireMessage, TOAST_DURATION_MS, TOAST_EVENT, TOAST_TRANSITION_MS, type ToastPhase, type ToastRequest } from '../lib/toast-queue.ts';
import { all, CLOSE_ICON, hit } from '../lib/dom.ts';

export type ToastVariant = 'success' | 'error' | 'info' | 'warning';

let region: HTMLElement | null = null;
const live: HTMLElement[] = [];

function phase(el: HTMLElement, next: ToastPhase): void {
  el.dataset.phase = next;
}

/** The region and its translated texts (data-text-*), created when the page did not render one. */
export function toastRegion(): HTMLElement {
  if (region && region.isConnected) return region;
  region = document.querySelector<HTMLElement>('[data-island="toasts"]');
  if (!region) {
    region = document.createElement('div');
    region.className = 'toasts';
    region.dataset.island = 'toasts';
    region.setAttribute('role', 'region');
    document.body.append(region);
  }
  region.classList.add('toasts--live');
  return region;
}

function dismiss(el: HTMLElement): void {
  if (el.dataset.phase === 'closing' || el.dataset.phase === 'removed') return;
  phase(el, 'closing');
  setTimeout(() => {
    el.remove();
    phase(el, 'removed');
    live.splice(live.indexOf(el), 1);
  }, TOAST_TRANSITION_MS);
}

function track(el: HTMLElement): void {
  if (live.includes(el)) return;
  phase(el, 'queued');
  live.push(el);
  const close = el.querySelector<HTMLElement>('[data-toast-close]');
  if (close) close.hidden = false;
  // Two frames: the queued (transparent) state is painted first, so the entry is animated.
  requestAnimationFrame(() =>
    requestAnimationFrame(() => {
      if (el.dataset.phase !== 'queued') return;
      phase(el, 'shown');
      setTimeout(() => el.dataset.phase === 'shown' && phase(el, 'entered'), TOAST_TRANSITION_MS);
      // Not while the reader points at or focuses the stack: they get the time they need (WCAG 2.2.1).
      const expire = () => (toastRegion().matches(':hover, :focus-within') ? setTimeout(expire, 1000) : dismiss(el));
      setTimeout(expire, TOAST_DURATION_MS);
    }),
  );
  for (const old of overLimit(live, (item) => item.dataset.phase)) dismiss(old);
}

/** Shows a toast; throws without a message. Returns the toast element. */
export function toast(message?: string, options: { variant?: ToastVariant } = {}): HTMLElement {
  const text = requireMessage(message);
  const variant = options.variant || 'info';
  const host = toastRegion();
  const el = document.createElement('div');
  el.className = `toast toast--${variant}`;
  el.dataset.toast = '';
  el.setAttribute('role', variant === 'error' ? 'alert' : 'status');
  const p = document.createElement('p');
  p.className = 'toast__message';
  p.textContent = text;
  const close = document.createElement('button');
  close.type = 'button';
  close.className = 'toast__close';
  close.dataset.toastClose = '';
  close.setAttribute('aria-label', host.dataset.textClose || 'Close');
  close.innerHTML = CLOSE_ICON;
  el.append(p, close);
  host.append(el);
  track(el);
  return el;
}

export function mountToasts(root: ParentNode): void {
  for (const host of all(root, '[data-island="toasts"]')) {
    region = host;
    host.classList.add('toasts--live');
    for (const el of all(host, '[data-toast]')) track(el);
  }
}

export function initToasts(): void {
  // Islands built as bundles of their own ask for a toast with an event instead of importing this module.
  document.addEventListener(TOAST_EVENT, (event) => {
    const request = (event as CustomEvent<ToastRequest>).detail;
    toast(request.message, { variant: request.variant });
  });
  document.addEventListener('click', (event) => {
    const el = hit(event, '[data-toast-close]') && hit(event, '[data-toast]');
    if (el) dismiss(el);
  });
}
