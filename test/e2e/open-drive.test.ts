// Google Drive's "Open with" entry in Debian's Chromium, JavaScript on and off: a guest arriving with
// Drive's state signs in and lands on the demo document app's /open page listing the files; a signed-in
// user goes straight there; a forged state is the translated 400 page. The document app
// (embedded/document-app) runs on a port chosen before the stack, so DOCUMENT_APP_URL can name it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../core/routes.ts';
import { startDocumentApp, type DocumentApp } from '../../embedded/document-app/index.ts';
import { freePort } from '../../scripts/ory/process.ts';
import { catalogueText, submitSignIn } from '../support/browser.ts';
import { h1, must, useScreenStack } from './screen-stack.ts';

// Registered before useScreenStack's hooks, so it runs first: the port goes into the app's environment.
const env: Record<string, string> = {};
let documentPort = 0;
beforeAll(async () => {
  documentPort = await freePort();
  env.DOCUMENT_APP_URL = `http://127.0.0.1:${documentPort}`;
});

const screens = useScreenStack({ name: 'open-drive-e2e', oauth2: true, env, rateLimits: { 'sign-in': { perIp: 1000, perEmail: 1000 } } });

let documentApp: DocumentApp;
beforeAll(async () => {
  const { publicUrl, adminUrl } = screens.stack.oauth2!;
  documentApp = await startDocumentApp({ port: documentPort, oauth2PublicUrl: publicUrl, oauth2AdminUrl: adminUrl });
});
afterAll(() => documentApp?.close());

const FILES = ['1AbCdEfGhIjKlMnOpQrStUv', '0B7-xyz_1234567890abc'];
const openDrive = (state: unknown) => `${screens.stack.appUrl}${ROUTES.openDrive}?state=${encodeURIComponent(JSON.stringify(state))}`;
const OPEN = { ids: FILES, action: 'open', userId: '103456789012345678901' };

for (const javaScriptEnabled of [true, false]) {
  describe(`open-drive with JavaScript ${javaScriptEnabled ? 'on' : 'off'}`, () => {
    it('a guest signs in and lands on the document app, which lists the files Drive asked to open', async () => {
      const account = await screens.newAccount(`drive-guest-${javaScriptEnabled ? 'js' : 'nojs'}`);
      const page = await screens.openPage(javaScriptEnabled);
      const start = openDrive(OPEN);
      await page.goto(start);
      screens.expectSignInWithReturnTo(page, start);
      await submitSignIn(page, account.email, account.password, new RegExp(`^${documentApp.url}/open\\?`));
      const target = new URL(page.url());
      expect(Object.fromEntries(target.searchParams)).toEqual({ ids: FILES.join(','), action: 'open', userId: OPEN.userId });
      const text = await page.locator('main').innerText();
      expect(text).toContain('Would open files');
      for (const id of FILES) expect(text).toContain(id);
    });

    it('a signed-in user goes straight to the document app; a forged state is the translated 400 page', async () => {
      const account = await screens.newAccount(`drive-user-${javaScriptEnabled ? 'js' : 'nojs'}`);
      const page = await screens.openPage(javaScriptEnabled);
      // Signed in, the home sends the browser on to the document app (DOCUMENT_APP_URL).
      await page.goto(`${screens.stack.appUrl}${ROUTES.signIn}`);
      await submitSignIn(page, account.email, account.password, `${documentApp.url}/`);
      await page.goto(openDrive(OPEN));
      expect(page.url().startsWith(`${documentApp.url}/open?`)).toBe(true);
      screens.provoke(400);
      const forged = must(await page.goto(openDrive({ ids: ['<img src=x onerror=alert(1)>'], action: 'open', userId: 'u' })));
      expect(forged.status()).toBe(400);
      expect(await h1(page)).toBe(catalogueText('en', 'flowError.title'));
      expect(await page.locator('main').innerText()).toContain(catalogueText('en', 'openDrive.invalidState'));
    });
  });
}
