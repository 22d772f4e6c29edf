// Entry of the browser bundle: mounts each island on the server-rendered markup that asks for it.
// Every page works without this file; islands only enhance. Swapped-in fragments dispatch
// `islands:mount` so their islands mount too.
import { initDialogs, mountDialogs } from './islands/dialogs.ts';
import { initEnhance, mountForms } from './islands/enhance.ts';
import { initFields, mountFields } from './islands/fields.ts';
import { initProgress, mountOverlays } from './islands/progress.ts';
import { initTheme, mountTheme } from './islands/theme.ts';
import { initToasts, mountToasts } from './islands/toasts.ts';
import { initTooltips, mountTooltips } from './islands/tooltip.ts';

export { toast } from './islands/toasts.ts';

// The avatar island is an entry of its own (client/avatar.ts), loaded where its markup is.
const mounts = [mountFields, mountToasts, mountTooltips, mountTheme, mountDialogs, mountOverlays, mountForms];

function mountAll(root: ParentNode): void {
  for (const mount of mounts) mount(root);
}

for (const init of [initFields, initToasts, initTooltips, initTheme, initDialogs, initProgress, initEnhance]) init();
document.addEventListener('islands:mount', (event) => mountAll(event.target as ParentNode));
mountAll(document);
