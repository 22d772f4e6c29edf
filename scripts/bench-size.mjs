// `node scripts/bench-size.mjs [--check]` after `npm run build`: starts the built app (with the
// embedded identity service and backend when they are there) on free ports, fetches a list of
// pages and prints the gzip bytes of each page's HTML, CSS and JS (every stylesheet and script the
// page references, and its inline scripts). A second app with One Tap configured measures the pages
// that then load the One Tap island too (Google's own script, which the island fetches later, is not ours and not counted).
// With --check it exits 1 when a page is over budget.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { SIZE_BUDGETS } from './budgets.ts';
import { startNode, stopAll, waitFor } from './child-processes.ts';
import { freePort } from './ory/process.ts';
import { FIRST_PAINT_FILE } from '../server/assets.ts';

/** The gzip budgets (scripts/budgets.ts holds every bench's budgets). */
export const BUDGETS = SIZE_BUDGETS;

/** Pages to measure; `stack` ones need the identity service. `follow: false`: measure the answer as is. */
const PAGES = [
  { path: '/404' },
  { path: '/__test/kit' },
  { path: '/sign-in', stack: true },
  { path: '/sign-up', stack: true },
  { path: '/forgot-password', stack: true },
  { path: '/sign-up/verification', stack: true },
  { path: '/sign-up/resend-verification-email', stack: true },
  { path: '/profile-settings', stack: true, follow: false },
  // The mobile gateway's callback page: the shared bundle plus the app-bridge island (decision 140).
  { path: '/authentication/gateway/callback?code=bench-code&state=bench-state' },
];

/** The same app with One Tap on (decision 120): its island is loaded where its form is, on these pages. */
const ONE_TAP = {
  label: ' (One Tap)',
  env: { GOOGLE_CLIENT_ID: 'bench-size-one-tap', GOOGLE_GSI_SCRIPT_URL: 'https://accounts.google.com/gsi/client' },
  pages: [
    { path: '/sign-in', stack: true },
    { path: '/sign-up', stack: true },
  ],
};

/**
 * The same app with analytics configured and consent given (decision 170): pages then load the analytics
 * island too (the tag manager's own script is not ours and not counted). Unknown location + CONSENT_DEFAULT
 * allow stands for a visitor who accepted or is not asked.
 */
const CONSENT = {
  // With One Tap on too: the heaviest sign-in page, both optional islands loaded.
  label: ' (One Tap, consent given)',
  env: {
    ...ONE_TAP.env,
    GTM_ID: 'GTM-BENCH',
    GTM_SCRIPT_URL: 'http://127.0.0.1:9/gtm.js',
    LOG_SERVICE_URL: 'http://127.0.0.1:9/log',
    CONSENT_DEFAULT: 'allow',
    USER_LOCATION_LOOKUP: 'false',
  },
  pages: [
    { path: '/sign-in', stack: true },
    { path: '/sign-up', stack: true },
    { path: '/forgot-password', stack: true },
  ],
};

const check = process.argv.includes('--check');
const children = [];
let dataDir = '';

function stopProduct() {
  stopAll(children);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}

const gz = (text) => gzipSync(text).length;

