// Entry of the tooltip island, a bundle of its own: pages load it where a Tooltip is rendered
// (views/components/Tooltip.tsx through IslandScript), so pages without one never download it.
import { initTooltips, mountTooltips } from './islands/tooltip.ts';
import { startInTurn } from './lib/start-in-turn.ts';

startInTurn(() => {
  initTooltips();
  document.addEventListener('islands:mount', (event) => mountTooltips(event.target as ParentNode));
  mountTooltips(document);
});
