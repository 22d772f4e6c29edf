// Form enhancement, htmx-style: forms with data-enhance (or data-island="form") are sent with fetch
// (header X-Enhance: 1).
// 200 + X-Redirect-To → navigate; 4xx with the form's fragment → swap it, focus the first error and
// announce it; network error or 5xx → an error toast, the form left exactly as the user had it.
import { all, announce, asSentences, firstTime } from '../lib/dom.ts';
import { buildRequest, decideOutcome } from '../lib/enhance.ts';
import { finishNavigationProgress, startNavigationProgress } from './progress.ts';
import { toast, toastRegion } from './toasts.ts';

const ENHANCED = 'form[data-enhance], form[data-island="form"]';

/**
 * While a form is in flight its buttons are disabled and its submitter shows a spinner. In a dialog
 * (ConfirmDialog) the Cancel link is disabled too and closing is ignored until the answer comes
 * (spec §4), as the server renders `processing`.
 */
function setBusy(form: HTMLFormElement, submitter: HTMLElement | null, busy: boolean): void {
  form.setAttribute('aria-busy', String(busy));
  // A dialog's Cancel link too (the form's aria-busy already makes closing ignored: dialogs.ts isBusy).
  form.querySelectorAll('a[data-dialog-close]').forEach((link) => link.setAttribute('aria-disabled', String(busy)));
  for (const button of form.querySelectorAll('button')) {
    if (busy) {
      if (button.disabled) button.dataset.wasDisabled = '';
      button.disabled = true;
    } else if (button.dataset.wasDisabled === undefined) button.disabled = false;
    else delete button.dataset.wasDisabled;
  }
  // Enter presses a flow form's hidden copy of its main button (FlowForm's DefaultSubmit, the only submit
  // <input> there is): the spinner goes on the button shown.
  const loading =
    submitter instanceof HTMLInputElement
      ? form.querySelector<HTMLElement>(`button[value="${submitter.value}"]`)
      : submitter || form.querySelector<HTMLElement>('button[type="submit"], button:not([type])');
  if (!loading) return;
  loading.classList.toggle('btn--loading', busy);
  loading.toggleAttribute('aria-busy', busy);
}

type Fragment = { form: HTMLFormElement; scripts: NodeListOf<HTMLScriptElement> };

/**
 * The form again, from the server's fragment: same id, or the only form when it has none; with the
 * fragment's scripts, in the form or not (React puts an async script first in what it renders).
 */
function fragmentFor(form: HTMLFormElement, html: string): Fragment | null {
  const template = document.createElement('template');
  template.innerHTML = html;
  // Parsed off-document, <noscript> content is live (the captcha's fallback frame would load): this page runs scripts.
  template.content.querySelectorAll('noscript').forEach((fallback) => fallback.remove());
  const found = form.id ? template.content.getElementById(form.id) : template.content.querySelector('form');
  return found instanceof HTMLFormElement ? { form: found, scripts: template.content.querySelectorAll('script') } : null;
}

// Scripts this page has run, by address (inline ones as ''): the page's own and those a swap added.
const ranScripts = new Set<string>();

/**
 * A swapped-in form may bring an island the page never loaded (the captcha, once a refused sign-in makes
 * it due), but scripts parsed into a fragment never run: each one the page has not run yet is added anew
 * (the CSP's 'strict-dynamic' trusts what our scripts add). The old form's scripts are noted before it goes.
 */
function swap(form: HTMLFormElement, fragment: Fragment): void {
  const next = fragment.form;
  for (const script of document.scripts) ranScripts.add(script.src);
  form.replaceWith(next);
  for (const inert of fragment.scripts) {
    if (ranScripts.has(inert.src)) continue;
    ranScripts.add(inert.src);
    const script = document.createElement('script');
    script.type = inert.type;
    script.src = inert.src;
    document.head.append(script);
  }
  next.dispatchEvent(new CustomEvent('islands:mount', { bubbles: true }));
  const first = next.querySelector<HTMLElement>('[aria-invalid="true"]') || next.querySelector<HTMLElement>('[role="alert"]');
  if (first) first.focus();
  const messages = Array.from(next.querySelectorAll('[role="alert"], .field__error'), (el) => (el.textContent || '').trim()).filter(Boolean);
  if (messages.length > 0) announce(asSentences(Array.from(new Set(messages))));
}

async function submit(form: HTMLFormElement, submitter: HTMLElement | null): Promise<void> {
  const request = buildRequest(
    { method: form.getAttribute('method') || 'get', action: form.action, enctype: form.enctype },
    new FormData(form, submitter as HTMLButtonElement | null),
  );
  setBusy(form, submitter, true);
  startNavigationProgress();
  let leaving = false;
  try {
    const response = await fetch(request.url, {
      method: request.method,
      body: request.body,
      headers: { 'X-Enhance': '1', Accept: 'text/html' },
      // (Our cookies go with it: fetch's default credentials are same-origin.)
    });
    const body = response.status >= 400 && response.status < 500 ? await response.text() : '';
    const next = body ? fragmentFor(form, body) : null;
    const outcome = decideOutcome({
      status: response.status,
      redirectTo: response.headers.get('X-Redirect-To'),
      redirected: response.redirected,
      url: response.url,
      hasFragment: next !== null,
    });
    if (outcome.kind === 'navigate') {
      leaving = true;
      return location.assign(outcome.url);
    }
    if (outcome.kind === 'swap' && next) return swap(form, next);
    // The translated texts are on the toast region every page renders (views/components/IslandChrome.tsx).
    toast(toastRegion().dataset.textServer as string, { variant: 'error' });
  } catch {
    toast(toastRegion().dataset.textNetwork as string, { variant: 'error' });
  } finally {
    if (!leaving) {
      setBusy(form, submitter, false);
      // Disabling the pressed button took the focus away: give it back, where the keyboard user was.
      if (document.activeElement === document.body) submitter?.focus();
      finishNavigationProgress();
    }
  }
}

const fresh = firstTime();

/**
 * Forms marked data-auto-submit (e.g. logout, which must be a POST with our CSRF token) are sent at
 * once, as a plain navigation; without JavaScript the user presses their button.
 */
export function mountForms(root: ParentNode): void {
  for (const form of all<HTMLFormElement>(root, 'form[data-auto-submit]')) if (fresh(form)) form.submit();
  // Keys a page asks to forget (set after a sign-out): the last account, the session fingerprint…
  for (const el of all(root, '[data-clear-storage]')) {
    // An empty name (from extra spaces) removes nothing: no need to filter it out.
    for (const key of (el.dataset.clearStorage || '').split(/\s+/)) {
      try {
        localStorage.removeItem(key);
      } catch {
        // Storage unavailable: nothing was kept either.
      }
    }
  }
}

export function initEnhance(): void {
  // A page showing a flow made for this request: the flow's address in the address bar, so a reload reuses it (decision 190).
  const address = document.body.dataset.address;
  if (address) history.replaceState(null, '', address);
  document.addEventListener('submit', (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.matches(ENHANCED) || event.defaultPrevented) return;
    event.preventDefault();
    // A second submit while the first is in flight is dropped: never post twice.
    if (form.getAttribute('aria-busy') === 'true') return;
    void submit(form, event.submitter);
  });
}
