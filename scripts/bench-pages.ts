// `npm run bench:pages` (after `npm run build`): every guest screen and /profile-settings, each visited
// cold in Debian's Chromium the way a low-end phone on slow 4G would (issue #17's browser bar):
// 390×844 mobile viewport, CPU throttled 6× (Emulation.setCPUThrottlingRate), slow 4G (150 ms RTT,
// 1.6 Mbps down, 750 Kbps up: Network.emulateNetworkConditions), a fresh browser context per run (empty
// cache, no open connection, no cookie but the signed-in one /profile-settings needs).
//
// Per screen and run: "interactive" is the time from the document request's start until the page's
// main island answers: a probe in the page (PROBE below) clicks the password toggle until the input's
// type changes, or, on a screen with no password, picks another theme in the theme switcher until the
// page's theme follows (client/main.ts mounts every island of the bundle in one go, so the theme
// switcher answers when the form island does). Nothing in client/islands marks readiness, so the
// probe tries every 10 ms; no fixed sleep. Blocking time sums the long tasks' time over 50 ms (PerformanceObserver 'longtask') from the
// document's start until the network is idle; requests and bytes (encoded, headers included,
// redirects too) come from the DevTools protocol's Network events. Medians and ranges are printed; the
// exit status is 1 when a screen is over PAGE_BUDGETS (scripts/budgets.ts).
//
// The app is the BUILT one (dist/server.js, NODE_ENV=production) on free ports with the embedded
// identity service and backend. Options: --runs=<n> (7), --only=<text> (screens whose name has it),
// --dist=<dir> (dist), --json=<file> (every run's figures).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext } from 'playwright';
import { launchBrowser } from '../test/support/chromium.ts';
import { freePort } from './ory/process.ts';
import { PAGE_BUDGETS } from './budgets.ts';
import { blockingTime, formatSpread, overBudget, spread, type Visit } from './page-figures.ts';

const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [name, ...value] = arg.replace(/^--/, '').split('=');
    return [name, value.join('=') || 'true'];
  }),
);
const RUNS = Number(args.runs ?? 7);
const DIST = path.resolve(args.dist ?? 'dist');
const PASSWORD = 'Violet-Harbour-Quartz-93';
const ISLAND_TIMEOUT_MS = 5_000;

/** The phone: slow 4G as Lighthouse names it, and a CPU six times slower than this machine's. */
export const THROTTLING = { cpuRate: 6, latencyMs: 150, downloadBps: (1.6 * 1024 * 1024) / 8, uploadBps: (750 * 1024) / 8 };
export const VIEWPORT = { width: 390, height: 844 };

/** The screens: the bare address a first visit asks for. `app`: which app answers (the consent one shows the cookie banner). */
type Screen = { name: string; path: string; signedIn?: boolean; app?: 'consent' };
const SCREENS: Screen[] = [
  { name: '/sign-in', path: '/sign-in' },
  { name: '/sign-up', path: '/sign-up' },
  { name: '/forgot-password', path: '/forgot-password' },
  { name: '/sign-up/verification', path: '/sign-up/verification' },
  { name: '/sign-up/resend-verification-email', path: '/sign-up/resend-verification-email' },
  { name: '/sign-in (cookie banner)', path: '/sign-in', app: 'consent' },
  { name: '/profile-settings (signed in)', path: '/profile-settings', signedIn: true },
];

/**
 * Runs in every document before its own scripts. Polls the main island every 10 ms and reports the
 * moment it answers through window.__benchReady; keeps the long tasks for blocking time.
 */
