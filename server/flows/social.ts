/**
 * Social sign-in hand-off (spec §4): on `browser_location_change_required` the browser goes to
 * `redirect_browser_to`; for Google we add `login_hint` with the address we know, so Google preselects
 * the account (Kratos no longer forwards login_hint itself, contract §14.3).
 *
 *   socialRedirect(url, provider, email?) → the URL to send the browser to
 */
const GOOGLE_HOSTS = new Set(['accounts.google.com']);

export function socialRedirect(url: string, provider: string | undefined, email: string | undefined): string {
  if (!email) return url;
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return url;
  }
  const isGoogle = provider === 'google' || GOOGLE_HOSTS.has(target.hostname);
  if (!isGoogle || target.searchParams.has('login_hint')) return url;
  target.searchParams.set('login_hint', email);
  return target.href;
}
