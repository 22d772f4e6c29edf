// Cookie consent decided by the server (decision 170): saved choice → location (trusted CDN header, or the
// backend's user/user-location) → CONSENT_DEFAULT; the Consent Mode default in the head; the banner's POST;
// the CSP naming the tag manager, analytics and log hosts only when configured. On both identity targets.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startBackend, type RunningBackend } from '../../../embedded/backend/index.ts';
import { Browser } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';

const ANALYTICS_ENV = {
  GTM_ID: 'GTM-TEST15',
  GTM_SCRIPT_URL: 'http://127.0.0.1:9/gtm.js',
  LOG_SERVICE_URL: 'http://127.0.0.1:9/log',
  GEO_COUNTRY_HEADER: 'x-geo-country',
  GEO_REGION_HEADER: 'x-geo-region',
};

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ env: ANALYTICS_ENV });
});
afterAll(() => stack?.close());

/** The sign-in page as a visitor from `country`/`region` with `cookie` sees it. */
async function signInPage(base: string, headers: Record<string, string> = {}, cookie?: string) {
  const browser = new Browser(base);
  if (cookie) browser.cookies.set(cookie.split('=')[0]!, cookie.split('=')[1]!);
  const first = await browser.get('/sign-in', headers);
  const page = first.status === 303 ? await browser.get(first.location!, headers) : first;
  expect(page.status).toBe(200);
  return page;
}

const consentDefault = (html: string) => {
  const match = /gtag\('consent','default',(\{[^}]*\})\)/.exec(html);
  return match ? (JSON.parse(match[1]!) as Record<string, unknown>) : undefined;
};
const hasBanner = (html: string) => html.includes('data-island="cookie-banner"');
const loadsAnalytics = (html: string) => /<script type="module" nonce="[^"]+" src="\/assets\/analytics-/.test(html);

describe('the decision', () => {
  test.each([
    ['FR', ''],
    ['GB', ''],
    ['NO', ''],
    ['US', 'CA'],
    ['US', 'California'],
    ['US', 'US-VA'],
  ])('a visitor from %s %s is asked: banner, every signal but security denied, no analytics yet', async (country, region) => {
    const page = await signInPage(stack.appUrl, { 'x-geo-country': country, ...(region ? { 'x-geo-region': region } : {}) });
    expect(hasBanner(page.text)).toBe(true);
    expect(consentDefault(page.text)).toEqual({
      ad_storage: 'denied',
      ad_user_data: 'denied',
      ad_personalization: 'denied',
      analytics_storage: 'denied',
      functionality_storage: 'denied',
      personalization_storage: 'denied',
      security_storage: 'granted',
      wait_for_update: 500,
    });
    expect(loadsAnalytics(page.text)).toBe(false);
    // The banner is a labelled region with two real buttons in a form that posts without JavaScript.
    expect(page.text).toMatch(/<section class="cookie-banner" aria-labelledby="cookie-banner-title"/);
    expect(page.text).toMatch(/<form class="cookie-banner__actions" action="\/cookie-consent" method="post">/);
    expect(page.text).toMatch(/<button value="accept" type="submit"[^>]*name="choice"/);
    expect(page.text).toMatch(/<button value="decline" type="submit"[^>]*name="choice"/);
  });

  test.each([
    ['US', 'TX'],
    ['US', 'Texas'],
    ['JP', ''],
    ['BR', ''],
  ])('a visitor from %s %s is not asked: no banner, all granted, analytics loads', async (country, region) => {
    const page = await signInPage(stack.appUrl, { 'x-geo-country': country, ...(region ? { 'x-geo-region': region } : {}) });
    expect(hasBanner(page.text)).toBe(false);
    expect(Object.values(consentDefault(page.text) ?? {}).filter((v) => v === 'granted')).toHaveLength(7);
    expect(loadsAnalytics(page.text)).toBe(true);
    expect(page.text).toContain('data-gtm-src="http://127.0.0.1:9/gtm.js?id=GTM-TEST15"');
  });

  test('the consent default comes before every other script in the head but the island bundle, which loads no tag', async () => {
    const page = await signInPage(stack.appUrl, { 'x-geo-country': 'DE' });
    const head = page.text.slice(0, page.text.indexOf('</head>'));
    // React puts an async script (the island bundle, decision 200) right after the charset and viewport, and on a guest
    // page the server its stylesheet before that (decision 235): neither sets consent nor loads a tag.
    expect(head).toMatch(
      /<head><meta charSet="utf-8"\/><meta name="viewport"[^>]*\/>(<style>[^<]*<\/style>)?<script type="module" async="" nonce="[^"]+" src="\/assets\/main-/,
    );
    const scripts = [...head.matchAll(/<script\b[^>]*>/g)].filter((m) => !m[0].includes('src="/assets/main-')).map((m) => m.index);
    expect(head.indexOf("gtag('consent','default'")).toBeGreaterThan(scripts[0]!);
    expect(head.indexOf("gtag('consent','default'")).toBeLessThan(scripts[1] ?? Infinity);
    expect(head).toMatch(/<script nonce="[^"]+">window\.dataLayer/);
  });

  test('a saved choice wins over the location, either way', async () => {
    const accepted = await signInPage(stack.appUrl, { 'x-geo-country': 'FR' }, 'cookie_banner_accept=true');
    expect(hasBanner(accepted.text)).toBe(false);
    expect(loadsAnalytics(accepted.text)).toBe(true);
    expect(consentDefault(accepted.text)?.analytics_storage).toBe('granted');
    const declined = await signInPage(stack.appUrl, { 'x-geo-country': 'US', 'x-geo-region': 'TX' }, 'cookie_banner_accept=false');
    expect(hasBanner(declined.text)).toBe(false);
    expect(loadsAnalytics(declined.text)).toBe(false);
    expect(consentDefault(declined.text)?.analytics_storage).toBe('denied');
  });

  test('an unknown location follows CONSENT_DEFAULT (ask by default)', async () => {
    const page = await signInPage(stack.appUrl, { 'x-geo-country': 'XX' });
    expect(hasBanner(page.text)).toBe(true);
    const allowing = await startStack({ env: { ...ANALYTICS_ENV, CONSENT_DEFAULT: 'allow' } });
    try {
      const other = await signInPage(allowing.appUrl);
      expect(hasBanner(other.text)).toBe(false);
      expect(loadsAnalytics(other.text)).toBe(true);
    } finally {
      await allowing.close();
    }
  });
});

