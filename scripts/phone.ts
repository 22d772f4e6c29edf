// The phone the browser benches emulate (scripts/bench-pages.ts, scripts/bench-layout.ts): slow 4G as
// Lighthouse names it (150 ms RTT, 1.6 Mbps down, 750 Kbps up), a CPU six times slower than this
// machine's, a 390×844 mobile screen. Each visit gets a fresh context: empty cache, no open connection.
// observeTasks/pageTasks: the long tasks and first paint the page's own clock saw, for blocking time.
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright';
import type { LongTask } from './page-figures.ts';

export const THROTTLING = { cpuRate: 6, latencyMs: 150, downloadBps: (1.6 * 1024 * 1024) / 8, uploadBps: (750 * 1024) / 8 };
export const VIEWPORT = { width: 390, height: 844 };

type StorageState = Awaited<ReturnType<BrowserContext['storageState']>>;

/** A fresh phone context (the caller closes it). */
export function phoneContext(browser: Browser, storageState?: StorageState): Promise<BrowserContext> {
  return browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 3, isMobile: true, hasTouch: true, locale: 'en-US', storageState });
}

/** Slows the page's network and CPU to the phone's; call after Network.enable, before navigating. */
export async function throttle(cdp: CDPSession): Promise<void> {
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: THROTTLING.latencyMs,
    downloadThroughput: THROTTLING.downloadBps,
    uploadThroughput: THROTTLING.uploadBps,
  });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: THROTTLING.cpuRate });
}

/** What the page's own clock saw: its long tasks and its first contentful paint (ms from its time origin). */
export type PageTasks = { longTasks: LongTask[]; firstPaint?: number };

/** Runs before the page's own scripts (addInitScript): keeps the long tasks and the first contentful paint. */
const OBSERVE_TASKS = `(() => {
  const state = { longTasks: [], firstPaint: undefined };
  Object.defineProperty(window, '__pageTasks', { value: state });
  try {
    new PerformanceObserver((list) => { for (const entry of list.getEntries()) state.longTasks.push({ start: entry.startTime, duration: entry.duration }); }).observe({ type: 'longtask', buffered: true });
    new PerformanceObserver((list) => { for (const entry of list.getEntries()) if (entry.name === 'first-contentful-paint') state.firstPaint = entry.startTime; }).observe({ type: 'paint', buffered: true });
  } catch {}
})();`;

/** Has every page of the context keep its long tasks and first paint, for pageTasks(). */
export async function observeTasks(context: BrowserContext): Promise<void> {
  await context.addInitScript(OBSERVE_TASKS);
}

/** The long tasks and first paint the page has seen so far (observeTasks must have been set up). */
export function pageTasks(page: Page): Promise<PageTasks> {
  return page.evaluate(() => (window as unknown as { __pageTasks: PageTasks }).__pageTasks);
}