const PROBE = `(() => {
  const longTasks = [];
  try {
    new PerformanceObserver((list) => { for (const entry of list.getEntries()) longTasks.push(entry.duration); }).observe({ type: 'longtask', buffered: true });
  } catch {}
  const state = { longTasks, probe: undefined };
  Object.defineProperty(window, '__bench', { value: state });
  const toggleWorks = (toggle) => {
    const input = document.getElementById(toggle.getAttribute('aria-controls') || '');
    if (!input || toggle.hidden) return false;
    const before = input.type;
    toggle.click();
    if (input.type === before) return false;
    toggle.click();
    return true;
  };
  const themeAnswers = (switcher) => {
    if (switcher.hidden) return false;
    const before = document.documentElement.dataset.theme;
    const checked = switcher.querySelector('input:checked');
    const other = switcher.querySelector('input[value="' + (before === 'dark' ? 'light' : 'dark') + '"]');
    if (!other) return false;
    other.click();
    const answered = document.documentElement.dataset.theme !== before;
    if (checked) checked.click();
    return answered;
  };
  const timer = setInterval(() => {
    const toggle = document.querySelector('[data-password-toggle]');
    const switcher = document.querySelector('[data-island="theme"]');
    state.probe = toggle ? 'password toggle' : switcher ? 'theme switcher' : 'none';
    const works = toggle ? toggleWorks(toggle) : switcher ? themeAnswers(switcher) : false;
    if (works) {
      clearInterval(timer);
      window.__benchReady(performance.timeOrigin + performance.now(), state.probe);
    }
  }, 10);
})();`;

const children: ChildProcess[] = [];
let dataDir = '';

