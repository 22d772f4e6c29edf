// Cookie consent and analytics in Debian's Chromium (decision 170), JavaScript on and off. The tag
// manager and the log service are local stubs at configured URLs (no internet): the test sees every
// request they get. Visitors are placed with the trusted CDN header (GEO_COUNTRY_HEADER / GEO_REGION_HEADER).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useScreenStack } from './screen-stack.ts';

type Beacon = Record<string, unknown>;
const stub = { gtmRequests: 0, failGtm: false, beacons: [] as Beacon[], url: '' };
const server = http.createServer((req, res) => {
  if (req.url?.startsWith('/gtm.js')) {
    stub.gtmRequests += 1;
    if (stub.failGtm) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/javascript' });
    return void res.end('window.gtmStubLoaded=(window.gtmStubLoaded||0)+1;window.dataLayer.push({event:"gtm-stub-loaded"});');
  }
  let body = '';
  req.on('data', (chunk) => (body += String(chunk)));
  req.on('end', () => {
    if (req.url === '/log') stub.beacons.push(JSON.parse(body) as Beacon);
    res.writeHead(204, { 'access-control-allow-origin': '*' }).end();
  });
});
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const screens = useScreenStack({
  name: 'consent-e2e',
  env: {
    GTM_ID: 'GTM-E2E15',
    // Filled in once the stub listens: read lazily by the getter below.
    get GTM_SCRIPT_URL() {
      return `${stub.url}/gtm.js`;
    },
    get LOG_SERVICE_URL() {
      return `${stub.url}/log`;
    },
    GEO_COUNTRY_HEADER: 'x-geo-country',
    GEO_REGION_HEADER: 'x-geo-region',
  },
});

async function visit(javaScript: boolean, place: Record<string, string>): Promise<Page> {
  const page = await screens.openPage(javaScript);
  await page.setExtraHTTPHeaders(place);
  await page.goto(`${screens.stack.appUrl}/sign-in`);
  return page;
}

const banner = (page: Page) => page.locator('section.cookie-banner');
const dataLayer = (page: Page) => page.evaluate(() => JSON.parse(JSON.stringify((window as unknown as { dataLayer: unknown[] }).dataLayer)) as unknown[]);
const consentCalls = async (page: Page, kind: string) =>
  (await dataLayer(page)).filter((entry): entry is Record<string, unknown> => {
    const args = entry as Record<string, unknown>;
    return args['0'] === 'consent' && args['1'] === kind;
  });
const choiceCookie = async (page: Page) => (await page.context().cookies()).find((cookie) => cookie.name === 'cookie_banner_accept');
const DAY_S = 86_400;

describe('a visitor from the EU (FR), JavaScript on', () => {
  it('sees the banner, no tag request until accept; accept: consent update all granted, the tag manager loads, the choice lasts 360 days', async () => {
    const before = stub.gtmRequests;
    const page = await visit(true, { 'x-geo-country': 'FR' });
    await expect.poll(() => banner(page).isVisible()).toBe(true);
    expect((await consentCalls(page, 'default'))[0]?.['2']).toMatchObject({ analytics_storage: 'denied', ad_storage: 'denied', security_storage: 'granted' });
    // The banner is the first thing the keyboard reaches, named by its heading.
    expect(await banner(page).getAttribute('aria-labelledby')).toBe('cookie-banner-title');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => (document.activeElement as HTMLButtonElement | null)?.value)).toBe('accept');
    expect(stub.gtmRequests).toBe(before);
    await page.evaluate(() => ((window as unknown as { samePage: boolean }).samePage = true));
    await page.keyboard.press('Enter');
    await expect.poll(() => banner(page).count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { samePage?: boolean }).samePage)).toBe(true); // no reload
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H1'); // focus not lost with the banner
    const update = (await consentCalls(page, 'update'))[0]?.['2'] as Record<string, string>;
    expect(Object.values(update)).toEqual(Array(7).fill('granted'));
    await expect.poll(() => page.evaluate(() => (window as unknown as { gtmStubLoaded?: number }).gtmStubLoaded)).toBe(1);
    expect(stub.gtmRequests).toBe(before + 1);
    const cookie = await choiceCookie(page);
    expect(cookie?.value).toBe('true');
    expect(Math.round((cookie!.expires - Date.now() / 1000) / DAY_S)).toBe(360);
    // The choice persists: the next page has no banner and grants at once.
    await page.reload();
    expect(await banner(page).count()).toBe(0);
    expect((await consentCalls(page, 'default'))[0]?.['2']).toMatchObject({ analytics_storage: 'granted', ad_user_data: 'granted' });
    await expect.poll(() => page.evaluate(() => (window as unknown as { gtmStubLoaded?: number }).gtmStubLoaded)).toBe(1);
  });

  it('decline: nothing non-essential loads, now or on the next page', async () => {
    const before = stub.gtmRequests;
    const page = await visit(true, { 'x-geo-country': 'DE' });
    const scripts: string[] = [];
    page.on('request', (request) => scripts.push(request.url()));
    await page.click('button[value="decline"]');
    await expect.poll(() => banner(page).count()).toBe(0);
    expect((await consentCalls(page, 'update'))[0]?.['2']).toMatchObject({ analytics_storage: 'denied', ad_storage: 'denied', security_storage: 'granted' });
    expect((await choiceCookie(page))?.value).toBe('false');
    await page.reload();
    expect(await banner(page).count()).toBe(0);
    expect(stub.gtmRequests).toBe(before);
    expect(scripts.filter((url) => url.includes('/assets/analytics-') || url.startsWith(stub.url))).toEqual([]);
    expect((await page.context().cookies()).map((cookie) => cookie.name)).not.toContain('anonymousUserId');
  });
});

