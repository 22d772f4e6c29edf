// The phone the browser benches emulate (scripts/bench-pages.ts, scripts/bench-layout.ts): slow 4G as
// Lighthouse names it (150 ms RTT, 1.6 Mbps down, 750 Kbps up), a CPU six times slower than this
// machine's, a 390×844 mobile screen. Each visit gets a fresh context: empty cache, no open connection.
import type { Browser, BrowserContext, CDPSession } from 'playwright';

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
