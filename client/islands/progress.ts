// Navigation progress bar and the loading overlay, both on the curve of lib/progress.ts.
import { all, firstTime, hit } from '../lib/dom.ts';
import { nextProgress, PROGRESS_TICK_MS } from '../lib/progress.ts';

type Runner = { stop(done: boolean): void };

/** Moves a .progress element along the curve until stopped; done jumps to 100 %. */
function run(progress: HTMLElement, onDone?: () => void): Runner {
  const bar = progress.querySelector<HTMLElement>('.progress__bar');
  let percent = 0;
  const paint = () => {
    progress.setAttribute('aria-valuenow', String(Math.round(percent)));
    if (bar) bar.style.transform = `scaleX(${percent / 100})`;
  };
  if (bar) bar.classList.add('is-driven');
  paint();
  const timer = setInterval(() => {
    percent = nextProgress(percent);
    paint();
  }, PROGRESS_TICK_MS);
  return {
    stop(done) {
      clearInterval(timer);
      if (!done) return;
      percent = 100;
      paint();
      if (onDone) setTimeout(onDone, 300);
    },
  };
}

let navigation: Runner | null = null;

function navBar(): HTMLElement {
  let bar = document.querySelector<HTMLElement>('[data-island="nav-progress"]');
  if (!bar) {
    bar = document.createElement('div');
    bar.className = 'progress progress--navigation';
    bar.dataset.island = 'nav-progress';
    bar.setAttribute('role', 'progressbar');
    bar.setAttribute('aria-valuemin', '0');
    bar.setAttribute('aria-valuemax', '100');
    bar.innerHTML = '<div class="progress__bar"></div>';
    bar.hidden = true;
    document.body.prepend(bar);
  }
  return bar;
}

export function startNavigationProgress(): void {
  if (navigation) navigation.stop(false);
  const bar = navBar();
  bar.hidden = false;
  navigation = run(bar, () => (bar.hidden = true));
}

export function finishNavigationProgress(): void {
  if (navigation) navigation.stop(true);
  navigation = null;
}

function isPlainNavigation(event: MouseEvent, link: HTMLAnchorElement): boolean {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return false;
  if ((link.target && link.target !== '_self') || link.hasAttribute('download') || link.origin !== location.origin) return false;
  // Same page, other anchor: no navigation happens.
  return !(link.pathname === location.pathname && link.search === location.search && link.hash !== '');
}

const overlays = new Map<HTMLElement, Runner>();
const fresh = firstTime();

export function openOverlay(overlay: HTMLElement): void {
  overlay.hidden = false;
  const progress = overlay.querySelector<HTMLElement>('.progress');
  if (progress && !overlays.has(overlay))
    overlays.set(
      overlay,
      run(progress, () => (overlay.hidden = true)),
    );
}

/** The work behind the overlay is done: the bar completes to 100 % and the overlay goes away. */
export function finishOverlay(overlay: HTMLElement): void {
  const runner = overlays.get(overlay);
  if (runner) runner.stop(true);
  overlays.delete(overlay);
}

export function mountOverlays(root: ParentNode): void {
  for (const overlay of all(root, '[data-island="loading-overlay"]')) {
    if (fresh(overlay) && !overlay.hidden) openOverlay(overlay);
  }
}

export function initProgress(): void {
  // On window, after document listeners, so links other islands handle (preventDefault) are skipped.
  addEventListener('click', (event) => {
    const link = hit<HTMLAnchorElement>(event, 'a[href]');
    if (link && isPlainNavigation(event, link)) startNavigationProgress();
    const opener = hit(event, '[data-overlay-open]');
    const overlay = opener && document.getElementById(opener.dataset.overlayOpen || '');
    if (overlay) {
      openOverlay(overlay);
      const after = Number(opener.dataset.overlayFinishAfter);
      if (after > 0) setTimeout(() => finishOverlay(overlay), after);
    }
  });
  addEventListener('submit', (event) => {
    if (!event.defaultPrevented) startNavigationProgress();
  });
  // Back/forward cache restores a page mid-navigation: the bar must not stay on screen.
  addEventListener('pageshow', finishNavigationProgress);
}
