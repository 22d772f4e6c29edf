import { chromium, type Browser, type BrowserContext, type ConsoleMessage, type Page } from 'playwright';

// Debian's Chromium only: never a downloaded browser.
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
];

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
}

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
