// Every performance budget the bench scripts enforce, in one place (issue #17 bars).
// bench-size.mjs holds the built pages' gzip sizes to SIZE_BUDGETS; bench-pages.ts holds a throttled
// Chromium's figures to PAGE_BUDGETS; bench-lighthouse.ts holds Lighthouse's to LIGHTHOUSE_BUDGETS.

const KB = 1024;

/** Budgets in gzip bytes. JS: a sign-in-like page 6 KB, any page 10 KB (issue 2). */
/** appBridgeJs: the mobile gateway's web view bridge island on its own (decision 140). */
/** consentBannerJs: the cookie banner island on its own (decision 170). */
/** socketJs: the live-session socket island on its own (decision 160); signed-in pages load it on top of the rest. */
export const SIZE_BUDGETS = { signInJs: 6 * KB, js: 10 * KB, css: 20 * KB, html: 20 * KB, appBridgeJs: KB / 2, consentBannerJs: KB, socketJs: KB };

/**
 * A cold first visit in Chromium at 6× CPU and slow 4G (issue #17): medians for the times, every run for
 * the counts. interactiveMs: navigation start until the page's main island answers (the password toggle
 * toggles); blockingMs: long tasks' time over 50 ms; requests and bytes (encoded, headers included) on the wire.
 */
export const PAGE_BUDGETS = { interactiveMs: 900, blockingMs: 10, requests: 4, bytes: 15 * KB };

/**
 * A signed-in page also opens its live session (its token, the socket: decision 160), links the full
 * stylesheet and may show the avatar, within the 10 KB of JS any page may load: more requests and bytes,
 * the same times. Its islands come as one file (decision 220): the profile page made 5 requests (8 before).
 */
export const SIGNED_IN_PAGE_BUDGETS = { ...PAGE_BUDGETS, requests: 6, bytes: 24 * KB };

/**
 * What `npm test` holds the page bench and Lighthouse to. On the wire (requests, bytes, the redirect and
 * render-blocking audits) a cold visit is the same on any machine; times depend on the machine and its
 * load: quiet runs meet issue #17's time bars, but inside `npm test` (last, yet on a machine the suites
 * before it left at load 3.6–4.5) the profile page's blocking median reached 21–30 ms (the README's "In the
 * browser"). So CI prints the time budgets' misses and fails a screen only past pageTimeCeilings: far
 * enough above every CI run's medians so far (interactive 365–870 ms, blocking 0–30 ms) not to fail on a
 * busy machine, below what the pages cost before issue #17 (`/sign-in` 1,499 ms and 82 ms), so such a
 * regression fails. Lighthouse's score must reach ciPerformance there.
 */
export const CI_GATES = { pages: 'ci' as const, pageTimeCeilings: { interactiveMs: 1400, blockingMs: 60 }, ciPerformance: 90 };

/**
 * Lighthouse mobile (its simulated throttling) on every guest screen; these audits must pass too.
 * Lighthouse 13 replaced the render-blocking-resources audit with the render-blocking-insight one.
 */
export const LIGHTHOUSE_BUDGETS = { performance: 100, audits: ['redirects', 'render-blocking-insight'] };

/**
 * The server bars of issue #17 (bench.mjs): with 10 connections and the app on one core, GET /sign-in?flow=
 * at signInRps or more (median of the rounds) with p99 ≤ signInP99Ms; GET /profile-settings?flow= at most
 * profileCpuUs of the app's CPU per request; RSS ≤ soakRssMb after the soak. 100 connections: p99 ≤ c100P99Ms
 * on /sign-in. 1,000 connections: no socket error, every answer within c1000MaxMs (the excess as 503 + Retry-After).
 */
export const SERVER_BUDGETS = { signInRps: 1_500, signInP99Ms: 20, profileCpuUs: 1_200, soakRssMb: 160, c100P99Ms: 250, c1000MaxMs: 2_000 };
