// The screens no other browser test covers, in Debian's Chromium with JavaScript on and off, against
// the real stack (app + embedded identity + backend on ephemeral ports): the 404 page, the crash
// screen, the login/guest guards with return_to, the signed-in home and sign-out from it, the flow
// error page, the language switcher and the API reference. Every scenario fails on a console error or
// a CSP violation it did not provoke on purpose.
import type { Browser, Page, Response } from 'playwright';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { configureRateLimits, resetRateLimitSettings } from '../../server/security/rate-limit.ts';
import { buildAssets, catalogueText, launchBrowser, openWatchedPage, signIn, submitSignIn, unexpectedProblems, type WatchedPage } from '../support/browser.ts';
import { uniqueEmail, useIdentities } from '../support/fixtures.ts';
import { startStack, type Stack } from '../support/stack.ts';

let build: ReturnType<typeof buildAssets> | undefined;
let stack: Stack;
let browser: Browser;

beforeAll(async () => {
  build = buildAssets('screens-e2e');
  // Several sign-ins from one address in a few seconds: not what the limiter is being tested for here.
  configureRateLimits({ 'sign-in': { perIp: 1000, perEmail: 1000 } });
  stack = await startStack({ env: { ASSETS_DIR: build.assetsDir } });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
  resetRateLimitSettings();
  build?.remove();
});
const identities = useIdentities(() => stack.identity.adminUrl);

// One watched page per scenario; afterEach closes it and checks what the browser reported.
let current: WatchedPage | null = null;
/** Error statuses a scenario provokes on purpose: the browser logs one console line for each. */
let provokedStatuses: number[] = [];

async function openPage(javaScriptEnabled: boolean, cookies: { name: string; value: string }[] = []): Promise<Page> {
  current = await openWatchedPage(browser, { javaScriptEnabled });
  if (cookies.length) await current.context.addCookies(cookies.map((cookie) => ({ ...cookie, url: stack.appUrl })));
  return current.page;
}

afterEach(async () => {
  const watched = current;
  const statuses = provokedStatuses;
  current = null;
  provokedStatuses = [];
  await watched?.context.close();
  expect(unexpectedProblems(watched?.problems ?? [], statuses)).toEqual([]);
});

function must(response: Response | null): Response {
  if (!response) throw new Error('no response for the navigation');
  return response;
}

const h1 = async (page: Page) => (await page.locator('h1').innerText()).trim();
const mainText = (page: Page) => page.locator('main').innerText();
// The kit page also shows an embedded crash screen, with a heading of its own.

/**
 * A page of this app at `path`. The settings page opens its Kratos flow on arrival, so its address
 * gains `?flow=<id>`; the home has no query.
 */
function landsOn(path: string): RegExp {
  const escaped = `${stack.appUrl}${path}`.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return path === '/' ? new RegExp(`^${escaped}$`) : new RegExp(`^${escaped}(\\?flow=[\\w-]+)?$`);
}

/** The sign-in page a guard sent the browser to, and the return_to it carries. */
function expectSignInWithReturnTo(page: Page, returnTo: string): void {
  const url = new URL(page.url());
  expect(url.origin).toBe(stack.appUrl);
  expect(url.pathname).toBe('/sign-in');
  expect(url.searchParams.get('return_to')).toBe(returnTo);
}

async function newAccount(label: string): Promise<{ email: string; password: string; name: string }> {
  const password = `Screens-Phrase-${label}-2026`;
  const { email, name } = await identities.create({ email: uniqueEmail(label), password, name: `Reader ${label}` });
  return { email, password, name };
}

