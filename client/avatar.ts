// Entry of the avatar upload island, a bundle of its own: only the profile page, where its markup
// is, loads it (views/components/IslandScript.tsx), so no other page pays for it.
import { mountAvatar } from './islands/avatar.ts';
import { startInTurn } from './lib/start-in-turn.ts';

startInTurn(() => {
  document.addEventListener('islands:mount', (event) => mountAvatar(event.target as ParentNode));
  mountAvatar(document);
});
