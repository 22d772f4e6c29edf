// Entry of the page-level loading overlay's island, a bundle of its own loaded where such an overlay is
// rendered (views/components/LoadingOverlay.tsx with `follows`). The page's loading flag is the followed
// form's aria-busy, which the form island sets while the form is in flight: the overlay shows with it and
// stays while the answer sends the browser on (to a provider, to the app asking for consent); when the
// answer keeps the user here (a swapped form, an error toast) it goes. Its bar runs on the CSS curve
// (components.css), so this island stays a few hundred bytes: the profile page is close to its JS budget.
const OVERLAYS = '[data-island="loading-overlay"][data-follows]';

function overlays(): HTMLElement[] {
  return Array.from(document.querySelectorAll<HTMLElement>(OVERLAYS));
}

function sync(): void {
  for (const overlay of overlays()) overlay.hidden = document.getElementById(overlay.dataset.follows || '')?.getAttribute('aria-busy') !== 'true';
}

// aria-busy changes, and a swap replaces the form itself (childList).
new MutationObserver(sync).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-busy'] });
// This script can arrive after the forms island has started (on a slow network it is a request of its own),
// and the form may already be in flight then: show what is, not only what changes from now on.
sync();
// Back from the provider restores this page from the back/forward cache as it was left: overlay open.
addEventListener('pageshow', (event) => {
  if (event.persisted) for (const overlay of overlays()) overlay.hidden = true;
});