describe('the US', () => {
  it('California gets the banner', async () => {
    const page = await visit(true, { 'x-geo-country': 'US', 'x-geo-region': 'CA' });
    await expect.poll(() => banner(page).isVisible()).toBe(true);
  });

  it('Texas gets none, with analytics on: the tag manager, anonymousUserId for 360 days, events without personal data', async () => {
    const page = await visit(true, { 'x-geo-country': 'US', 'x-geo-region': 'TX' });
    expect(await banner(page).count()).toBe(0);
    await expect.poll(() => page.evaluate(() => (window as unknown as { gtmStubLoaded?: number }).gtmStubLoaded)).toBe(1);
    const anonymous = (await page.context().cookies()).find((cookie) => cookie.name === 'anonymousUserId');
    expect(Math.round((anonymous!.expires - Date.now() / 1000) / DAY_S)).toBe(360);
    // A refused sign-in: the event carries the method, a duration and the reason code, never the address.
    const email = `nobody.${Date.now()}@example.com`;
    screens.provoke(400); // the refused sign-in
    await page.fill('#field-identifier', email);
    await page.fill('#field-password', 'Wrong-Password-123');
    await page.click('button[name="method"][value="password"]');
    await expect.poll(() => stub.beacons.some((beacon) => beacon.event === 'sign_in_failed' && beacon.anonymousUserId === anonymous!.value)).toBe(true);
    const failed = stub.beacons.find((beacon) => beacon.event === 'sign_in_failed' && beacon.anonymousUserId === anonymous!.value)!;
    expect(failed).toMatchObject({ method: 'password', reason: expect.stringMatching(/^\d+$/) });
    expect(JSON.stringify(stub.beacons)).not.toContain(email);
    const failedInDataLayer = (await dataLayer(page)).find((entry) => (entry as Record<string, unknown>).event === 'sign_in_failed');
    expect(failedInDataLayer).toMatchObject({ method: 'password' });
  });
});

describe('the user-auth event', () => {
  it('a sign-in: the method click is kept in the user_auth_event cookie, the next page sends sign_in_succeeded with its duration, then the cookie is gone', async () => {
    const account = await screens.newAccount('consent-auth-event');
    const page = await visit(true, { 'x-geo-country': 'US', 'x-geo-region': 'TX' });
    await page.fill('#field-identifier', account.email);
    await page.fill('#field-password', account.password);
    const clicked = Date.now();
    await page.click('button[name="method"][value="password"]');
    await page.waitForURL(`${screens.stack.appUrl}/`);
    await expect.poll(() => stub.beacons.some((beacon) => beacon.event === 'sign_in_succeeded')).toBe(true);
    const succeeded = stub.beacons.find((beacon) => beacon.event === 'sign_in_succeeded')!;
    expect(succeeded).toMatchObject({ method: 'password', path: '/' });
    expect(succeeded.durationMs as number).toBeGreaterThanOrEqual(0);
    expect(succeeded.durationMs as number).toBeLessThanOrEqual(Date.now() - clicked);
    expect((await page.context().cookies()).map((cookie) => cookie.name)).not.toContain('user_auth_event');
    expect(JSON.stringify(stub.beacons)).not.toContain(account.email);
    expect(JSON.stringify(await dataLayer(page))).not.toContain(account.email);
  });
});

describe('without JavaScript', () => {
  it('the banner’s buttons post the choice and come back to the page without it', async () => {
    const page = await visit(false, { 'x-geo-country': 'GB' });
    expect(await banner(page).isVisible()).toBe(true);
    await page.click('button[value="accept"]');
    await page.waitForURL(/\/sign-in\?flow=/);
    expect(await banner(page).count()).toBe(0);
    expect((await choiceCookie(page))?.value).toBe('true');

    const other = await screens.openPage(false);
    await other.setExtraHTTPHeaders({ 'x-geo-country': 'IE' });
    await other.goto(`${screens.stack.appUrl}/sign-up`);
    await other.click('button[value="decline"]');
    await other.waitForURL(/\/sign-up\?flow=/);
    expect(await banner(other).count()).toBe(0);
    expect((await other.context().cookies()).find((cookie) => cookie.name === 'cookie_banner_accept')?.value).toBe('false');
  });
});

describe('a tag manager that does not load', () => {
  it('is only logged, with reason "fail to load GTM"', async () => {
    stub.failGtm = true;
    screens.provoke(404);
    try {
      const page = await visit(true, { 'x-geo-country': 'US', 'x-geo-region': 'Texas' });
      await expect.poll(() => stub.beacons.some((beacon) => beacon.event === 'error' && beacon.reason === 'fail to load GTM')).toBe(true);
      expect(await page.locator('#sign-in-form').isVisible()).toBe(true);
    } finally {
      stub.failGtm = false;
    }
  });
});
