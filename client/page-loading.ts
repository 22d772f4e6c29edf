// Entry of the page-level loading overlay's island, a bundle of its own loaded where such an overlay is
// rendered (views/components/LoadingOverlay.tsx with `follows`). The page's loading flag is the followed
// form's aria-busy, which the form island sets while the form is in flight: the overlay opens with it and
// stays while the answer sends the browser on (to a provider, to the app asking for consent); when the
// answer keeps the user here (a swapped form, an error toast) the bar completes and the overlay goes.
import { finishOverlay, openOverlay } from './islands/progress.ts';

const OVERLAYS = '[data-island="loading-overlay"][data-follows]';

function sync(): void {
  for (const overlay of Array.from(document.querySelectorAll<HTMLElement>(OVERLAYS))) {
    const busy = document.getElementById(overlay.dataset.follows || '')?.getAttribute('aria-busy') === 'true';
    if (busy && overlay.hidden) openOverlay(overlay);
    else if (!busy && !overlay.hidden) finishOverlay(overlay);
  }
}

// aria-busy changes, and a swap replaces the form itself (childList).
new MutationObserver(sync).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-busy'] });
// Back from the provider restores this page from the back/forward cache as it was left: overlay open.
addEventListener('pageshow', (event) => {
  if (!event.persisted) return;
  for (const overlay of Array.from(document.querySelectorAll<HTMLElement>(OVERLAYS))) {
    finishOverlay(overlay);
    overlay.hidden = true;
  }
});
