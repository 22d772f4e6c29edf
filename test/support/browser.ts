// Browser tests' helpers: Debian's Chromium (never a downloaded browser), contexts and pages that
// report console errors and CSP violations, a private build of the assets, sign-in through the page,
// and the catalogue texts to look for. Test data (identities, mailed codes) comes from ./fixtures.ts.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sharedBuildDir } from './app.ts';
import type { Browser, BrowserContext, ConsoleMessage, Page } from 'playwright';

export { CHROMIUM_ARGS, CHROMIUM_PATH, launchBrowser } from './chromium.ts';

/** A context with JavaScript on or off, collecting console errors and CSP violations for assertions. */
export async function newContext(
  browser: Browser,
  options: { javaScriptEnabled: boolean; locale?: string },
): Promise<{ context: BrowserContext; problems: string[]; watch(page: Page): void }> {
  const context = await browser.newContext({
    javaScriptEnabled: options.javaScriptEnabled,
    locale: options.locale ?? 'en-US',
  });
  const problems: string[] = [];
  const watch = (page: Page) => {
    page.on('console', (message: ConsoleMessage) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  };
  return { context, problems, watch };
}

/**
 * The client assets in a temporary directory, so no other test process's dist/ is touched: the run's
 * shared build under vitest (test/support/global-build.ts), else a fresh one. Returns the directory
 * to pass as ASSETS_DIR and a function that removes a build of its own.
 */
export function buildAssets(prefix: string): { assetsDir: string; remove(): void } {
  const shared = sharedBuildDir();
  if (shared) return { assetsDir: path.join(shared, 'public'), remove: () => {} }; // the run's one build
  const outdir = mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  const build = spawnSync(process.execPath, ['scripts/build.mjs', '--outdir', outdir], { encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`build failed: ${build.stderr}`);
  return { assetsDir: path.join(outdir, 'public'), remove: () => rmSync(outdir, { recursive: true, force: true }) };
}

// Turns every CSP violation into a console error, which the context's watcher collects.
export const REPORT_CSP = `addEventListener('securitypolicyviolation', (e) => console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI));`;

export type WatchedPage = { context: BrowserContext; page: Page; problems: string[] };

/** A fresh context (own cookies and storage) and page, with JavaScript on or off, watched for problems. */
export async function openWatchedPage(browser: Browser, options: { javaScriptEnabled: boolean; locale?: string }): Promise<WatchedPage> {
  const { context, problems, watch } = await newContext(browser, options);
  await context.addInitScript(REPORT_CSP);
  const page = await context.newPage();
  watch(page);
  return { context, page, problems };
}

/**
 * The problems a scenario did not provoke on purpose. The browser logs a line for every document or
 * resource answered with an error status; `statuses` lists the ones the scenario asks for.
 */
export function unexpectedProblems(problems: string[], statuses: number[] = []): string[] {
  return problems.filter((line) => {
    const match = /^console: Failed to load resource: the server responded with a status of (\d{3}) /.exec(line);
    return !(match && statuses.includes(Number(match[1])));
  });
}

/** Fills the sign-in form the page shows and submits it, waiting until the browser lands on `to`. */
export async function submitSignIn(page: Page, email: string, password: string, to: string | RegExp | ((url: URL) => boolean)): Promise<void> {
  await page.locator('#field-identifier').fill(email);
  await page.locator('#field-password').fill(password);
  await Promise.all([page.waitForURL(to), page.locator('button[name="method"][value="password"]').click()]);
}

/** Opens /sign-in and signs in; the browser ends on the signed-in home. */
export async function signIn(page: Page, appUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${appUrl}/sign-in`);
  await submitSignIn(page, email, password, `${appUrl}/`);
}

type Catalogue = Record<string, unknown>;
/** A text of the `common` catalogue, e.g. `catalogue('fr', 'notFound.title')`. */
export function catalogueText(lng: string, key: string, params: Record<string, string> = {}): string {
  const catalogue = JSON.parse(readFileSync(path.resolve('locales', lng, 'common.json'), 'utf8')) as Catalogue;
  let value: unknown = catalogue;
  for (const part of key.split('.')) value = (value as Catalogue | undefined)?.[part];
  if (typeof value !== 'string') throw new Error(`no text ${lng}:${key}`);
  return value.replace(/\{\{(\w+)\}\}/g, (_all, name: string) => params[name] ?? `{{${name}}}`);
}
