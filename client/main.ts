// Entry of the browser bundle: mounts each island on the server-rendered markup that asks for it.
// Every page works without this file; islands only enhance. Swapped-in fragments dispatch
// `islands:mount` so their islands mount too.
import { initEnhance, mountForms } from './islands/enhance.ts';
import { initFields, mountFields } from './islands/fields.ts';
import { initProgress, mountOverlays } from './islands/progress.ts';
import { initToasts, mountToasts } from './islands/toasts.ts';
import { startInTurn } from './lib/start-in-turn.ts';

export { toast } from './islands/toasts.ts';

// The avatar, tooltip and dialog islands are entries of their own (client/avatar.ts, client/tooltip.ts,
// client/dialogs.ts), loaded where their markup is.
// The theme switcher and the password toggle work before this bundle arrives (client/first-paint.ts, decision 210).
// The forms island first (see start), then the fields island: what a person reaches for on most pages.
const inits = [initEnhance, initFields, initToasts, initProgress];
const mounts = [mountForms, mountFields, mountToasts, mountOverlays];

function mountAll(root: ParentNode): void {
  for (const mount of mounts) mount(root);
}

/**
 * On a slow phone the whole bundle's start in one go held the main thread for 60–130 ms, in the same
 * task as the browser's own DOMContentLoaded work (issue #17's blocking time). So only the forms island
 * starts at once, before the load event, since what it does must not wait (the flow's address in the
 * bar, auto-submitted hand-offs, forgetting stored keys, taking over submits); every other island starts
 * in a task of its own (startInTurn, as the island entries do), so input and paint get their turn in
 * between. A fragment swapped in later is small: its islands mount at once.
 */
function start(): void {
  inits.forEach((init, i) =>
    startInTurn(() => {
      init();
      mounts[i]!(document);
    }),
  );
  // Once every island has started: a fragment swapped in mounts them all.
  startInTurn(() => document.addEventListener('islands:mount', (event) => mountAll(event.target as ParentNode)));
}

// The script is async (views/layout/Document.tsx): from a warm cache it may run before the page is parsed, then it waits for the rest.
if (document.readyState === 'loading') addEventListener('DOMContentLoaded', start);
else start();