function start(label: string, file: string, env: Record<string, string>): ChildProcess & { lastError(): string } {
  const child = spawn(process.execPath, [file], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  children.push(child);
  return Object.assign(child, { lastError: () => `${label}: ${stderr.trim()}` });
}

/** Polls until url answers (2xx when `ok`), or the process dies, or time runs out. */
async function waitFor(url: string, child: ChildProcess & { lastError(): string }, ok = false, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline && child.exitCode === null) {
    try {
      const response = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(1000) });
      await response.arrayBuffer();
      if (response.ok || !ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  throw new Error(`${url} did not answer\n${child.lastError()}`);
}

/** The stand-ins and two apps (the second one shows the cookie banner: analytics configured, consent asked). */
async function startProduct(): Promise<{ appUrl: string; consentUrl: string; adminUrl: string }> {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-pages-'));
  const [appPort, consentPort, publicPort, adminPort, backendPort] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
  const appUrl = `http://127.0.0.1:${appPort}`;
  const consentUrl = `http://127.0.0.1:${consentPort}`;
  const publicUrl = `http://127.0.0.1:${publicPort}`;
  const adminUrl = `http://127.0.0.1:${adminPort}`;
  const backendUrl = `http://127.0.0.1:${backendPort}`;
  const identity = start('identity', 'embedded/identity/main.ts', {
    APP_URL: appUrl,
    IDENTITY_HOST: '127.0.0.1',
    IDENTITY_PUBLIC_PORT: String(publicPort),
    IDENTITY_ADMIN_PORT: String(adminPort),
    IDENTITY_PUBLIC_URL: publicUrl,
    IDENTITY_ADMIN_URL: adminUrl,
    IDENTITY_DATA_DIR: dataDir,
  });
  const backend = start('backend', 'embedded/backend/main.ts', {
    BACKEND_HOST: '127.0.0.1',
    BACKEND_PORT: String(backendPort),
    BACKEND_DATA_DIR: path.join(dataDir, 'backend'),
    IDENTITY_PUBLIC_URL: publicUrl,
    IDENTITY_ADMIN_URL: adminUrl,
  });
  await Promise.all([waitFor(publicUrl, identity), waitFor(backendUrl, backend)]);
  const appEnv = (port: number, url: string, extra: Record<string, string> = {}) => ({
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: url,
    ASSETS_DIR: path.join(DIST, 'public'),
    KRATOS_PUBLIC_URL: publicUrl,
    KRATOS_ADMIN_URL: adminUrl,
    BACKEND_URL: backendUrl,
    SESSION_SECRET: 'bench-pages-only-secret-0123456789abcdef0123',
    LOG_LEVEL: 'silent',
    ...extra,
  });
  const app = start('app', path.join(DIST, 'server.js'), appEnv(appPort, appUrl));
  // Analytics configured, consent asked, nobody's location known: the banner shows on every page.
  const consent = start(
    'app (cookie banner)',
    path.join(DIST, 'server.js'),
    appEnv(consentPort, consentUrl, {
      GTM_ID: 'GTM-BENCH',
      GTM_SCRIPT_URL: 'http://127.0.0.1:9/gtm.js',
      LOG_SERVICE_URL: 'http://127.0.0.1:9/log',
      CONSENT_DEFAULT: 'ask',
      USER_LOCATION_LOOKUP: 'false',
    }),
  );
  await Promise.all([waitFor(`${appUrl}/readyz`, app, true), waitFor(`${consentUrl}/readyz`, consent, true)]);
  return { appUrl, consentUrl, adminUrl };
}

/** A verified identity through the admin API, signed in once through the page; its cookies serve every signed-in run. */
async function signedInState(browser: Browser, appUrl: string, adminUrl: string): Promise<Awaited<ReturnType<BrowserContext['storageState']>>> {
  const email = `bench-pages-${Date.now()}@example.com`;
  const response = await fetch(`${adminUrl}/admin/identities`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({
      schema_id: 'default',
      traits: { email, name: 'Ada' },
      credentials: { password: { config: { password: PASSWORD } } },
      verifiable_addresses: [{ value: email, verified: true, via: 'email', status: 'completed' }],
    }),
  });
  if (response.status !== 201) throw new Error(`creating the signed-in identity: ${response.status} ${await response.text()}`);
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${appUrl}/sign-in`);
  await page.locator('#field-identifier').fill(email);
  await page.locator('#field-password').fill(PASSWORD);
  await Promise.all([page.waitForURL((url) => !url.pathname.startsWith('/sign-in')), page.locator('button[name="method"][value="password"]').click()]);
  const state = await context.storageState();
  await context.close();
  return state;
}

type Run = Visit & { probe?: string; status?: number; finalPath?: string };

/** One cold visit under throttling. */
async function visit(browser: Browser, url: string, storageState?: Awaited<ReturnType<BrowserContext['storageState']>>): Promise<Run> {
  const context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 3, isMobile: true, hasTouch: true, locale: 'en-US', storageState });
  try {
    let resolveReady: (value: { at: number; probe: string }) => void = () => {};
    const ready = new Promise<{ at: number; probe: string }>((resolve) => (resolveReady = resolve));
    await context.exposeFunction('__benchReady', (at: number, probe: string) => resolveReady({ at, probe }));
    await context.addInitScript(PROBE);
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    let requests = 0;
    let bytes = 0;
    let documentStart: number | undefined;
    cdp.on('Network.requestWillBeSent', (event) => {
      if (event.request.url.startsWith('data:')) return;
      requests += 1;
      if (args.verbose)
        console.log(
          `  ${event.type} ${event.request.url.replace(/^https?:\/\/[^/]+/, '')}${event.redirectResponse ? ` (after ${event.redirectResponse.status})` : ''}`,
        );
      if (event.redirectResponse) bytes += event.redirectResponse.encodedDataLength;
      if (documentStart === undefined && event.type === 'Document') documentStart = event.wallTime * 1000;
    });
    cdp.on('Network.loadingFinished', (event) => (bytes += event.encodedDataLength));
    await cdp.send('Network.enable');
    await cdp.send('Network.clearBrowserCache');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: THROTTLING.latencyMs,
      downloadThroughput: THROTTLING.downloadBps,
      uploadThroughput: THROTTLING.uploadBps,
    });
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: THROTTLING.cpuRate });
    const response = await page.goto(url, { waitUntil: 'load' });
    await page.waitForLoadState('networkidle');
    // The island runs before the load event; a deadline, not a wait, for the page where it never answers.
    const answered = await Promise.race([ready, new Promise<undefined>((resolve) => setTimeout(resolve, ISLAND_TIMEOUT_MS))]);
    const { longTasks, probe } = await page.evaluate(() => (window as unknown as { __bench: { longTasks: number[]; probe?: string } }).__bench);
    return {
      interactiveMs: answered && documentStart !== undefined ? answered.at - documentStart : undefined,
      blockingMs: blockingTime(longTasks),
      requests,
      bytes,
      probe: answered?.probe ?? probe,
      status: response?.status(),
      finalPath: new URL(page.url()).pathname + new URL(page.url()).search.replace(/=[^&]+/g, '=…'),
    };
  } finally {
    await context.close();
  }
}

async function main(): Promise<number> {
  if (!existsSync(path.join(DIST, 'server.js')) || !existsSync(path.join(DIST, 'public', 'manifest.json'))) {
    console.error(`bench-pages: ${DIST} has no build: run "npm run build" first`);
    return 1;
  }
  const screens = SCREENS.filter((screen) => !args.only || screen.name.includes(args.only));
  const { appUrl, consentUrl, adminUrl } = await startProduct();
  const browser = await launchBrowser();
  try {
    const signedIn = screens.some((screen) => screen.signedIn) ? await signedInState(browser, appUrl, adminUrl) : undefined;
    console.log(
      `cold visits in ${RUNS} runs per screen: ${VIEWPORT.width}×${VIEWPORT.height}, CPU ${THROTTLING.cpuRate}× slower, ${THROTTLING.latencyMs} ms RTT, 1.6 Mbps down, 750 Kbps up (load: ${os
        .loadavg()
        .map((load) => load.toFixed(2))
        .join(' ')})`,
    );
    const all: Record<string, Run[]> = {};
    const failures: string[] = [];
    for (const screen of screens) {
      const base = screen.app === 'consent' ? consentUrl : appUrl;
      const runs: Run[] = [];
      for (let run = 0; run < RUNS; run += 1) runs.push(await visit(browser, `${base}${screen.path}`, screen.signedIn ? signedIn : undefined));
      all[screen.name] = runs;
      const answered = runs.filter((run) => run.interactiveMs !== undefined).map((run) => run.interactiveMs!);
      const interactive = answered.length ? formatSpread(spread(answered), 'ms') : 'never';
      const first = runs[0]!;
      console.log(
        `${screen.name}: interactive ${interactive} [${first.probe}], blocking ${formatSpread(
          spread(runs.map((run) => run.blockingMs)),
          'ms',
        )}, ${formatSpread(spread(runs.map((run) => run.requests)), 'requests')}, ${formatSpread(
          spread(runs.map((run) => run.bytes / 1024)),
          'KB',
          1,
        )} (HTTP ${first.status} → ${first.finalPath})`,
      );
      for (const failure of overBudget(runs)) failures.push(`${screen.name}: ${failure}`);
    }
    if (args.json) writeFileSync(args.json, `${JSON.stringify({ runs: RUNS, load: os.loadavg(), screens: all }, null, 2)}\n`);
    console.log(
      `budgets: interactive ≤ ${PAGE_BUDGETS.interactiveMs} ms and blocking ≤ ${PAGE_BUDGETS.blockingMs} ms (medians), ≤ ${PAGE_BUDGETS.requests} requests, ≤ ${PAGE_BUDGETS.bytes / 1024} KB (every run)`,
    );
    if (failures.length) {
      console.log(`over budget:\n  ${failures.join('\n  ')}`);
      return 1;
    }
    console.log('page bench passed');
    return 0;
  } finally {
    await browser.close();
  }
}

let code = 1;
try {
  code = await main();
} catch (error) {
  console.error(`bench-pages: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
} finally {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}
process.exit(code);
