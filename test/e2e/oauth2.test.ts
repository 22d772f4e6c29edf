// The OAuth2 journey of issue 13 in Debian's Chromium, JavaScript on and off, driven through the demo
// document app (embedded/document-app, a confidential client of the OAuth2 provider): Sign in → the
// app's sign-in page with Hydra's challenge → password (or Google) → our consent page → back at the
// client with a code, which it exchanges: the ID token's claims, userinfo, a refresh token. The second
// time no page of ours shows (login and consent remembered). Sign out at Hydra → its logout challenge →
// our confirmation → both sessions ended: Kratos's whoami 401, and Hydra asks for a login. A client's own
// logout with its ID token (RP-initiated) is driven with a client of the test's, whose URIs are our home:
// the demo client's Sign out is blocked by its own CSP (form-action 'self' refuses its redirect to Hydra).
import type { Page } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCUMENT_APP_CLIENT_NAME, startDocumentApp, type DocumentApp } from '../../embedded/document-app/index.ts';
import { catalogueText, signIn, submitSignIn } from '../support/browser.ts';
import { atProvider } from './social-steps.ts';
import { h1, useScreenStack } from './screen-stack.ts';

const screens = useScreenStack({
  name: 'oauth2-e2e',
  oauth2: true,
  socialProviders: true,
  rateLimits: { 'sign-in': { perIp: 1000, perEmail: 1000 } },
});

let documentApp: DocumentApp;
beforeAll(async () => {
  const { publicUrl, adminUrl } = screens.stack.oauth2!;
  documentApp = await startDocumentApp({ oauth2PublicUrl: publicUrl, oauth2AdminUrl: adminUrl });
});
afterAll(() => documentApp?.close());

const onApp = (path: string) => (url: URL) => url.origin === screens.stack.appUrl && url.pathname === path;
const atClient = (url: URL) => url.origin === documentApp.url && url.pathname === '/callback';

/** Every document the page shows, as `origin + path` (redirect hops are not documents). */
function shownPages(page: Page): string[] {
  const shown: string[] = [];
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) shown.push(`${new URL(frame.url()).origin}${new URL(frame.url()).pathname}`);
  });
  return shown;
}

async function startAtClient(page: Page): Promise<void> {
  await page.goto(documentApp.url);
  await page.locator('#sign-in').click();
}

/** On our consent page: the client and the scopes in words; remember ticked or not, then Allow. */
async function allowOnConsent(page: Page, remember: boolean): Promise<void> {
  await page.waitForURL(onApp('/consent'));
  expect(await h1(page)).toBe(catalogueText('en', 'oauth2.consent.title', { client: DOCUMENT_APP_CLIENT_NAME }));
  const scopes = await page.locator('.consent__scopes li').allInnerTexts();
  expect(scopes).toEqual(['openid', 'offline_access', 'email', 'profile'].map((scope) => catalogueText('en', `oauth2.scope.${scope}`)));
  if (remember) await page.locator('#consent-remember').check();
  await Promise.all([page.waitForURL(atClient), page.getByRole('button', { name: catalogueText('en', 'oauth2.consent.allow') }).click()]);
}

async function expectSignedInAtClient(page: Page, email: string): Promise<void> {
  await expect.poll(() => page.locator('#signed-in-as').innerText()).toContain(email);
  expect(await page.locator('#id-token-claims').innerText()).toContain(email);
  expect(await page.locator('#userinfo').innerText()).toContain(email);
  expect(await page.locator('#refresh-token').innerText()).toContain('A refresh token came');
}

async function whoamiStatus(): Promise<number> {
  return (await screens.context().request.get(`${screens.stack.identity.publicUrl}/sessions/whoami`, { headers: { accept: 'application/json' } })).status();
}

/** Signed in on the app, the account's deletion asked from its settings page (every session of it ends there). */
async function askDeletion(page: Page, account: { email: string; password: string }): Promise<void> {
  await signIn(page, screens.stack.appUrl, account.email, account.password);
  await page.goto(`${screens.stack.appUrl}/profile-settings`);
  const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
  const deleted = await screens.context().request.post(`${screens.stack.appUrl}/profile-settings/delete-account`, {
    headers: { 'x-csrf-token': csrf, accept: 'application/json' },
    data: {},
  });
  expect(deleted.status()).toBe(200);
}

async function loginSkip(page: Page): Promise<boolean> {
  const challenge = new URL(page.url()).searchParams.get('login_challenge')!;
  const answer = await fetch(`${screens.stack.oauth2!.adminUrl}/admin/oauth2/auth/requests/login?login_challenge=${encodeURIComponent(challenge)}`);
  return ((await answer.json()) as { skip: boolean }).skip;
}