/** Fetches a page the way a browser would on a first visit: same-origin redirects followed, cookies kept. */
async function fetchPage(base, page) {
  const cookies = new Map();
  let url = new URL(page.path, base);
  for (let hop = 0; hop < 6; hop += 1) {
    const response = await fetch(url, {
      redirect: 'manual',
      headers: { Accept: 'text/html', 'Accept-Language': 'en', Cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    const location = response.headers.get('location');
    const next = location ? new URL(location, url) : null;
    if (response.status >= 300 && response.status < 400 && next && page.follow !== false && next.origin === url.origin) {
      await response.arrayBuffer();
      url = next;
      continue;
    }
    return { status: response.status, html: await response.text(), finalPath: url.pathname };
  }
  throw new Error(`${page.path}: too many redirects`);
}

function referenced(html) {
  const css = [...html.matchAll(/<link\b[^>]*rel="stylesheet"[^>]*>/g)].map((m) => /href="([^"]+)"/.exec(m[0])?.[1]).filter(Boolean);
  const js = [
    ...[...html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1]),
    ...[...html.matchAll(/<link\b[^>]*rel="modulepreload"[^>]*>/g)].map((m) => /href="([^"]+)"/.exec(m[0])?.[1]).filter(Boolean),
  ];
  // Inline scripts (the first-paint script, decision 210; the consent default) are JavaScript the page runs
  // too: each one gzipped on its own, they count towards the JS budgets with the files. JSON data does not run.
  const inline = [...html.matchAll(/<script\b([^>]*)>([^<]+)<\/script>/g)].filter((m) => !/\bsrc=|type="application\/(ld\+)?json"/.test(m[1])).map((m) => m[2]);
  return { css: [...new Set(css)], js: [...new Set(js)], inline };
}

