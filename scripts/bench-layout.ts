// `node scripts/bench-layout.ts` (after `npm run build`): what the first render of each guest screen costs
// the phone's browser in style, layout and font lookups, read from a Chromium trace of cold visits
// (scripts/phone.ts: 6× slower CPU, slow 4G). A font is looked up and shaped once per size and weight;
// on Linux each lookup is a round trip to the browser process, so they show up here as layout time
// (decision 225). Blocking time after the first paint is counted as the page bench counts it. Figures,
// not bars: medians of --runs (5) visits per screen and build.
// --against=<dir>: a second build, visited in turn with --dist (dist) in the same sitting, so the two
// share the machine's load. --only=<text>: screens whose path has it.
import path from 'node:path';
import { launchBrowser } from '../test/support/chromium.ts';
import { startProduct, type Product } from './page-stack.ts';
import type { Browser } from 'playwright';
import { observeTasks, pageTasks, phoneContext, throttle } from './phone.ts';
import { blockingTime, formatSpread, spread } from './page-figures.ts';

const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [name, ...value] = arg.replace(/^--/, '').split('=');
    return [name, value.join('=') || 'true'];
  }),
);
const RUNS = Number(args.runs ?? 5);
const SCREENS = ['/sign-in', '/sign-up', '/forgot-password', '/sign-up/verification', '/sign-up/resend-verification-email'].filter(
  (screen) => !args.only || screen.includes(args.only),
);
const CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'fonts'];

type TraceEvent = { name: string; ph: string; ts: number; dur?: number; pid: number; tid: number };
type Costs = { fontLookups: number; fontMs: number; layoutMs: number; styleMs: number; blockingMs: number };

/** Sums an event's time, counting an event nested in one of the same name (a font lookup's inner call) once. */
function outermost(events: TraceEvent[], name: string): { count: number; ms: number } {
  let count = 0;
  let us = 0;
  const endOf = new Map<string, number>();
  for (const event of events.filter((e) => e.name === name && e.ph === 'X').sort((a, b) => a.ts - b.ts)) {
    const thread = `${event.pid}:${event.tid}`;
    if (event.ts < (endOf.get(thread) ?? 0)) continue;
    endOf.set(thread, event.ts + (event.dur ?? 0));
    count += 1;
    us += event.dur ?? 0;
  }
  return { count, ms: us / 1000 };
}

async function visit(browser: Browser, url: string): Promise<Costs> {
  const context = await phoneContext(browser);
  await observeTasks(context);
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await throttle(cdp);
    await browser.startTracing(page, { categories: CATEGORIES });
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForLoadState('networkidle');
    const { traceEvents } = JSON.parse((await browser.stopTracing()).toString()) as { traceEvents: TraceEvent[] };
    const { longTasks, firstPaint } = await pageTasks(page);
    const fonts = outermost(traceEvents, 'FontCache::GetFontPlatformData');
    return {
      fontLookups: fonts.count,
      fontMs: fonts.ms,
      layoutMs: outermost(traceEvents, 'Layout').ms,
      styleMs: outermost(traceEvents, 'UpdateLayoutTree').ms,
      blockingMs: blockingTime(longTasks, firstPaint ?? 0),
    };
  } finally {
    await context.close();
  }
}

const builds = [args.dist ?? 'dist', ...(args.against ? [args.against] : [])];
const products: Product[] = [];
const browser = await launchBrowser();
try {
  for (const build of builds) products.push(await startProduct(path.resolve(build)));
  console.log(`cold visits, ${RUNS} per screen and build, builds taken in turn: ${builds.join(', ')}`);
  for (const screen of SCREENS) {
    const runs: Costs[][] = builds.map(() => []);
    for (let run = 0; run < RUNS; run += 1)
      for (const [index, product] of products.entries()) runs[index]!.push(await visit(browser, `${product.appUrl}${screen}`));
    for (const [index, build] of builds.entries()) {
      const ms = (pick: (costs: Costs) => number) => formatSpread(spread(runs[index]!.map(pick)), 'ms');
      const lookups = formatSpread(spread(runs[index]!.map((c) => c.fontLookups)), 'font lookups');
      const figures = [`${lookups} ${ms((c) => c.fontMs)}`, `layout ${ms((c) => c.layoutMs)}`, `style ${ms((c) => c.styleMs)}`];
      console.log(`${screen} (${build}): ${[...figures, `blocking ${ms((c) => c.blockingMs)}`].join(', ')}`);
    }
  }
} finally {
  await browser.close();
  for (const product of products) product.stop();
}
process.exit(0);
