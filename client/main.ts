// Entry of the browser bundle: mounts each island on the server-rendered markup that asks for it.
// Every page works without this file; islands only enhance. Swapped-in fragments dispatch
// `islands:mount` so their islands mount too.
import { initDialogs, mountDialogs } from './islands/dialogs.ts';
import { initEnhance, mountForms } from './islands/enhance.ts';
import { initFields, mountFields } from './islands/fields.ts';
import { initProgress, mountOverlays } from './islands/progress.ts';
import { initTheme, mountTheme } from './islands/theme.ts';
import { initToasts, mountToasts } from './islands/toasts.ts';

export { toast } from './islands/toasts.ts';

// The avatar and tooltip islands are entries of their own (client/avatar.ts, client/tooltip.ts), loaded where their markup is.
const mounts = [mountFields, mountToasts, mountTheme, mountDialogs, mountOverlays, mountForms];

function mountAll(root: ParentNode): void {
  for (const mount of mounts) mount(root);
}

for (const init of [initFields, initToasts, initTheme, initDialogs, initProgress, initEnhance]) init();
document.addEventListener('islands:mount', (event) => mountAll(event.target as ParentNode));
mountAll(document);
