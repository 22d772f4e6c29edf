// A social sign-up whose provider claims fail the identity schema: Kratos sends the browser back to
// our sign-up page with the provider as "Continue" (1040003) and the traits to fix. The page says why,
// asks only for those and the terms, and posts them with the provider; the account is then made with
// what the user typed. On the stand-in and real Kratos.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { catalogueText } from '../../support/browser.ts';
import { findIdentity, uniqueEmail, useIdentities } from '../../support/fixtures.ts';
import { Browser, fieldError, formAction, hiddenValue } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';
import { pathOf, returnFromProvider, signedIn, socialRoundTrip } from './social-support.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ socialProviders: true });
});
afterAll(() => stack?.close());
const identities = useIdentities(() => stack.identity.adminUrl);

test('an address over the schema’s 255 characters: the Continue screen, then the account with the address typed', async () => {
  // Longer than traits.email's maxLength: what the provider says cannot be stored as it is.
  const tooLong = `${'a'.repeat(60)}.${'b'.repeat(60)}@${'c'.repeat(63)}.${'d'.repeat(63)}.example`;
  expect(tooLong.length).toBeGreaterThan(255);
  stack.providers!.addAccount('dropbox', { email: tooLong, name: 'Ada Long' });
  const typed = uniqueEmail('complete');
  identities.track(typed);

  const browser = new Browser(stack.appUrl);
  const screen = await socialRoundTrip(stack, browser, '/sign-up', 'dropbox', { email: tooLong });
  expect(pathOf(screen.url)).toBe('/sign-up');
  expect(screen.status).toBe(400);
  expect(screen.text).toContain(catalogueText('en', 'social.completeTitle', { provider: 'Dropbox' }));
  expect(screen.text).toContain(catalogueText('en', 'social.completeText', { provider: 'Dropbox' }));
  expect(fieldError(screen.text, 'field-traits-email')).toBeTruthy();
  expect(screen.text).toContain('name="terms"');
  expect(screen.text).not.toContain('traits.loginService');
  const main = /<div class="flow-form__actions">[\s\S]*?<\/div>/.exec(screen.text)?.[0] ?? '';
  expect(main).toContain('value="dropbox"');
  expect(main).toContain(catalogueText('en', 'social.completeSubmit'));

  const action = formAction(screen.text, 'sign-up-form')!;
  const csrf = hiddenValue(screen.text, 'csrf_token')!;
  const withoutTerms = await browser.post(action, { csrf_token: csrf, provider: 'dropbox', 'traits.email': typed, 'traits.name': 'Ada Long' });
  expect(withoutTerms.status).toBe(400);
  expect(withoutTerms.text).toContain(catalogueText('en', 'validation.termsRequired'));

  const pressed = await browser.post(action, { csrf_token: csrf, provider: 'dropbox', 'traits.email': typed, 'traits.name': 'Ada Long', terms: 'on' });
  expect(pressed.status, pressed.text.slice(0, 300)).toBe(303);
  const done = await returnFromProvider(stack, browser, pressed.location!, { email: tooLong });
  expect(done.url).toBe(`${stack.appUrl}/`);
  expect(await signedIn(browser)).toBe(true);
  expect(await findIdentity(stack.identity.adminUrl, typed)).toBeDefined();
});