for (const javaScriptEnabled of [true, false]) {
  describe(`screens with JavaScript ${javaScriptEnabled ? 'on' : 'off'}`, () => {
    describe('not found', () => {
      for (const address of ['/404', '/no/such/page']) {
        for (const lng of ['en', 'fr']) {
          it(`${address} answers 404 with the ${lng} page, whose link leads home`, async () => {
            provokedStatuses = [404];
            const page = await openPage(javaScriptEnabled, lng === 'en' ? [] : [{ name: 'lng', value: lng }]);
            const response = must(await page.goto(`${stack.appUrl}${address}`));
            expect(response.status()).toBe(404);
            expect(await page.getAttribute('html', 'lang')).toBe(lng);
            expect(await h1(page)).toBe(catalogueText(lng, 'notFound.title'));
            expect(await page.title()).toContain(catalogueText(lng, 'notFound.title'));
            expect(await mainText(page)).toContain(catalogueText(lng, 'notFound.text'));
            if (lng !== 'en') expect(await mainText(page)).not.toContain(catalogueText('en', 'notFound.title'));

            // Home is for signed-in people: a guest following the link goes on to sign in and back to /.
            const home = page.getByRole('link', { name: catalogueText(lng, 'notFound.home'), exact: true });
            expect(await home.getAttribute('href')).toBe('/');
            await Promise.all([page.waitForURL(/\/sign-in\?/), home.click()]);
            expectSignInWithReturnTo(page, `${stack.appUrl}/`);
            await page.locator('#field-identifier').waitFor();
          });
        }
      }

      it('the home link of the 404 page brings a signed-in user to the signed-in home', async () => {
        provokedStatuses = [404];
        const account = await newAccount(`nf${javaScriptEnabled ? 'js' : 'nojs'}`);
        const page = await openPage(javaScriptEnabled);
        await signIn(page, stack.appUrl, account.email, account.password);
        const response = must(await page.goto(`${stack.appUrl}/missing-${Date.now()}`));
        expect(response.status()).toBe(404);
        await Promise.all([page.waitForURL(`${stack.appUrl}/`), page.getByRole('link', { name: 'Go to the home page', exact: true }).click()]);
        expect(await h1(page)).toBe(`Hello, ${account.name}`);
      });
    });

    describe('crash screen', () => {
      it('answers 500 with the apology and the request id, and Retry loads the same address again', async () => {
        provokedStatuses = [500];
        const page = await openPage(javaScriptEnabled);
        const address = `${stack.appUrl}/__test/crash?attempt=first`;
        const first = must(await page.goto(address));
        expect(first.status()).toBe(500);
        const firstId = await first.headerValue('x-request-id');
        expect(firstId).toBeTruthy();
        expect(await h1(page)).toBe('Something went wrong');
        const text = await mainText(page);
        expect(text).toContain('Sorry, we’re having some technical issues. Try to refresh the page.');
        expect(text).toContain(`Reference: ${firstId}`);
        // The error itself never reaches the page.
        expect(text).not.toContain('Deliberate crash');

        const retry = page.getByRole('link', { name: 'Retry', exact: true });
        expect(await retry.getAttribute('href')).toBe('/__test/crash?attempt=first');
        const [again] = await Promise.all([
          page.waitForResponse((answer) => answer.url() === address && answer.request().resourceType() === 'document'),
          retry.click(),
        ]);
        await page.waitForLoadState('load');
        expect(again.status()).toBe(500);
        const secondId = await again.headerValue('x-request-id');
        expect(secondId).toBeTruthy();
        expect(secondId).not.toBe(firstId);
        expect(page.url()).toBe(address);
        expect(await mainText(page)).toContain(`Reference: ${secondId}`);
        // Exactly the two 500 documents were reported, nothing else.
        const lines = current?.problems ?? [];
        expect(lines.filter((line) => / status of 500 /.test(line))).toHaveLength(2);
      });

      it('is translated too', async () => {
        provokedStatuses = [500];
        const page = await openPage(javaScriptEnabled, [{ name: 'lng', value: 'vi' }]);
        const response = must(await page.goto(`${stack.appUrl}/__test/crash-async`));
        expect(response.status()).toBe(500);
        expect(await h1(page)).toBe(catalogueText('vi', 'crash.title'));
        const text = await mainText(page);
        expect(text).toContain(catalogueText('vi', 'crash.text'));
        expect(text).toContain(catalogueText('vi', 'crash.requestId', { id: String(await response.headerValue('x-request-id')) }));
        expect(await page.getByRole('link', { name: catalogueText('vi', 'crash.retry'), exact: true }).count()).toBe(1);
      });
    });

    describe('guards', () => {
      for (const target of ['/', '/profile-settings']) {
        it(`a guest opening ${target} signs in and comes back to it`, async () => {
          const account = await newAccount(`guard${target.length}${javaScriptEnabled ? 'js' : 'nojs'}`);
          const page = await openPage(javaScriptEnabled);
          await page.goto(`${stack.appUrl}${target}`);
          expectSignInWithReturnTo(page, `${stack.appUrl}${target}`);
          expect(await h1(page)).toBe(catalogueText('en', 'authPage.signInTitle'));
          expect((await current!.context.cookies()).some((cookie) => cookie.name === 'ory_kratos_session')).toBe(false);

          await submitSignIn(page, account.email, account.password, landsOn(target));
          expect(await h1(page)).toBe(target === '/' ? `Hello, ${account.name}` : 'Profile settings');
          expect((await current!.context.cookies()).some((cookie) => cookie.name === 'ory_kratos_session')).toBe(true);
        });
      }

      it('a signed-in user opening a guests-only page is sent on to /, or to an allowed return_to', async () => {
        const account = await newAccount(`guest-only${javaScriptEnabled ? 'js' : 'nojs'}`);
        const page = await openPage(javaScriptEnabled);
        await signIn(page, stack.appUrl, account.email, account.password);
        for (const guestPage of ['/sign-in', '/sign-up', '/forgot-password']) {
          const response = must(await page.goto(`${stack.appUrl}${guestPage}`));
          expect(page.url()).toBe(`${stack.appUrl}/`);
          expect(response.status()).toBe(200);
          expect(await h1(page)).toBe(`Hello, ${account.name}`);
        }
        await page.goto(`${stack.appUrl}/sign-in?return_to=${encodeURIComponent(`${stack.appUrl}/profile-settings`)}`);
        expect(page.url()).toMatch(landsOn('/profile-settings'));
        expect(await h1(page)).toBe('Profile settings');
        // Another site is not an allowed return_to: the user stays on this site.
        await page.goto(`${stack.appUrl}/sign-up?return_to=${encodeURIComponent('https://elsewhere.example/steal')}`);
        expect(page.url()).toBe(`${stack.appUrl}/`);
      });
    });

    describe('signed-in home', () => {
      it('shows who is signed in, with links to profile settings and sign-out', async () => {
        const account = await newAccount(`home${javaScriptEnabled ? 'js' : 'nojs'}`);
        const page = await openPage(javaScriptEnabled);
        await signIn(page, stack.appUrl, account.email, account.password);
        expect(await h1(page)).toBe(`Hello, ${account.name}`);
        expect(await page.title()).toContain(`Hello, ${account.name}`);
        expect(await mainText(page)).toContain(`Signed in as ${account.email}`);

        const logout = page.locator('a[data-link="logout"]');
        expect(await logout.getAttribute('href')).toBe('/logout');
        expect((await logout.innerText()).trim()).toBe('Sign out');
        const settings = page.locator('a[data-link="profile-settings"]');
        expect(await settings.getAttribute('href')).toBe('/profile-settings');
        expect((await settings.innerText()).trim()).toBe('Profile settings');
        await Promise.all([page.waitForURL(landsOn('/profile-settings')), settings.click()]);
        expect(await h1(page)).toBe('Profile settings');
        expect(await page.locator('body').innerText()).toContain(account.name);
        expect(await page.locator(`input[value="${account.email}"]`).count()).toBeGreaterThan(0);
      });

      it('is translated', async () => {
        const account = await newAccount(`home-fr${javaScriptEnabled ? 'js' : 'nojs'}`);
        const page = await openPage(javaScriptEnabled, [{ name: 'lng', value: 'fr' }]);
        await page.goto(`${stack.appUrl}/sign-in`);
        await submitSignIn(page, account.email, account.password, `${stack.appUrl}/`);
        expect(await h1(page)).toBe(catalogueText('fr', 'home.title', { name: account.name }));
        expect(await mainText(page)).toContain(catalogueText('fr', 'authPage.signedInAs', { email: account.email }));
        expect((await page.locator('a[data-link="profile-settings"]').innerText()).trim()).toBe(catalogueText('fr', 'authPage.profileSettings'));
        expect((await page.locator('a[data-link="logout"]').innerText()).trim()).toBe(catalogueText('fr', 'authPage.signOut'));
      });

      it('signing out from the home ends the session everywhere', async () => {
        const account = await newAccount(`logout${javaScriptEnabled ? 'js' : 'nojs'}`);
        const page = await openPage(javaScriptEnabled);
        await signIn(page, stack.appUrl, account.email, account.password);
        const session = (await current!.context.cookies()).find((cookie) => cookie.name === 'ory_kratos_session');
        expect(session).toBeDefined();
        const whoamiWith = (value: string) =>
          fetch(`${stack.identity.publicUrl}/sessions/whoami`, { headers: { cookie: `ory_kratos_session=${value}` } }).then((res) => res.status);
        expect(await whoamiWith(session!.value)).toBe(200);
        if (javaScriptEnabled) {
          await page.evaluate(() => localStorage.setItem('token', JSON.stringify({ token: 'stale', expiredAt: Date.now() + 60_000 })));
        }

        await page.locator('a[data-link="logout"]').click();
        if (!javaScriptEnabled) {
          // Without JavaScript the confirmation page waits for the button (a CSRF-protected POST).
          await page.waitForURL(`${stack.appUrl}/logout`);
          expect(await h1(page)).toBe('Sign out');
          await page.locator('#logout-form button[type="submit"]').click();
        }
        await page.waitForURL((url) => url.pathname === '/sign-in' && url.searchParams.get('logged_out') === '1');
        await page.locator('#field-identifier').waitFor();
        expect((await current!.context.cookies()).some((cookie) => cookie.name === 'ory_kratos_session')).toBe(false);
        // The identity service itself no longer knows the old session.
        expect(await whoamiWith(session!.value)).toBe(401);
        if (javaScriptEnabled) expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();

        // A fresh / is a guest's visit again: the app's own whoami fails (401 to an integrator) and
        // the browser is sent to sign in.
        const asJson = await current!.context.request.get(`${stack.appUrl}/`, { headers: { accept: 'application/json' }, maxRedirects: 0 });
        expect(asJson.status()).toBe(401);
        await page.goto(`${stack.appUrl}/`);
        expectSignInWithReturnTo(page, `${stack.appUrl}/`);
      });
    });

    describe('flow error page', () => {
      for (const lng of ['en', 'pt']) {
        it(`an unknown error id shows the translated message (${lng}) with a way back`, async () => {
          provokedStatuses = [404];
          const page = await openPage(javaScriptEnabled, lng === 'en' ? [] : [{ name: 'lng', value: lng }]);
          const response = must(await page.goto(`${stack.appUrl}/error?id=${encodeURIComponent('8f3a6c1e-0000-4000-8000-unknown')}`));
          expect(response.status()).toBe(404);
          expect(await h1(page)).toBe(catalogueText(lng, 'flowError.title'));
          const alert = page.locator('[data-error-code="flow_error_not_found"]');
          expect((await alert.innerText()).trim()).toBe(catalogueText(lng, 'flowError.unknown'));
          expect(await mainText(page)).not.toContain(catalogueText(lng, 'crash.title'));

          const retry = page.getByRole('link', { name: catalogueText(lng, 'flowError.retry'), exact: true });
          expect(await retry.getAttribute('href')).toBe('/sign-in');
          await Promise.all([page.waitForURL(/\/sign-in\?flow=/), retry.click()]);
          expect(await h1(page)).toBe(catalogueText(lng, 'authPage.signInTitle'));
        });
      }

      it('a malformed error id is refused with the same page, not a crash', async () => {
        provokedStatuses = [404];
        const page = await openPage(javaScriptEnabled);
        const response = must(await page.goto(`${stack.appUrl}/error?id=${encodeURIComponent('<script>alert(1)</script>')}`));
        expect(response.status()).toBe(404);
        expect((await page.locator('[data-error-code="flow_error_not_found"]').innerText()).trim()).toBe(catalogueText('en', 'flowError.unknown'));
      });
    });

    describe('language switcher', () => {
      it('changes the language of the page, and the choice stays after a reload and on other pages', async () => {
        const page = await openPage(javaScriptEnabled);
        // Every page ends with the switcher; here, the sign-in screen.
        await page.goto(`${stack.appUrl}/sign-in`);
        const signInUrl = page.url();
        expect(new URL(signInUrl).searchParams.get('flow')).toBeTruthy();
        expect(await page.getAttribute('html', 'lang')).toBe('en');
        const apply = page.locator('.site-footer .lang-switcher__apply');
        expect(await apply.isVisible()).toBe(!javaScriptEnabled);

        await page.selectOption('#site-language-select', 'fr');
        if (!javaScriptEnabled) await apply.click();
        // Back on the same flow, in French.
        await page.waitForURL(signInUrl);
        await expect.poll(() => page.getAttribute('html', 'lang')).toBe('fr');
        expect(await h1(page)).toBe(catalogueText('fr', 'authPage.signInTitle'));
        expect(await page.locator('label[for="site-language-select"]').innerText()).toBe(catalogueText('fr', 'ui.language.label'));
        const cookie = (await current!.context.cookies()).find((entry) => entry.name === 'lng');
        expect(cookie?.value).toBe('fr');
        expect(cookie?.httpOnly).toBe(true);

        await page.reload();
        expect(await page.getAttribute('html', 'lang')).toBe('fr');
        expect(await page.locator('#site-language-select').inputValue()).toBe('fr');
        await page.goto(`${stack.appUrl}/forgot-password`);
        expect(await page.getAttribute('html', 'lang')).toBe('fr');

        // And back to English from another language.
        await page.selectOption('#site-language-select', 'en');
        if (!javaScriptEnabled) await page.locator('.site-footer .lang-switcher__apply').click();
        await expect.poll(() => page.getAttribute('html', 'lang')).toBe('en');
        await page.goto(`${stack.appUrl}/sign-in`);
        expect(await h1(page)).toBe(catalogueText('en', 'authPage.signInTitle'));
      });
    });

    describe('API reference', () => {
      it('/swagger/openapi.json is a valid OpenAPI document listing the sign-in endpoint', async () => {
        const page = await openPage(javaScriptEnabled);
        const response = must(await page.goto(`${stack.appUrl}/swagger/openapi.json`));
        expect(response.status()).toBe(200);
        expect(response.headers()['content-type']).toMatch(/^application\/json/);
        const document = JSON.parse(await response.text()) as {
          openapi: string;
          info: { title: string };
          paths: Record<string, Record<string, { summary?: string; responses?: Record<string, unknown> }>>;
        };
        expect(document.openapi).toMatch(/^3\./);
        expect(document.info.title).toContain('Accounts API');
        expect(Object.keys(document.paths['/sign-in'] ?? {})).toEqual(expect.arrayContaining(['get', 'post']));
        expect(Object.keys(document.paths['/sign-in']?.post?.responses ?? {})).toEqual(expect.arrayContaining(['400', '429']));
      });

      if (javaScriptEnabled) {
        it('/swagger/ui renders the reference, with the sign-in operation', async () => {
          const page = await openPage(true);
          await page.goto(`${stack.appUrl}/swagger/ui`);
          await page.locator('.swagger-ui .info .title', { hasText: 'Accounts API' }).waitFor();
          const signInPost = page.locator('.opblock-post', { has: page.locator('.opblock-summary-path[data-path="/sign-in"]') });
          await signInPost.first().waitFor();
          await signInPost.first().locator('.opblock-summary-control').click();
          await signInPost.first().locator('.opblock-body').waitFor();
          expect(await signInPost.first().locator('.responses-table').innerText()).toContain('303');
        });
      } else {
        it('/swagger/ui without JavaScript links to the raw document', async () => {
          const page = await openPage(false);
          const response = must(await page.goto(`${stack.appUrl}/swagger/ui`));
          expect(response.status()).toBe(200);
          const link = page.locator('a[href="/swagger/openapi.json"]');
          expect(await link.isVisible()).toBe(true);
          await Promise.all([page.waitForURL(`${stack.appUrl}/swagger/openapi.json`), link.click()]);
          expect(JSON.parse(await page.locator('body').innerText()).paths['/sign-in']).toBeDefined();
        });
      }
    });
  });
}
