import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Browser } from '../auth/helpers.ts';
import { startProfileStack, type ProfileStack } from './fixtures.ts';
import { signedInUser } from './session.ts';

// The profile screens in each language show no English text of our sections.
type Tree = { [key: string]: string | Tree };
const catalogue = (lng: string) => JSON.parse(readFileSync(path.resolve('locales', lng, 'common.json'), 'utf8')) as Tree;
function strings(tree: Tree): string[] {
  return Object.values(tree).flatMap((value) => (typeof value === 'string' ? [value] : strings(value)));
}
const decode = (html: string) => html.replace(/&#x27;/g, "'").replace(/&quot;/g, '"').replace(/&amp;/g, '&');
// Placeholder-free English texts long enough to be unambiguous (brand names are the same everywhere).
const english = [...strings(catalogue('en').profile as Tree), ...strings(catalogue('en').invitation as Tree)].filter(
  (text) => !text.includes('{{') && text.length > 12,
);

let env: ProfileStack;
beforeAll(async () => {
  env = await startProfileStack();
});
afterAll(() => env?.close());

describe.each(['vi', 'fr', 'pt', 'es'])('%s', (lng) => {
  test('profile settings and the confirmation page', async () => {
    const u = await signedInUser(env.appUrl, env.identityAdminUrl, { prefix: `lang-${lng}` });
    const page = decode((await u.browser.get(`${u.settingsAction}&confirm=delete-account&lng=${lng}`)).text);
    expect(page).toContain(`<html lang="${lng}"`);
    const title = (catalogue(lng).profile as Tree).title as string;
    expect(page).toContain(title);
    for (const text of english) expect(page, text).not.toContain(text);
  });

  test('invitation form and the bad-token page', async () => {
    const browser = new Browser(env.appUrl);
    const token = await env.invite(`lang-${lng}-${Date.now()}@example.com`);
    for (const url of [`/sign-up/invitation?token=${token}&lng=${lng}`, `/sign-up/invitation?token=nope&lng=${lng}`]) {
      const page = decode((await browser.get(url)).text);
      expect(page).toContain(`<html lang="${lng}"`);
      for (const text of english) expect(page, text).not.toContain(text);
    }
  });
});
