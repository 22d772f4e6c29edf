// Accessibility (issue #16 bar): axe-core (Deque's engine, through @axe-core/playwright) on every screen
// in the five languages, in Debian's Chromium: no serious or critical WCAG 2.1 A/AA violation. The guest
// screens, the signed-in ones (home, profile, sign-out), the OAuth2 consent page, and the error pages.
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright';
import { beforeAll, describe, expect, it } from 'vitest';
import { SUPPORTED_LANGUAGES } from '../../server/config.ts';
import { submitSignIn } from '../support/browser.ts';
import { authorizeUrl, registerClient, type Client } from '../integration/oauth2/support.ts';
import { useScreenStack } from './screen-stack.ts';

const screens = useScreenStack({ name: 'a11y-e2e', oauth2: true, rateLimits: { 'sign-in': { perIp: 1000, perEmail: 1000 } } });

const GUEST_SCREENS = [
  '/sign-in',
  '/sign-up',
  '/forgot-password',
  '/sign-up/resend-verification-email',
  '/sign-up/verification',
  '/sign-up/invitation',
  '/authentication/gateway/done',
  '/open-drive?state=forged',
  '/no-such-page',
];
const SIGNED_IN_SCREENS = ['/', '/profile-settings', '/logout'];

let client: Client;
beforeAll(async () => {
  client = await registerClient(screens.stack);
});

/** Serious and critical WCAG 2.1 A/AA findings on the page as it stands, one line each. */
async function violations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return result.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

describe('axe-core on every screen', () => {
  for (const lng of SUPPORTED_LANGUAGES) {
    it(`${lng}: guest, signed-in and consent screens`, async () => {
      // Error answers the screens give on purpose (the forged Drive state, the missing page, no invitation token).
      screens.provoke(400, 404, 410);
      const account = await screens.newAccount(`a11y-${lng}`);
      const page = await screens.openPage(true, [{ name: 'lng', value: lng }]);
      const found: Record<string, string[]> = {};
      for (const path of GUEST_SCREENS) {
        await page.goto(`${screens.stack.appUrl}${path}`);
        found[path] = await violations(page);
      }
      // The consent screen: a client's authorization, signed in on our page with its login challenge.
      await page.goto(authorizeUrl(screens.stack, client));
      await submitSignIn(page, account.email, account.password, (url) => url.pathname === '/consent');
      found['/consent'] = await violations(page);
      for (const path of SIGNED_IN_SCREENS) {
        await page.goto(`${screens.stack.appUrl}${path}`);
        found[path] = await violations(page);
      }
      expect(await page.getAttribute('html', 'lang')).toBe(lng);
      expect(Object.fromEntries(Object.entries(found).filter(([, list]) => list.length > 0))).toEqual({});
    });
  }
});
