// The password section's kinds (spec §3) over HTTP, on the stand-in and real Kratos:
//   changeLoginService  a Google-only account sets its first password, then signs in with e-mail and it;
//   default             an e-mail account, also after a name change (which moves every credential's
//                       updated_at in Kratos, so that cannot be the rule);
//   changedPassword     after a change, with its date.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Browser, signIn } from '../../support/fixtures.ts';
import { hiddenValue } from '../../support/http.ts';
import { loginsOf, socialSignUp } from './linked-logins-support.ts';
import { openProfile, startProfileStack, useProfileUsers, type ProfileStack } from './profile-stack.ts';

const FIRST_PASSWORD = 'Lantern-Orchard-Pebble-58';
const NEXT_PASSWORD = 'Meadow-Copper-Violin-27';

let env: ProfileStack;
beforeAll(async () => {
  env = await startProfileStack({ socialProviders: true });
});
afterAll(() => env?.close());
const users = useProfileUsers(() => env);

function sectionClass(page: string): string | undefined {
  return /class="profile-section profile-password profile-password--(\w+)"/.exec(page)?.[1];
}

async function state(browser: Browser, action: string) {
  const answer = await browser.get(action, { accept: 'application/json' });
  expect(answer.status).toBe(200);
  return JSON.parse(answer.text) as { passwordKind: string; passwordChangedAt: string | null; hasPassword: boolean | null };
}

describe('changeLoginService: a social-only account sets its first password', () => {
  test('"Set a password" → set → the account also signs in with its e-mail and that password', async () => {
    const social = await socialSignUp(env, users.identities, 'google');
    const profile = await openProfile(social.browser);
    expect(sectionClass(profile.page)).toBe('changeLoginService');
    expect(profile.page).toContain('Set a password');
    expect(profile.page).toContain(`You sign in with Google. Set a password of 8 to 72 characters to also sign in with your email address ${social.email}.`);
    expect(profile.page).toMatch(/<button[^>]*value="password"[^>]*>[\s\S]*?Set password/);
    expect(await state(social.browser, profile.settingsAction)).toMatchObject({ passwordKind: 'changeLoginService', hasPassword: false });

    const saved = await social.browser.post(profile.settingsAction, { csrf_token: profile.flowCsrf, method: 'password', password: FIRST_PASSWORD });
    expect(saved.status).toBe(303);
    const page = await social.browser.get(saved.location!);
    expect(page.text).toContain(`Your password is set. You can now also sign in with ${social.email} and this password.`);
    // Now a password account that never changed it; Google can be unlinked (two ways in).
    expect(sectionClass(page.text)).toBe('default');
    expect(loginsOf(page.text).find((login) => login.provider === 'google')).toMatchObject({ linked: true, button: 'unlink', disabled: false });
    expect(loginsOf(page.text).find((login) => login.provider === 'password')).toMatchObject({ linked: true });
    expect(await state(social.browser, profile.settingsAction)).toMatchObject({ passwordKind: 'default', hasPassword: true, passwordChangedAt: null });

    const fresh = new Browser(env.appUrl);
    const answer = await signIn(fresh, social.email, FIRST_PASSWORD);
    expect(answer.status, answer.text.slice(0, 300)).toBe(303);
    expect(new URL(answer.location!, env.appUrl).pathname).not.toBe('/sign-in');
  });
});

describe('default and changedPassword: an e-mail account', () => {
  test('default until the password changes, also after a name change; then changedPassword with the date', async () => {
    const u = await users.signedIn({ prefix: 'kinds' });
    expect(sectionClass(u.page)).toBe('default');
    expect(u.page).toContain('Choose a new password of 8 to 72 characters.');

    const named = await u.browser.post(u.settingsAction, { csrf_token: u.flowCsrf, method: 'profile', 'traits.name': 'Ada Byron' });
    expect(named.status).toBe(303);
    expect(sectionClass((await u.browser.get(named.location!)).text)).toBe('default');
    expect(await state(u.browser, u.settingsAction)).toMatchObject({ passwordKind: 'default', passwordChangedAt: null, hasPassword: true });

    const flowCsrf = hiddenValue((await u.browser.get(u.settingsAction)).text, 'csrf_token')!;
    const changed = await u.browser.post(u.settingsAction, { csrf_token: flowCsrf, method: 'password', password: NEXT_PASSWORD });
    expect(changed.status).toBe(303);
    const page = await u.browser.get(changed.location!);
    expect(page.text).toMatch(/data-password-kind="changedPassword"[^>]*>[\s\S]*?Your password has been changed\./);
    expect(sectionClass(page.text)).toBe('changedPassword');
    const json = await state(u.browser, u.settingsAction);
    expect(json.passwordKind).toBe('changedPassword');
    const changedAt = new Date(json.passwordChangedAt!);
    expect(Math.abs(Date.now() - changedAt.getTime())).toBeLessThan(60_000);
    const date = changedAt.toLocaleDateString('en', { dateStyle: 'long' });
    expect(page.text).toContain(`You last changed your password on ${date}.`);
    // The next visit still says so (it is the account's state, not a one-time notice), in French too.
    const french = await u.browser.get(`${u.settingsAction}&lng=fr`);
    expect(french.text).toContain(
      `Vous avez modifié votre mot de passe pour la dernière fois le ${changedAt.toLocaleDateString('fr', { dateStyle: 'long' })}.`,
    );
    expect(french.text).not.toContain('Votre mot de passe a été modifié.');
  });
});
