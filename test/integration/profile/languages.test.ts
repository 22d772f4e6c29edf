import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { catalogue, decode, english, OTHER_LANGUAGES, type Tree } from './catalogue.ts';
import { startProfileStack, useProfileUsers, type ProfileStack } from './profile-stack.ts';

// The profile screens in each language show no English text of our sections.

let env: ProfileStack;
beforeAll(async () => {
  env = await startProfileStack();
});
afterAll(() => env?.close());
const users = useProfileUsers(() => env);

describe.each(OTHER_LANGUAGES)('%s', (lng) => {
  test('profile settings and the confirmation page', async () => {
    const u = await users.signedIn({ prefix: `lang-${lng}` });
    const page = decode((await u.browser.get(`${u.settingsAction}&confirm=delete-account&lng=${lng}`)).text);
    expect(page).toContain(`<html lang="${lng}"`);
    const title = (catalogue(lng).profile as Tree).title as string;
    expect(page).toContain(title);
    for (const text of english) expect(page, text).not.toContain(text);
  });
});