describe('POST /cookie-consent', () => {
  test('accept: cookie_banner_accept=true for 360 days, back to the page (303); then no banner', async () => {
    const browser = new Browser(stack.appUrl);
    const answer = await browser.post('/cookie-consent', { choice: 'accept', return_to: '/sign-in?x=1' }, { origin: stack.appUrl });
    expect(answer.status).toBe(303);
    expect(answer.location).toBe('/sign-in?x=1');
    const cookie = answer.setCookies.find((line) => line.startsWith('cookie_banner_accept='))!;
    expect(cookie).toMatch(/^cookie_banner_accept=true; Max-Age=31104000; Path=\/; Expires=[^;]+; SameSite=Lax$/);
    const page = await browser.follow('/sign-in', 3);
    expect(hasBanner(page.text)).toBe(false);
  });

  test('decline, as the banner island asks (JSON): { accepted: false }, the cookie says false', async () => {
    const browser = new Browser(stack.appUrl);
    const answer = await browser.request('POST', '/cookie-consent', {
      form: { choice: 'decline', return_to: '/sign-in' },
      headers: { accept: 'application/json', 'sec-fetch-site': 'same-origin' },
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ redirect_to: '/sign-in', accepted: false });
    expect(browser.cookies.get('cookie_banner_accept')).toBe('false');
  });

  test('another site cannot choose for the visitor (403), a bad choice is a translated 400, and a foreign return_to goes home', async () => {
    const browser = new Browser(stack.appUrl);
    const cross = await browser.post('/cookie-consent', { choice: 'accept' }, { origin: 'https://evil.example' });
    expect(cross.status).toBe(403);
    expect(cross.setCookies.some((line) => line.startsWith('cookie_banner_accept='))).toBe(false);
    const bad = await browser.request('POST', '/cookie-consent', { form: { choice: 'maybe' }, headers: { origin: stack.appUrl, accept: 'application/json' } });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text)).toMatchObject({ code: 'validation_error', message: 'Choose “Accept all cookies” or “Essential cookies only”.' });
    const away = await browser.post('/cookie-consent', { choice: 'decline', return_to: '//evil.example/x' }, { origin: stack.appUrl });
    expect(away.location).toBe('/');
  });
});

describe('the CSP', () => {
  test('names the tag manager, GA4 and the log service only when configured', async () => {
    const page = await signInPage(stack.appUrl, { 'x-geo-country': 'FR' });
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toMatch(/script-src [^;]*http:\/\/127\.0\.0\.1:9/);
    expect(csp).toMatch(/connect-src [^;]*https:\/\/www\.google-analytics\.com/);
    const plain = await startStack();
    try {
      const other = await signInPage(plain.appUrl);
      const policy = other.headers.get('content-security-policy')!;
      expect(policy).not.toContain('127.0.0.1:9');
      expect(policy).not.toContain('google-analytics');
      expect(other.text).not.toContain("gtag('consent'");
      expect(hasBanner(other.text)).toBe(false);
      const post = await new Browser(plain.appUrl).post('/cookie-consent', { choice: 'accept' }, { origin: plain.appUrl });
      expect(post.status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});

describe('location from the backend (no CDN header configured)', () => {
  const KEY = 'consent-tests-admin-key';
  let backend: RunningBackend;
  let lookup: Stack;
  beforeAll(async () => {
    backend = await startBackend({ port: 0, database: ':memory:', adminApiKey: KEY });
    lookup = await startStack({ env: { GTM_ID: 'GTM-TEST15', GTM_SCRIPT_URL: 'http://127.0.0.1:9/gtm.js', BACKEND_URL: backend.url } });
  });
  afterAll(async () => {
    await lookup?.close();
    await backend?.close();
  });

  test('user/user-location places the visitor: US-TX is not asked, and the answer is kept for the next pages', async () => {
    const placed = await fetch(`${backend.url}/api/admin/user-location`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ip: '127.0.0.1', countryCode: 'US', regionName: 'Texas' }),
    });
    expect(placed.status).toBe(200);
    const page = await signInPage(lookup.appUrl);
    expect(hasBanner(page.text)).toBe(false);
    expect(loadsAnalytics(page.text)).toBe(true);
    const asked = backend.calls.list('user/user-location').length;
    expect(asked).toBeGreaterThanOrEqual(1);
    await signInPage(lookup.appUrl);
    expect(backend.calls.list('user/user-location').length).toBe(asked);
  });
});
