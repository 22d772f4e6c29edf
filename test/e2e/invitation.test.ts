// Sign-up through an invitation in Debian's Chromium, JavaScript on and off: the invited address locked,
// the account created and signed in at the home page; a password the identity service's policy refuses
// (too like the address) leaves the person signed in on the profile's password form with the reason, where
// another one is accepted and then signs in.
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../core/routes.ts';
import { catalogueText } from '../support/browser.ts';
import { signIn, uniqueEmail } from '../support/fixtures.ts';
import { Browser } from '../support/http.ts';
import { STACK_BACKEND_ADMIN_KEY } from '../support/stack.ts';
import { h1, useScreenStack } from './screen-stack.ts';

const screens = useScreenStack({
  name: 'invitation-e2e',
  rateLimits: { 'sign-up': { perIp: 1000, perEmail: 1000 }, 'sign-in': { perIp: 1000, perEmail: 1000 } },
});
const GOOD_PASSWORD = 'Copper-Meadow-Lantern-61';
const NEXT_PASSWORD = 'Willow-Harbour-Compass-84';

/** An invitation for a new address (its account deleted after the test), through the backend's admin API. */
async function invite(label: string): Promise<{ email: string; token: string }> {
  const email = uniqueEmail(label);
  screens.identities.track(email);
  const response = await fetch(`${screens.stack.backend.url}/api/admin/invitations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${STACK_BACKEND_ADMIN_KEY}` },
    body: JSON.stringify({ email }),
  });
  expect(response.status).toBe(201);
  return { email, token: ((await response.json()) as { token: string }).token };
}

for (const javaScriptEnabled of [true, false]) {
  describe(`JavaScript ${javaScriptEnabled ? 'on' : 'off'}`, () => {
    const mode = javaScriptEnabled ? 'js' : 'nojs';

    it('the invited address is locked; the account is created and signed in', async () => {
      const { email, token } = await invite(`invite-${mode}`);
      const page = await screens.openPage(javaScriptEnabled);
      await page.goto(`${screens.stack.appUrl}${ROUTES.invitation}?token=${encodeURIComponent(token)}`);
      expect(await page.inputValue('#invitation-email')).toBe(email);
      expect(await page.getAttribute('#invitation-email', 'readonly')).not.toBeNull();
      await page.fill('#invitation-name', 'Invited Iris');
      await page.fill('#invitation-password', GOOD_PASSWORD);
      await page.check('#invitation-terms');
      await Promise.all([page.waitForURL(`${screens.stack.appUrl}/`), page.click('#invitation-form button[type="submit"]')]);
      expect(await h1(page)).toBe(catalogueText('en', 'home.title', { name: 'Invited Iris' }));
    });

    it('a password the policy refuses: signed in on the password form with the reason; another one there is accepted', async () => {
      const { email, token } = await invite(`invite-refused-${mode}`);
      const page = await screens.openPage(javaScriptEnabled);
      await page.goto(`${screens.stack.appUrl}${ROUTES.invitation}?token=${encodeURIComponent(token)}`);
      await page.fill('#invitation-password', email);
      await page.check('#invitation-terms');
      await Promise.all([page.waitForURL((url) => url.pathname === ROUTES.profile), page.click('#invitation-form button[type="submit"]')]);
      expect(await page.locator('#field-password-error').innerText()).toBe(catalogueText('en', 'errorMessage.similarPassword'));
      await page.locator('.toast', { hasText: catalogueText('en', 'invitation.choosePassword') }).waitFor();

      await page.fill('#field-password', NEXT_PASSWORD);
      await page.click('#profile-password-form button[name="method"][value="password"]');
      await expect.poll(async () => (await signIn(new Browser(screens.stack.appUrl), email, NEXT_PASSWORD)).status).toBe(303);
      expect((await signIn(new Browser(screens.stack.appUrl), email, email)).status).not.toBe(303);
    });
  });
}
