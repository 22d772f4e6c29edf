// The cookie banner island (decision 170), a bundle of its own loaded by the banner's markup: the choice
// is posted as the form would post it, answered in place (no reload), told to Consent Mode with
// `consent update` (accept grants every signal, spec §4), and an accept starts the analytics island.
// Without JavaScript the same form posts and comes back with a 303.
import { consentState } from '../core/consent.ts';

type Gtag = (...args: unknown[]) => void;

const banner = document.querySelector<HTMLElement>('[data-island="cookie-banner"]');
const form = banner?.querySelector('form');

function startAnalytics(): void {
  const src = document.querySelector<HTMLElement>('[data-island="analytics"]')?.dataset.src;
  if (!src) return;
  const script = document.createElement('script');
  script.type = 'module';
  script.src = src;
  document.head.append(script);
}

form?.addEventListener('submit', async (event) => {
  const choice = (event.submitter as HTMLButtonElement | null)?.value;
  if (choice !== 'accept' && choice !== 'decline') return;
  event.preventDefault();
  const body = new URLSearchParams(new FormData(form) as unknown as Record<string, string>);
  body.set('choice', choice);
  try {
    const answer = await fetch(form.action, { method: 'POST', body, headers: { accept: 'application/json' }, credentials: 'same-origin' });
    if (!answer.ok) throw new Error(String(answer.status));
  } catch {
    // Not saved: the plain form post says why (or works where fetch did not).
    const field = Object.assign(document.createElement('input'), { type: 'hidden', name: 'choice', value: choice });
    form.append(field);
    return form.submit();
  }
  const granted = choice === 'accept';
  (window as unknown as { gtag?: Gtag }).gtag?.('consent', 'update', consentState(granted));
  banner!.remove();
  // The pressed button is gone: keyboard and screen-reader users go on from the page's heading.
  const heading = document.querySelector<HTMLElement>('main h1');
  if (heading) {
    heading.tabIndex = -1;
    heading.focus();
  }
  if (granted) startAnalytics();
});
