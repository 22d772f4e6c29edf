// The app gateway in Debian's Chromium, JavaScript on and off, with the stack's OAuth2 provider (real
// Hydra on real Kratos, else the stand-in; decision 140). Desktop: a guest opens the gateway, signs in
// once, the loopback listener gets the code and sends the browser to "done"; the test exchanges the code
// with the PKCE verifier for an ID token of that identity. Mobile: a web view bridge injected into the
// page receives the result from the callback page; without JavaScript the page shows it as text.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import type { Page } from 'playwright';
import { ROUTES } from '../../core/routes.ts';
import { catalogueText, submitSignIn } from '../support/browser.ts';
import { GATEWAY_ENV, DESKTOP_CLIENT_ID, MOBILE_CLIENT_ID, pkcePair, registerGatewayClients } from '../integration/gateway/gateway-support.ts';
import { h1, useScreenStack } from './screen-stack.ts';
import { atProvider } from './social-steps.ts';
import { uniqueEmail } from '../support/fixtures.ts';

const screens = useScreenStack({
  name: 'gateway-e2e',
  oauth2: true,
  socialProviders: true,
  env: GATEWAY_ENV,
  rateLimits: { 'sign-in': { perIp: 1000, perEmail: 1000 } },
});

// The desktop app's loopback listener: takes the code, then sends the browser to the "done" page.
let loopback: Server;
let loopbackUrl = '';
const received: URLSearchParams[] = [];
beforeAll(async () => {
  await registerGatewayClients(screens.stack.oauth2!.adminUrl, screens.stack.appUrl);
  loopback = createServer((req, res) => {
    received.push(new URL(req.url ?? '/', 'http://127.0.0.1').searchParams);
    res.writeHead(303, { location: `${screens.stack.appUrl}${ROUTES.gatewayDone}` }).end();
  });
  await new Promise<void>((resolve) => loopback.listen(0, '127.0.0.1', resolve));
  loopbackUrl = `http://127.0.0.1:${(loopback.address() as AddressInfo).port}/callback`;
});
afterAll(() => new Promise<void>((resolve) => (loopback ? loopback.close(() => resolve()) : resolve())));

