// Toast lifecycle: queued → shown → entered → closing → removed. At most TOAST_LIMIT are visible;
// a new toast past the limit dismisses the oldest ones.
export type ToastPhase = 'queued' | 'shown' | 'entered' | 'closing' | 'removed';
export const TOAST_LIMIT = 3;

/** The event an island bundled on its own dispatches on `document` to show a toast (client/islands/toasts.ts shows it). */
export const TOAST_EVENT = 'app:toast';
export type ToastRequest = { message?: string; variant?: 'success' | 'error' | 'info' | 'warning' };
export const TOAST_DURATION_MS = 5000;
/** Enter/leave transition length (matches the stylesheet). */
export const TOAST_TRANSITION_MS = 200;

export function isVisible(phase: string | undefined): boolean {
  return phase === 'queued' || phase === 'shown' || phase === 'entered';
}

/** The oldest items to dismiss so that at most `limit` stay visible (items are oldest first). */
export function overLimit<T>(items: readonly T[], phaseOf: (item: T) => string | undefined, limit = TOAST_LIMIT): T[] {
  const visible = items.filter((item) => isVisible(phaseOf(item)));
  return visible.slice(0, Math.max(0, visible.length - limit));
}

/** The toast helper refuses to show nothing: a call without a message is a programming error. */
export function requireMessage(message: unknown): string {
  if (typeof message !== 'string' || message.trim() === '') {
    // No message text: every byte of the bundle counts on /sign-in, and the stack names requireMessage.
    throw new TypeError();
  }
  return message;
}
