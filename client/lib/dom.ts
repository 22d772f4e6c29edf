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

/** The element an event happened on, or its closest ancestor, matching selector. */
export function hit<T extends Element = HTMLElement>(event: Event, selector: string): T | null {
  return (event.target as Element).closest<T>(selector);
}

/** The × icon of toasts and clear buttons. */
export const CLOSE_ICON =
  '<svg class="icon" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" aria-hidden="true"><path d="M6 6l12 12M18 6L6 18"/></svg>';

/**
 * Several messages as one announcement: each ends as a sentence (a full stop added only where it has no
 * closing mark of its own), so screen readers neither run them together nor read ".." between them.
 */
export function asSentences(messages: readonly string[]): string {
  return messages.map((text) => (/[.!?…]$/.test(text) ? text : `${text}.`)).join(' ');
}

/**
 * Sets a translated text into the page's live region so screen readers announce it. Every page
 * renders that region (views/components/IslandChrome.tsx), so the island does not build one.
 */
export function announce(text: string): void {
  const region = document.getElementById('live-region');
  if (!region) return;
  // Cleared first so the same message twice is announced twice.
  region.textContent = '';
  setTimeout(() => (region.textContent = text), 50);
}
