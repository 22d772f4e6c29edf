import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { uniqueEmail } from '../../support/fixtures.ts';
import { Browser } from '../../support/http.ts';
import { decode, english, OTHER_LANGUAGES } from '../profile/catalogue.ts';
import { startProfileStack, type ProfileStack } from '../profile/profile-stack.ts';

// The invitation screens in each language show no English text of our sections.

let env: ProfileStack;
beforeAll(async () => {
  env = await startProfileStack();
});
afterAll(() => env?.close());

describe.each(OTHER_LANGUAGES)('%s', (lng) => {
  test('invitation form and the bad-token page', async () => {
    const browser = new Browser(env.appUrl);
    const token = await env.invite(uniqueEmail(`lang-${lng}`));
    for (const url of [`/sign-up/invitation?token=${token}&lng=${lng}`, `/sign-up/invitation?token=nope&lng=${lng}`]) {
      const page = decode((await browser.get(url)).text);
      expect(page).toContain(`<html lang="${lng}"`);
      for (const text of english) expect(page, text).not.toContain(text);
    }
  });
});