async function tokensFor(code: string, redirectUri: string, verifier: string, clientId: string) {
  const response = await fetch(`${screens.stack.oauth2!.publicUrl}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: clientId, code_verifier: verifier }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { id_token: string; refresh_token?: string };
}

const gatewayUrl = (params: Record<string, string>) => `${screens.stack.appUrl}${ROUTES.gateway}?${new URLSearchParams(params)}`;

/** A guest opens the gateway and signs in once on the provider's login UI (our sign-in page with the challenge). */
async function signInThroughGateway(page: Page, url: string, email: string, password: string, to: string | RegExp) {
  await page.goto(url);
  expect(new URL(page.url()).pathname).toBe(ROUTES.signIn);
  expect(new URL(page.url()).searchParams.get('login_challenge')).toBeTruthy();
  await submitSignIn(page, email, password, to);
}

type Bridged = { type: string; status: string; code?: string; state?: string; error?: string };

for (const javaScriptEnabled of [true, false]) {
  const mode = javaScriptEnabled ? 'on' : 'off';
  describe(`gateway with JavaScript ${mode}`, () => {
    it('desktop: a guest signs in once, the loopback gets the code, the browser says the app takes over; the code + verifier give this identity', async () => {
      const person = await screens.identities.create({ password: 'Gateway-Desktop-Phrase-2026' });
      const { verifier, challenge } = pkcePair();
      const state = `desktop-${mode}-0123456789`;
      const page = await screens.openPage(javaScriptEnabled);
      const before = received.length;
      await signInThroughGateway(
        page,
        gatewayUrl({ request_login: '1', redirect_uri: loopbackUrl, code_challenge: challenge, code_challenge_method: 'S256', state }),
        person.email,
        person.password!,
        `${screens.stack.appUrl}${ROUTES.gatewayDone}`,
      );
      expect(await h1(page)).toBe(catalogueText('en', 'gateway.doneTitle'));
      expect(await page.locator('main').innerText()).toContain(catalogueText('en', 'gateway.doneText'));
      expect(received.length).toBe(before + 1);
      const query = received.at(-1)!;
      expect(query.get('state')).toBe(state);
      const tokens = await tokensFor(query.get('code')!, loopbackUrl, verifier, DESKTOP_CLIENT_ID);
      expect(decodeJwt(tokens.id_token).sub).toBe(person.id);
      expect(tokens.refresh_token).toBeTruthy();
    });

    for (const bridge of ['ReactNativeWebView', 'webkit'] as const) {
      it(`mobile: the callback page ${javaScriptEnabled ? `posts the result to an injected ${bridge} bridge` : 'shows the result and says to return to the app'}`, async () => {
        const person = await screens.identities.create({ password: 'Gateway-Mobile-Phrase-2026' });
        const { verifier, challenge } = pkcePair();
        const state = `mobile-${mode}-${bridge}`;
        const page = await screens.openPage(javaScriptEnabled);
        await page.addInitScript((name: string) => {
          const sink = { postMessage: (message: string) => ((window as unknown as { bridged: string[] }).bridged ??= []).push(message) };
          if (name === 'webkit') Object.assign(window, { webkit: { messageHandlers: { ReactNativeWebView: sink } } });
          else Object.assign(window, { ReactNativeWebView: sink });
        }, bridge);
        const callback = `${screens.stack.appUrl}${ROUTES.gatewayCallback}`;
        await signInThroughGateway(
          page,
          gatewayUrl({ platform: 'android', login_type: 'email', code_challenge: challenge, code_challenge_method: 'S256', state }),
          person.email,
          person.password!,
          new RegExp(`^${callback.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\?`),
        );
        const code = new URL(page.url()).searchParams.get('code')!;
        expect(await h1(page)).toBe(catalogueText('en', 'gateway.callbackTitle'));
        expect(await page.locator('#gateway-code').innerText()).toBe(code);
        // On a phone the code breaks across lines: the page does not scroll sideways (it was 961 px wide).
        await page.setViewportSize({ width: 390, height: 844 });
        await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
        if (javaScriptEnabled) {
          await page.waitForFunction(() => ((window as unknown as { bridged?: string[] }).bridged ?? []).length > 0);
          const messages = await page.evaluate(() => (window as unknown as { bridged: string[] }).bridged);
          expect(messages.map((message) => JSON.parse(message) as Bridged)).toEqual([{ type: 'authentication', status: 'success', code, state }]);
          await expect.poll(() => page.locator('[data-bridge-sent]').isVisible()).toBe(true);
          expect(await page.locator('main').innerText()).toContain(catalogueText('en', 'gateway.handedToApp'));
        } else {
          expect(await page.evaluate(() => (window as unknown as { bridged?: string[] }).bridged)).toBeUndefined();
          expect(await page.locator('main').innerText()).toContain(catalogueText('en', 'gateway.returnToApp'));
        }
        const tokens = await tokensFor(code, callback, verifier, MOBILE_CLIENT_ID);
        expect(decodeJwt(tokens.id_token).sub).toBe(person.id);
      });
    }

    it('mobile: a guest who chose Google in the app signs in with Google once, and the code comes back', async () => {
      const google = screens.stack.providers!.google;
      const email = uniqueEmail(`gateway-google-${mode}`);
      screens.stack.providers!.addAccount('google', { email, name: 'Gateway Reader' });
      screens.identities.track(email);
      const { verifier, challenge } = pkcePair();
      const page = await screens.openPage(javaScriptEnabled);
      // Pages shown at Google, counted each time the browser arrives there from elsewhere.
      let visits = 0;
      let atGoogle = false;
      page.on('framenavigated', (frame) => {
        if (frame !== page.mainFrame()) return;
        const there = new URL(frame.url()).origin === google.origin;
        if (there && !atGoogle) visits += 1;
        atGoogle = there;
      });
      const callback = `${screens.stack.appUrl}${ROUTES.gatewayCallback}`;
      await Promise.all([
        page.waitForURL((url) => url.origin === google.origin, { waitUntil: 'commit' }),
        page.goto(gatewayUrl({ platform: 'ios', login_type: 'google', code_challenge: challenge, code_challenge_method: 'S256', state: `google-${mode}` })),
      ]);
      await atProvider(page, google.origin, email, (url) => url.href.startsWith(`${callback}?`), javaScriptEnabled);
      expect(visits).toBe(1);
      const code = new URL(page.url()).searchParams.get('code')!;
      const tokens = await tokensFor(code, callback, verifier, MOBILE_CLIENT_ID);
      expect(decodeJwt(tokens.id_token).sub).toBeTruthy();
    });

    it('mobile: an error comes back to the bridge as an error message (a 400 page)', async () => {
      screens.provoke(400);
      const page = await screens.openPage(javaScriptEnabled);
      await page.addInitScript(() => {
        Object.assign(window, {
          ReactNativeWebView: { postMessage: (message: string) => ((window as unknown as { bridged: string[] }).bridged ??= []).push(message) },
        });
      });
      await page.goto(`${screens.stack.appUrl}${ROUTES.gatewayCallback}?error=access_denied&state=mobile-denied-1`);
      expect(await h1(page)).toBe(catalogueText('en', 'gateway.callbackErrorTitle'));
      expect(await page.locator('#gateway-error').innerText()).toBe('access_denied');
      if (javaScriptEnabled) {
        await page.waitForFunction(() => ((window as unknown as { bridged?: string[] }).bridged ?? []).length > 0);
        const messages = await page.evaluate(() => (window as unknown as { bridged: string[] }).bridged);
        expect(JSON.parse(messages[0]!)).toEqual({ type: 'authentication', status: 'error', state: 'mobile-denied-1', error: 'access_denied' });
      }
    });
  });
}
