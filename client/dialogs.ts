// Entry of the dialog island, a bundle of its own: pages load it where a dialog, a popover or a Reload
// button is rendered (views/components/Dialog.tsx, Popover.tsx, CrashScreen.tsx through IslandScript), so a
// sign-in page never downloads it.
import { initDialogs, mountDialogs } from './islands/dialogs.ts';
import { startInTurn } from './lib/start-in-turn.ts';

startInTurn(() => {
  initDialogs();
  document.addEventListener('islands:mount', (event) => mountDialogs(event.target as ParentNode));
  mountDialogs(document);
});
