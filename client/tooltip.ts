// Entry of the tooltip island, a bundle of its own: pages load it where a Tooltip is rendered
// (views/components/Tooltip.tsx through IslandScript), so pages without one never download it.
import { initTooltips, mountTooltips } from './islands/tooltip.ts';

initTooltips();
document.addEventListener('islands:mount', (event) => mountTooltips(event.target as ParentNode));
mountTooltips(document);