const assetSizes = new Map();
async function assetSize(base, href) {
  const url = new URL(href, base).href;
  if (!assetSizes.has(url)) {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${href}: HTTP ${response.status}`);
    assetSizes.set(url, gz(Buffer.from(await response.arrayBuffer())));
  }
  return assetSizes.get(url);
}

async function main() {
  if (!existsSync('dist/server.js') || !existsSync('dist/public/manifest.json')) {
    console.error('bench-size: dist/ is missing: run "npm run build" first');
    return 1;
  }
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-size-'));
  const [appPort, oneTapPort, consentPort, idPublicPort, idAdminPort, backendPort] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  const appUrl = `http://127.0.0.1:${appPort}`;
  const idPublic = `http://127.0.0.1:${idPublicPort}`;
  const idAdmin = `http://127.0.0.1:${idAdminPort}`;
  const backendUrl = `http://127.0.0.1:${backendPort}`;

  // The stand-ins, started as scripts/start.ts does, on free ports with a throw-away data dir.
  let stack = existsSync('embedded/identity/main.ts') && existsSync('embedded/backend/main.ts');
  if (stack) {
    const identity = startNode(children, 'identity', ['embedded/identity/main.ts'], {
      APP_URL: appUrl,
      IDENTITY_HOST: '127.0.0.1',
      IDENTITY_PUBLIC_PORT: String(idPublicPort),
      IDENTITY_ADMIN_PORT: String(idAdminPort),
      IDENTITY_PUBLIC_URL: idPublic,
      IDENTITY_ADMIN_URL: idAdmin,
      IDENTITY_DATA_DIR: dataDir,
    });
    const backend = startNode(children, 'backend', ['embedded/backend/main.ts'], {
      BACKEND_HOST: '127.0.0.1',
      BACKEND_PORT: String(backendPort),
      BACKEND_DATA_DIR: path.join(dataDir, 'backend'),
      IDENTITY_PUBLIC_URL: idPublic,
      IDENTITY_ADMIN_URL: idAdmin,
    });
    const failed = (await Promise.allSettled([waitFor(idPublic, identity), waitFor(backendUrl, backend)])).find((result) => result.status === 'rejected');
    if (failed) {
      console.error(`bench-size: a stand-in did not start; pages needing it are skipped\n${failed.reason.message.split('\n').slice(-3).join('\n')}`);
      stack = false;
    }
  } else {
    console.error('bench-size: embedded stand-ins not found; pages needing them are skipped');
  }

  const appEnv = (port, url, extra = {}) => ({
    NODE_ENV: 'development',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: url,
    KRATOS_PUBLIC_URL: idPublic,
    KRATOS_ADMIN_URL: idAdmin,
    BACKEND_URL: backendUrl,
    ENABLE_TEST_ROUTES: 'true',
    LOG_LEVEL: 'silent',
    ...extra,
  });
  const oneTapUrl = `http://127.0.0.1:${oneTapPort}`;
  const app = startNode(children, 'app', ['dist/server.js'], appEnv(appPort, appUrl));
  const oneTapApp = startNode(children, 'app (One Tap)', ['dist/server.js'], appEnv(oneTapPort, oneTapUrl, ONE_TAP.env));
  const consentUrl = `http://127.0.0.1:${consentPort}`;
  const consentApp = startNode(children, 'app (consent given)', ['dist/server.js'], appEnv(consentPort, consentUrl, CONSENT.env));
  for (const [child, url] of [
    [app, appUrl],
    [oneTapApp, oneTapUrl],
    [consentApp, consentUrl],
  ]) {
    try {
      await waitFor(`${url}/healthz`, child);
    } catch (error) {
      console.error(`bench-size: the ${child.label} did not start: ${error.message}`);
      return 1;
    }
  }

  const rows = [];
  const failures = [];
  const measured = [
    ...PAGES.map((page) => ({ page, base: appUrl, label: '' })),
    ...ONE_TAP.pages.map((page) => ({ page, base: oneTapUrl, label: ONE_TAP.label })),
    ...CONSENT.pages.map((page) => ({ page, base: consentUrl, label: CONSENT.label })),
  ];
  for (const { page, base, label } of measured) {
    const name = `${page.path}${label}`;
    if (page.stack && !stack) {
      rows.push({ page: name, status: 'skipped', note: 'needs the identity stand-in' });
      continue;
    }
    const { status, html, finalPath } = await fetchPage(base, page);
    const refs = referenced(html);
    const css = (await Promise.all(refs.css.map((href) => assetSize(base, href)))).reduce((a, b) => a + b, 0);
    const js = (await Promise.all(refs.js.map((href) => assetSize(base, href)))).reduce((a, b) => a + b, 0);
    const inline = refs.inline.reduce((a, b) => a + gz(b), 0);
    const scripts = refs.js.length > 1 ? ` (${refs.js.length} scripts)` : '';
    const note = `${finalPath !== page.path ? `→ ${finalPath}` : ''}${scripts}`.trim();
    const row = { page: name, status: String(status), html: gz(html), css, js, inline, note };
    if (status >= 500) failures.push(`${name}: HTTP ${status}`);
    // A One Tap page that does not load the island would measure nothing new: that is a failure too.
    if (label === ONE_TAP.label && !refs.js.some((href) => /\/one-tap-[\w]+\.js$/.test(href))) failures.push(`${name}: the One Tap island is not loaded`);
    if (label === CONSENT.label && !refs.js.some((href) => /\/analytics-[\w]+\.js$/.test(href))) failures.push(`${name}: the analytics island is not loaded`);
    const jsBudget = page.path === '/sign-in' ? BUDGETS.signInJs : BUDGETS.js;
    if (js + inline > jsBudget) failures.push(`${name}: JS ${js} B + ${inline} B inline gzip > ${jsBudget} B`);
    if (css > BUDGETS.css) failures.push(`${name}: CSS ${css} B gzip > ${BUDGETS.css} B`);
    if (row.html > BUDGETS.html) failures.push(`${name}: HTML ${row.html} B gzip > ${BUDGETS.html} B`);
    rows.push(row);
  }
  // Every page loads the same single bundle: when sign-in itself could not be measured, hold the
  // bundle the other pages load, with the One Tap island sign-in adds when configured, to sign-in's
  // budget, so the 6 KB bar is still enforced.
  if (!rows.some((row) => row.page.startsWith('/sign-in') && row.js !== undefined)) {
    const manifest = JSON.parse(readFileSync('dist/public/manifest.json', 'utf8'));
    const island = manifest['one-tap.js'] ? await assetSize(appUrl, manifest['one-tap.js']) : 0;
    const largest = Math.max(0, ...rows.map((row) => row.js ?? 0)) + island;
    if (largest > BUDGETS.signInJs) failures.push(`shared bundle and One Tap island: JS ${largest} B gzip > sign-in budget ${BUDGETS.signInJs} B`);
  }

  // The app-bridge island is loaded only by the callback page: held to its own budget too.
  const builtManifest = JSON.parse(readFileSync('dist/public/manifest.json', 'utf8'));
  const bridge = builtManifest['app-bridge.js'] ? await assetSize(appUrl, builtManifest['app-bridge.js']) : 0;
  if (bridge > BUDGETS.appBridgeJs) failures.push(`app-bridge island: JS ${bridge} B gzip > ${BUDGETS.appBridgeJs} B`);
  // The cookie banner island too (decision 170): at most 1 KB on top of any page that shows the banner.
  const consentBanner = builtManifest['consent-banner.js'] ? await assetSize(appUrl, builtManifest['consent-banner.js']) : 0;
  if (consentBanner > BUDGETS.consentBannerJs) failures.push(`consent-banner island: JS ${consentBanner} B gzip > ${BUDGETS.consentBannerJs} B`);
  // The live-session socket island (decision 160): at most 1 KB. The most a signed-in page loads is the
  // profile page's: the shared bundle, its island bundle (avatar, tooltip, dialogs, socket: decision 220),
  // the analytics and cookie banner islands, within 10 KB.
  const sizeOf = async (name) => (builtManifest[name] ? await assetSize(appUrl, builtManifest[name]) : 0);
  const socketIsland = await sizeOf('socket.js');
  if (!builtManifest['socket.js']) failures.push('socket island: not built');
  if (socketIsland > BUDGETS.socketJs) failures.push(`socket island: JS ${socketIsland} B gzip > ${BUDGETS.socketJs} B`);
  if (!builtManifest['profile.js']) failures.push('profile island bundle: not built');
  const firstPaint = gz(readFileSync(path.join('dist/public', FIRST_PAINT_FILE), 'utf8'));
  const signedInJs = (await sizeOf('main.js')) + (await sizeOf('profile.js')) + (await sizeOf('analytics.js')) + consentBanner + firstPaint;
  if (signedInJs > BUDGETS.js)
    failures.push(
      `signed-in page (shared bundle, profile island bundle, analytics and banner islands, head script): JS ${signedInJs} B gzip > ${BUDGETS.js} B`,
    );
  console.log(`socket island ${socketIsland} B gzip; a signed-in page's scripts at most ${signedInJs} B gzip`);

  const cell = (value, width) => String(value ?? '-').padStart(width);
  console.log(`${'page'.padEnd(36)}${cell('status', 8)}${cell('HTML', 8)}${cell('CSS', 8)}${cell('JS', 8)}${cell('inline', 8)}  (gzip bytes)`);
  for (const row of rows) {
    console.log(
      `${row.page.padEnd(36)}${cell(row.status, 8)}${cell(row.html, 8)}${cell(row.css, 8)}${cell(row.js, 8)}${cell(row.inline, 8)}  ${row.note ?? ''}`,
    );
  }
  console.log(
    `budgets: JS (files and inline scripts) ≤ ${BUDGETS.signInJs} B on /sign-in (One Tap island, or the analytics island once consent is given, included), ≤ ${BUDGETS.js} B elsewhere; consent banner island ≤ ${BUDGETS.consentBannerJs} B; CSS ≤ ${BUDGETS.css} B; HTML ≤ ${BUDGETS.html} B`,
  );
  if (failures.length > 0) {
    console.log(`over budget or failing:\n  ${failures.join('\n  ')}`);
    return check ? 1 : 0;
  }
  if (check) console.log('size check passed');
  return 0;
}

let code = 1;
try {
  code = await main();
} catch (error) {
  console.error(`bench-size: ${error instanceof Error ? error.message : error}`);
} finally {
  stopProduct();
}
process.exit(code);
