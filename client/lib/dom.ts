/** Elements under root matching selector, root included when it matches. */
export function all<T extends Element = HTMLElement>(root: ParentNode, selector: string): T[] {
  const found = Array.from(root.querySelectorAll<T>(selector));
  if (root instanceof Element && root.matches(selector)) found.unshift(root as unknown as T);
  return found;
}

/** A guard that is true the first time it sees an element: islands are re-mounted on swapped fragments. */
export function firstTime(): (element: Element) => boolean {
  const seen = new WeakSet<Element>();
  return (element) => {
    if (seen.has(element)) return false;
    seen.add(element);
    return true;
  };
}

/** Sets a translated text into the page's live region so screen readers announce it. */
export function announce(text: string): void {
  let region = document.getElementById('live-region');
  if (!region) {
    region = document.createElement('div');
    region.id = 'live-region';
    region.className = 'visually-hidden';
    region.setAttribute('aria-live', 'assertive');
    region.setAttribute('aria-atomic', 'true');
    document.body.append(region);
  }
  // Cleared first so the same message twice is announced twice.
  region.textContent = '';
  const target = region;
  setTimeout(() => (target.textContent = text), 50);
}