for (const javaScriptEnabled of [true, false]) {
  describe(`OAuth2 with JavaScript ${javaScriptEnabled ? 'on' : 'off'}`, () => {
    it('client → password sign-in → consent → code, tokens, userinfo; again without our pages; sign out of both', async () => {
      const account = await screens.newAccount(`oauth2-${javaScriptEnabled ? 'js' : 'nojs'}`);
      const page = await screens.openPage(javaScriptEnabled);
      await startAtClient(page);
      await page.waitForURL(onApp('/sign-in'));
      expect(new URL(page.url()).searchParams.get('login_challenge')).toBeTruthy();
      await submitSignIn(page, account.email, account.password, onApp('/consent'));
      await allowOnConsent(page, true);
      await expectSignedInAtClient(page, account.email);

      // Second time: Hydra remembers the login, Kratos's session accepts it, the consent is remembered.
      // (The client's page shows its signed-in state now, without the link: its /login is where the link goes.)
      const shown = shownPages(page);
      await page.goto(`${documentApp.url}/login`);
      await page.waitForURL(atClient);
      await expectSignedInAtClient(page, account.email);
      expect(shown.filter((url) => url.startsWith(screens.stack.appUrl))).toEqual([]);

      // Sign out at the client: it sends the browser to the provider's end_session with its ID token,
      // Hydra's logout challenge comes to our confirmation, and Yes ends both sessions.
      await Promise.all([page.waitForURL(onApp('/logout')), page.locator('#sign-out').click()]);
      expect(await h1(page)).toBe(catalogueText('en', 'oauth2.logout.title', { client: DOCUMENT_APP_CLIENT_NAME }));
      await Promise.all([
        page.waitForURL((url) => url.origin === documentApp.url && url.pathname === '/'), // the client's post-logout URI
        page.getByRole('button', { name: catalogueText('en', 'oauth2.logout.yes') }).click(),
      ]);
      expect(await whoamiStatus()).toBe(401);
      await page.goto(`${documentApp.url}/login`); // the client still shows its own session: its sign-in again

      await page.waitForURL(onApp('/sign-in'));
      expect(await loginSkip(page)).toBe(false);
      await page.locator('#field-identifier').waitFor();
    });

    it('client → sign in with Google → consent → back at the client with the Google account', async () => {
      const email = `oauth2.google.${javaScriptEnabled ? 'js' : 'nojs'}.${Date.now()}@example.com`;
      screens.identities.track(email);
      const google = screens.stack.providers!.google;
      const page = await screens.openPage(javaScriptEnabled);
      await startAtClient(page);
      await page.waitForURL(onApp('/sign-in'));
      await Promise.all([
        page.waitForURL((url) => url.origin === google.origin, { waitUntil: 'commit' }),
        page.locator('button[data-provider="google"]').click(),
      ]);
      await atProvider(page, google.origin, email, onApp('/consent'), javaScriptEnabled);
      await allowOnConsent(page, false);
      await expectSignedInAtClient(page, email);
    });
    it("an account waiting for deletion: the restore offer's sign-out declines the client, which hears access_denied", async () => {
      const account = await screens.newAccount(`oauth2-declined-${javaScriptEnabled ? 'js' : 'nojs'}`);
      const page = await screens.openPage(javaScriptEnabled);
      await askDeletion(page, account);
      await startAtClient(page);
      await page.waitForURL(onApp('/sign-in'));
      await submitSignIn(page, account.email, account.password, onApp('/profile-settings'));
      await page.locator('[data-page="reactivate-account"]').waitFor();
      await Promise.all([page.waitForURL(onApp('/logout')), page.getByRole('link', { name: catalogueText('en', 'profile.reactivate.signOut') }).click()]);
      // With JavaScript the confirmation sends itself; without, the person presses Sign out.
      screens.provoke(400); // the client's page for a sign-in that did not complete
      if (!javaScriptEnabled) await page.getByRole('button', { name: catalogueText('en', 'authPage.signOut') }).click();
      await page.waitForURL(atClient);
      expect(await page.locator('#error').innerText()).toContain('access_denied');
      expect(await whoamiStatus()).toBe(401);
    });

    it('logout from a client with its ID token (RP-initiated): our confirmation, then both sessions ended', async () => {
      // A client of the test's own whose redirect and post-logout URIs are our home page, so the code and
      // the end of the logout land somewhere this browser can show; the test exchanges the code itself.
      const { appUrl, oauth2 } = screens.stack;
      const registered = await fetch(`${oauth2!.adminUrl}/admin/clients`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          client_name: 'Sheets',
          redirect_uris: [`${appUrl}/`],
          post_logout_redirect_uris: [`${appUrl}/`],
          grant_types: ['authorization_code'],
          response_types: ['code'],
          scope: 'openid email',
          skip_consent: true,
        }),
      });
      const client = (await registered.json()) as { client_id: string; client_secret: string };
      const account = await screens.newAccount(`oauth2-rp-${javaScriptEnabled ? 'js' : 'nojs'}`);
      const page = await screens.openPage(javaScriptEnabled);
      const authorize = new URLSearchParams({
        client_id: client.client_id,
        response_type: 'code',
        scope: 'openid email',
        redirect_uri: `${appUrl}/`,
        state: 'rp-logout-state',
      });
      await page.goto(`${oauth2!.publicUrl}/oauth2/auth?${authorize}`);
      await page.waitForURL(onApp('/sign-in'));
      await submitSignIn(page, account.email, account.password, (url) => url.origin === appUrl && url.searchParams.has('code'));
      const token = await fetch(`${oauth2!.publicUrl}/oauth2/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'authorization_code', code: new URL(page.url()).searchParams.get('code')!, redirect_uri: `${appUrl}/` }),
      });
      const { id_token: idToken } = (await token.json()) as { id_token: string };

      const endSession = new URLSearchParams({ id_token_hint: idToken, post_logout_redirect_uri: `${appUrl}/`, state: 'rp-logout-state' });
      await page.goto(`${oauth2!.publicUrl}/oauth2/sessions/logout?${endSession}`);
      await page.waitForURL(onApp('/logout'));
      expect(await h1(page)).toBe(catalogueText('en', 'oauth2.logout.title', { client: 'Sheets' }));
      await Promise.all([page.waitForURL(onApp('/sign-in')), page.getByRole('button', { name: catalogueText('en', 'oauth2.logout.yes') }).click()]);
      expect(await whoamiStatus()).toBe(401);
    });
  });
}
