// The error screens in Debian's Chromium with JavaScript on and off, against the real stack: the 404
// page, the crash screen and the flow error page. Every scenario fails on a console error or a CSP
// violation it did not provoke on purpose.
import { describe, expect, it } from 'vitest';
import { catalogueText, signIn } from '../support/browser.ts';
import { h1, mainText, must, useScreenStack } from './screen-stack.ts';

const screens = useScreenStack({
  name: 'errors-e2e',
  // Several sign-ins from one address in a few seconds: not what the limiter is being tested for here.
  rateLimits: { 'sign-in': { perIp: 1000, perEmail: 1000 } },
});

for (const javaScriptEnabled of [true, false]) {
  describe(`error screens with JavaScript ${javaScriptEnabled ? 'on' : 'off'}`, () => {
    describe('not found', () => {
      for (const address of ['/404', '/no/such/page']) {
        for (const lng of ['en', 'fr']) {
          it(`${address} answers 404 with the ${lng} page, whose link leads home`, async () => {
            screens.provoke(404);
            const page = await screens.openPage(javaScriptEnabled, lng === 'en' ? [] : [{ name: 'lng', value: lng }]);
            const response = must(await page.goto(`${screens.stack.appUrl}${address}`));
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
            screens.expectSignInWithReturnTo(page, `${screens.stack.appUrl}/`);
            await page.locator('#field-identifier').waitFor();
          });
        }
      }

      it('the home link of the 404 page brings a signed-in user to the signed-in home', async () => {
        screens.provoke(404);
        const account = await screens.newAccount(`nf${javaScriptEnabled ? 'js' : 'nojs'}`);
        const page = await screens.openPage(javaScriptEnabled);
        await signIn(page, screens.stack.appUrl, account.email, account.password);
        const response = must(await page.goto(`${screens.stack.appUrl}/missing-${Date.now()}`));
        expect(response.status()).toBe(404);
        await Promise.all([page.waitForURL(`${screens.stack.appUrl}/`), page.getByRole('link', { name: 'Go to the home page', exact: true }).click()]);
        expect(await h1(page)).toBe(`Hello, ${account.name}`);
      });
    });

    describe('crash screen', () => {
      it('answers 500 with the apology and the request id, and Retry loads the same address again', async () => {
        screens.provoke(500);
        const page = await screens.openPage(javaScriptEnabled);
        const address = `${screens.stack.appUrl}/__test/crash?attempt=first`;
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
        expect(screens.problems().filter((line) => / status of 500 /.test(line))).toHaveLength(2);
      });

      it('is translated too', async () => {
        screens.provoke(500);
        const page = await screens.openPage(javaScriptEnabled, [{ name: 'lng', value: 'vi' }]);
        const response = must(await page.goto(`${screens.stack.appUrl}/__test/crash-async`));
        expect(response.status()).toBe(500);
        expect(await h1(page)).toBe(catalogueText('vi', 'crash.title'));
        const text = await mainText(page);
        expect(text).toContain(catalogueText('vi', 'crash.text'));
        expect(text).toContain(catalogueText('vi', 'crash.requestId', { id: String(await response.headerValue('x-request-id')) }));
        expect(await page.getByRole('link', { name: catalogueText('vi', 'crash.retry'), exact: true }).count()).toBe(1);
      });
    });

    describe('flow error page', () => {
      for (const lng of ['en', 'pt']) {
        it(`an unknown error id shows the translated message (${lng}) with a way back`, async () => {
          screens.provoke(404);
          const page = await screens.openPage(javaScriptEnabled, lng === 'en' ? [] : [{ name: 'lng', value: lng }]);
          const response = must(await page.goto(`${screens.stack.appUrl}/error?id=${encodeURIComponent('8f3a6c1e-0000-4000-8000-unknown')}`));
          expect(response.status()).toBe(404);
          expect(await h1(page)).toBe(catalogueText(lng, 'flowError.title'));
          const alert = page.locator('[data-error-code="flow_error_not_found"]');
          expect((await alert.innerText()).trim()).toBe(catalogueText(lng, 'flowError.unknown'));
          expect(await mainText(page)).not.toContain(catalogueText(lng, 'crash.title'));

          const retry = page.getByRole('link', { name: catalogueText(lng, 'flowError.retry'), exact: true });
          expect(await retry.getAttribute('href')).toBe('/sign-in');
          // A new flow shown at once: with JavaScript the bar then names it, without it the address stays (decision 190).
          await Promise.all([page.waitForURL(javaScriptEnabled ? /\/sign-in\?flow=/ : /\/sign-in$/), retry.click()]);
          expect(await h1(page)).toBe(catalogueText(lng, 'authPage.signInTitle'));
        });
      }

      it('a malformed error id is refused with the same page, not a crash', async () => {
        screens.provoke(404);
        const page = await screens.openPage(javaScriptEnabled);
        const response = must(await page.goto(`${screens.stack.appUrl}/error?id=${encodeURIComponent('<script>alert(1)</script>')}`));
        expect(response.status()).toBe(404);
        expect((await page.locator('[data-error-code="flow_error_not_found"]').innerText()).trim()).toBe(catalogueText('en', 'flowError.unknown'));
      });
    });
  });
}
