// What the screen-by-screen browser files share (404 and crash, guards, sign-out, language switcher,
// API reference): a private build of the assets, the real stack (app + embedded identity + backend on
// ephemeral ports), Debian's Chromium, one watched page per scenario, and the check after each
// scenario that the browser reported no console error or CSP violation the scenario did not provoke
// on purpose. Call `useScreenStack` once at the top level of a test file.
import type { Browser, BrowserContext, Page, Response } from 'playwright';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { configureRateLimits, resetRateLimitSettings, type RateLimitScope, type RateLimitSetting } from '../../server/security/rate-limit.ts';
import { buildAssets, launchBrowser, openWatchedPage, unexpectedProblems, type WatchedPage } from '../support/browser.ts';
import { uniqueEmail, useIdentities, type Identities } from '../support/fixtures.ts';
import { startStack, type Stack } from '../support/stack.ts';

export type ScreenStack = {
  readonly stack: Stack;
  readonly browser: Browser;
  readonly identities: Identities;
  /** A fresh watched page (own context, cookies for the app set first); closed and checked after the scenario. */
  openPage(javaScriptEnabled: boolean, cookies?: { name: string; value: string }[]): Promise<Page>;
  /** The context of the page the scenario opened (its cookies, its request API). */
  context(): BrowserContext;
  /** What the browser reported so far for the page the scenario opened. */
  problems(): string[];
  /** Error statuses the scenario provokes on purpose: the browser logs one console line for each. */
  provoke(...statuses: number[]): void;
  /** A verified account with a password, deleted after the scenario. */
  newAccount(label: string): Promise<{ email: string; password: string; name: string }>;
  /**
   * A page of this app at `path`. The settings page shows a new Kratos flow on arrival: with JavaScript its
   * address then gains `?flow=<id>` (decision 190), without it stays as it was; the home has no query.
   */
  landsOn(path: string): RegExp;
  /** The sign-in page a guard sent the browser to, and the return_to it carries. */
  expectSignInWithReturnTo(page: Page, returnTo: string): void;
};

export function useScreenStack(options: {
  /** Prefix of the temporary build directory. */
  name: string;
  rateLimits?: Partial<Record<RateLimitScope, Partial<RateLimitSetting>>>;
  /** The embedded Google, Microsoft, Dropbox and Apple too (startStack's `socialProviders`): `stack.providers`. */
  socialProviders?: boolean;
  /** The OAuth2 provider too (startStack's `oauth2`: real Hydra on real Kratos, else the stand-in): `stack.oauth2`. */
  oauth2?: boolean;
  /** More app environment (the test's values win over the stack's). */
  env?: Record<string, string>;
}): ScreenStack {
  let build: ReturnType<typeof buildAssets> | undefined;
  let stack: Stack | undefined;
  let browser: Browser | undefined;

  beforeAll(async () => {
    build = buildAssets(options.name);
    if (options.rateLimits) configureRateLimits(options.rateLimits);
    stack = await startStack({ env: { ASSETS_DIR: build.assetsDir, ...options.env }, socialProviders: options.socialProviders, oauth2: options.oauth2 });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
    if (options.rateLimits) resetRateLimitSettings();
    build?.remove();
  });
  // After the hooks above: after-hooks run in reverse order, so identities go before the stack stops.
  const identities = useIdentities(() => started().identity.adminUrl);

  let current: WatchedPage | null = null;
  let provokedStatuses: number[] = [];

  afterEach(async () => {
    const watched = current;
    const statuses = provokedStatuses;
    current = null;
    provokedStatuses = [];
    await watched?.context.close();
    expect(unexpectedProblems(watched?.problems ?? [], statuses)).toEqual([]);
  });

  function started(): Stack {
    if (!stack) throw new Error('the stack is not started (useScreenStack at the top level of the file)');
    return stack;
  }
  function opened(): WatchedPage {
    if (!current) throw new Error('no page opened in this scenario');
    return current;
  }

  function launched(): Browser {
    if (!browser) throw new Error('the browser is not launched');
    return browser;
  }

  return {
    get stack() {
      return started();
    },
    get browser() {
      return launched();
    },
    identities,
    async openPage(javaScriptEnabled, cookies = []) {
      current = await openWatchedPage(launched(), { javaScriptEnabled });
      if (cookies.length) await current.context.addCookies(cookies.map((cookie) => ({ ...cookie, url: started().appUrl })));
      return current.page;
    },
    context: () => opened().context,
    problems: () => opened().problems,
    provoke(...statuses) {
      provokedStatuses.push(...statuses);
    },
    async newAccount(label) {
      const password = `Screens-Phrase-${label}-2026`;
      const { email, name } = await identities.create({ email: uniqueEmail(label), password, name: `Reader ${label}` });
      return { email, password, name };
    },
    landsOn(path) {
      const escaped = `${started().appUrl}${path}`.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      return path === '/' ? new RegExp(`^${escaped}$`) : new RegExp(`^${escaped}(\\?flow=[\\w-]+)?$`);
    },
    expectSignInWithReturnTo(page, returnTo) {
      const url = new URL(page.url());
      expect(url.origin).toBe(started().appUrl);
      expect(url.pathname).toBe('/sign-in');
      expect(url.searchParams.get('return_to')).toBe(returnTo);
    },
  };
}

export function must(response: Response | null): Response {
  if (!response) throw new Error('no response for the navigation');
  return response;
}

export const h1 = async (page: Page): Promise<string> => (await page.locator('h1').innerText()).trim();
export const mainText = (page: Page): Promise<string> => page.locator('main').innerText();
