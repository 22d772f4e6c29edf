// A signed-in browser on /profile-settings, for the profile tests.
import { Browser, createIdentity, formAction, hiddenValue, signIn, STRONG_PASSWORD, uniqueEmail } from '../auth/helpers.ts';

export type SignedIn = {
  browser: Browser;
  email: string;
  identityId: string;
  /** Our CSRF token (the `_csrf` field of the page's own forms). */
  csrf: string;
  /** The page's settings flow action, /profile-settings?flow=<id>. */
  settingsAction: string;
  /** Kratos's CSRF token of the settings flow. */
  flowCsrf: string;
  page: string;
};

export async function openProfile(browser: Browser): Promise<Omit<SignedIn, 'browser' | 'email' | 'identityId'>> {
  const page = await browser.follow('/profile-settings');
  if (page.status !== 200) throw new Error(`profile page: ${page.status} ${page.url}`);
  const csrf = hiddenValue(page.text, '_csrf');
  const settingsAction = formAction(page.text, 'profile-name-form');
  const flowCsrf = hiddenValue(page.text, 'csrf_token');
  if (!csrf || !settingsAction || !flowCsrf) throw new Error('profile page without its forms');
  return { csrf, settingsAction, flowCsrf, page: page.text };
}

export async function signedInUser(appUrl: string, adminUrl: string, options: { prefix?: string; name?: string; password?: string } = {}): Promise<SignedIn> {
  const email = uniqueEmail(options.prefix ?? 'profile');
  const identityId = await createIdentity(adminUrl, email, options.password ?? STRONG_PASSWORD, options.name ?? 'Ada');
  const browser = new Browser(appUrl);
  const answer = await signIn(browser, email, options.password ?? STRONG_PASSWORD);
  if (answer.status !== 303) throw new Error(`sign-in: ${answer.status}`);
  return { browser, email, identityId, ...(await openProfile(browser)) };
}
