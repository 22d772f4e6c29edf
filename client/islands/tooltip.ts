// Tooltips: open on hover (after 100 ms), focus, or a long touch (700 ms); close on Escape, blur,
// leave, or 1500 ms after the touch ends.
import { all, firstTime } from '../lib/dom.ts';

export const ENTER_DELAY_MS = 100;
export const TOUCH_DELAY_MS = 700;
export const LEAVE_TOUCH_DELAY_MS = 1500;

const fresh = firstTime();
const closers = new Set<() => void>();

export function mountTooltips(root: ParentNode): void {
  for (const tip of all(root, '[data-island="tooltip"]')) {
    const bubble = tip.querySelector('.tooltip__bubble');
    if (!bubble || !fresh(tip)) continue;
    tip.dataset.ready = '';
    let timer: ReturnType<typeof setTimeout> | undefined;
    const set = (open: boolean) => {
      clearTimeout(timer);
      bubble.classList.toggle('is-open', open);
    };
    const later = (open: boolean, ms: number) => {
      clearTimeout(timer);
      timer = setTimeout(() => set(open), ms);
    };
    closers.add(() => set(false));
    tip.addEventListener('mouseenter', () => later(true, ENTER_DELAY_MS));
    tip.addEventListener('mouseleave', () => set(false));
    tip.addEventListener('focusin', () => set(true));
    tip.addEventListener('focusout', () => set(false));
    tip.addEventListener('touchstart', () => later(true, TOUCH_DELAY_MS), { passive: true });
    const touchEnd = () => (bubble.classList.contains('is-open') ? later(false, LEAVE_TOUCH_DELAY_MS) : clearTimeout(timer));
    tip.addEventListener('touchend', touchEnd);
    tip.addEventListener('touchcancel', touchEnd);
  }
}

export function initTooltips(): void {
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') for (const close of closers) close();
  });
}
