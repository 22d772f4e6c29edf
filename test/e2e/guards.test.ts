// The login and guest guards in Debian's Chromium with JavaScript on and off, against the real stack:
// a guest sent to sign in and brought back by return_to, a signed-in user sent on from the guests-only
// pages. Every scenario fails on a console error or a CSP violation.
import { describe, expect, it } from 'vitest';
import { catalogueText, signIn, submitSignIn } from '../support/browser.ts';
import { h1, must, useScreenStack } from './screen-stack.ts';

const screens = useScreenStack({
  name: 'guards-e2e',
  // Several sign-ins from one address in a few seconds: not what the limiter is being tested for here.
  rateLimits: { 'sign-in': { perIp: 1000, perEmail: 1000 } },
});

const hasSession = async () => (await screens.context().cookies()).some((cookie) => cookie.name === 'ory_kratos_session');

for (const javaScriptEnabled of [true, false]) {
  describe(`guards with JavaScript ${javaScriptEnabled ? 'on' : 'off'}`, () => {
    for (const target of ['/', '/profile-settings']) {
      it(`a guest opening ${target} signs in and comes back to it`, async () => {
        const account = await screens.newAccount(`guard${target.length}${javaScriptEnabled ? 'js' : 'nojs'}`);
        const page = await screens.openPage(javaScriptEnabled);
        await page.goto(`${screens.stack.appUrl}${target}`);
        screens.expectSignInWithReturnTo(page, `${screens.stack.appUrl}${target}`);
        expect(await h1(page)).toBe(catalogueText('en', 'authPage.signInTitle'));
        expect(await hasSession()).toBe(false);

        await submitSignIn(page, account.email, account.password, screens.landsOn(target));
        expect(await h1(page)).toBe(target === '/' ? `Hello, ${account.name}` : 'Profile settings');
        expect(await hasSession()).toBe(true);
      });
    }

    it('a signed-in user opening a guests-only page is sent on to /, or to an allowed return_to', async () => {
      const account = await screens.newAccount(`guest-only${javaScriptEnabled ? 'js' : 'nojs'}`);
      const page = await screens.openPage(javaScriptEnabled);
      const { appUrl } = screens.stack;
      await signIn(page, appUrl, account.email, account.password);
      for (const guestPage of ['/sign-in', '/sign-up', '/forgot-password']) {
        const response = must(await page.goto(`${appUrl}${guestPage}`));
        expect(page.url()).toBe(`${appUrl}/`);
        expect(response.status()).toBe(200);
        expect(await h1(page)).toBe(`Hello, ${account.name}`);
      }
      await page.goto(`${appUrl}/sign-in?return_to=${encodeURIComponent(`${appUrl}/profile-settings`)}`);
      expect(page.url()).toMatch(screens.landsOn('/profile-settings'));
      expect(await h1(page)).toBe('Profile settings');
      // Another site is not an allowed return_to: the user stays on this site.
      await page.goto(`${appUrl}/sign-up?return_to=${encodeURIComponent('https://elsewhere.example/steal')}`);
      expect(page.url()).toBe(`${appUrl}/`);
    });
  });
}
