import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestClock } from '../../../embedded/clock.ts';
import { signIn, uniqueEmail, useIdentities } from '../../support/fixtures.ts';
import { alerts, Browser, hiddenValue, visibleText } from '../../support/http.ts';
import { LOG_REASONS } from '../../../server/log-reasons.ts';
import { catalogueText } from '../../support/browser.ts';
import { startProfileStack, type ProfileStack } from '../profile/profile-stack.ts';

// Sign-up through an invitation the backend issued: the invitation screen on the stack with the backend
// stand-in (admin route for invitations), accounts it creates deleted after each test.

let env: ProfileStack;
beforeAll(async () => {
  env = await startProfileStack();
});
afterAll(() => env?.close());
const identities = useIdentities(() => env.identityAdminUrl);

/** A unique address whose account (if a test makes one) is deleted after the test. */
function invitedEmail(prefix: string): string {
  const email = uniqueEmail(prefix);
  identities.track(email);
  return email;
}

const PASSWORD = 'Saffron-Glacier-Tunnel-27';

async function openInvitation(browser: Browser, token: string) {
  const page = await browser.get(`/sign-up/invitation?token=${encodeURIComponent(token)}`);
  return { page, csrf: hiddenValue(page.text, '_csrf') };
}

describe('/sign-up/invitation', () => {
  test('a good token prefills and locks the e-mail; signing up creates the account and signs in', async () => {
    const email = invitedEmail('invited');
    const token = await env.invite(email);
    const browser = new Browser(env.appUrl);
    const { page, csrf } = await openInvitation(browser, token);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`You were invited to create an account with ${email}.`);
    const emailInput = /<input[^>]*id="invitation-email"[^>]*>/.exec(page.text)?.[0] ?? '';
    expect(emailInput).toContain(`value="${email}"`);
    expect(emailInput).toContain('readOnly=""');
    expect(emailInput).not.toMatch(/name="[^"]+"/);
    expect(hiddenValue(page.text, 'token')).toBe(token);

    const answer = await browser.post('/sign-up/invitation', {
      _csrf: csrf!,
      token,
      name: 'Invited Ivy',
      password: PASSWORD,
      terms: 'on',
      email: 'attacker@example.com',
    });
    expect(answer.status).toBe(303);
    expect(answer.location).toBe('/');
    // Signed in: the profile opens, with the invited address (not the one sent along).
    const profile = await browser.follow('/profile-settings');
    expect(profile.status).toBe(200);
    expect(profile.text).toContain(`value="${email}"`);
    expect(profile.text).toContain('value="Invited Ivy"');
    expect(profile.text).not.toContain('attacker@example.com');
    expect((await signIn(new Browser(env.appUrl), email, PASSWORD)).status).toBe(303);

    // The token is used up now.
    const again = await new Browser(env.appUrl).get(`/sign-up/invitation?token=${encodeURIComponent(token)}`);
    expect(again.status).toBe(410);
    expect(again.text).toContain('This invitation has already been used.');
  });

  test('bad and missing tokens get clear translated pages', async () => {
    const browser = new Browser(env.appUrl);
    const bad = await browser.get('/sign-up/invitation?token=not-a-real-token');
    expect(bad.status).toBe(404);
    expect(bad.text).toContain('This invitation link is not valid.');
    const garbage = await browser.get('/sign-up/invitation?token=%3Cscript%3E');
    expect(garbage.status).toBe(404);
    expect(garbage.text).not.toContain('<script>');
    const missing = await browser.get('/sign-up/invitation');
    expect(missing.status).toBe(400);
    expect(missing.text).toContain('This link has no invitation code.');
    const french = await browser.get('/sign-up/invitation?token=nope&lng=fr');
    expect(french.text).toContain('Ce lien d’invitation n’est pas valide.');
    const json = await browser.get('/sign-up/invitation?token=nope', { accept: 'application/json' });
    expect(json.status).toBe(404);
    expect(JSON.parse(json.text)).toMatchObject({ code: 'invalid_invitation_token' });
  });

  test("the identity service's password policy applies: a password like the address is refused on the profile's password form, never usable", async () => {
    const email = invitedEmail('policy');
    const token = await env.invite(email);
    const browser = new Browser(env.appUrl);
    const { csrf } = await openInvitation(browser, token);
    const answer = await browser.post('/sign-up/invitation', { _csrf: csrf!, token, password: email, terms: 'on' });
    expect(answer.status).toBe(303);
    const to = new URL(answer.location!, env.appUrl);
    expect(to.pathname).toBe('/profile-settings');
    expect(to.hash).toBe('#password');
    // Signed in, on the password form with the reason (Kratos's 4000031: too similar to the address) and our notice.
    const profile = await browser.follow(`${to.pathname}${to.search}`);
    expect(profile.status).toBe(200);
    expect(profile.text).toContain('id="field-password-error"');
    expect(visibleText(profile.text)).toContain(catalogueText('en', 'errorMessage.similarPassword'));
    expect(profile.text).toContain(catalogueText('en', 'invitation.choosePassword'));
    // The refused password signs nobody in; the invitation is used.
    expect((await signIn(new Browser(env.appUrl), email, email)).status).not.toBe(303);
    expect((await new Browser(env.appUrl).get(`/sign-up/invitation?token=${encodeURIComponent(token)}`)).status).toBe(410);

    // JSON says the same: signed in, the password refused and why, the way to the password form.
    const other = invitedEmail('policy-json');
    const otherToken = await env.invite(other);
    const jsonBrowser = new Browser(env.appUrl);
    const opened = await openInvitation(jsonBrowser, otherToken);
    const json = await jsonBrowser.postJson('/sign-up/invitation', { _csrf: opened.csrf!, token: otherToken, password: other, terms: true });
    expect(json.status).toBe(200);
    expect(JSON.parse(json.text)).toMatchObject({
      email: other,
      signedIn: true,
      redirect_to: expect.stringMatching(/^\/profile-settings\?flow=[0-9a-f-]{36}#password$/),
      passwordRefused: expect.stringContaining('too similar'),
    });
  });

  test('validation: short password and missing terms are shown on their fields; nothing is created', async () => {
    const email = invitedEmail('invalid');
    const token = await env.invite(email);
    const browser = new Browser(env.appUrl);
    const { csrf } = await openInvitation(browser, token);
    const answer = await browser.post('/sign-up/invitation', { _csrf: csrf!, token, password: 'short' }, { 'x-enhance': '1' });
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('id="invitation-form"');
    expect(answer.text).toMatch(/invitation-password-error/);
    expect(answer.text).toMatch(/invitation-terms-error/);
    const json = await browser.postJson('/sign-up/invitation', { _csrf: csrf!, token, password: 'short', terms: true });
    expect(json.status).toBe(400);
    expect(JSON.parse(json.text)).toMatchObject({ code: 'validation_error' });
    // Still usable.
    expect((await browser.get(`/sign-up/invitation?token=${token}`)).status).toBe(200);
  });

  test('a sign-up the backend refuses for a reason it does not name: a form-level message, the form kept, nothing created', async () => {
    const email = invitedEmail('refused');
    const token = await env.invite(email);
    const browser = new Browser(env.appUrl);
    const { csrf } = await openInvitation(browser, token);
    env.backendProxy.failNext.push({ status: 400, code: 'identity_rejected' });
    const answer = await browser.post('/sign-up/invitation', { _csrf: csrf!, token, name: 'Ana', password: PASSWORD, terms: 'on' });
    expect(answer.status).toBe(400);
    expect(alerts(answer.text)).toContain('Something went wrong. Please try again.');
    expect(answer.text).not.toMatch(/invitation-password-error/);
    expect(answer.text).toContain('value="Ana"');
    env.backendProxy.failNext.push({ status: 400, code: 'identity_rejected' });
    const json = await browser.postJson('/sign-up/invitation', { _csrf: csrf!, token, password: PASSWORD, terms: true });
    expect(json.status).toBe(400);
    expect(JSON.parse(json.text)).toMatchObject({ code: 'identity_rejected' });
    expect(
      env.stack
        .appLog()
        .map((line) => JSON.parse(line) as { msg?: string; reason?: string })
        .filter((line) => line.msg === 'invitation sign-up refused')
        .at(-1),
    ).toMatchObject({
      reason: LOG_REASONS.unknown,
    });
    // The invitation is still good: the next try signs up.
    expect((await browser.post('/sign-up/invitation', { _csrf: csrf!, token, password: PASSWORD, terms: 'on' })).status).toBe(303);
  });

  test('needs our CSRF token', async () => {
    const token = await env.invite(invitedEmail('csrf'));
    const browser = new Browser(env.appUrl);
    await openInvitation(browser, token);
    const answer = await browser.post('/sign-up/invitation', { token, password: PASSWORD, terms: 'on' });
    expect(answer.status).toBe(403);
    expect((await browser.get(`/sign-up/invitation?token=${token}`)).status).toBe(200);
  });

  test('an invitation for an address that already has an account says so and offers sign-in', async () => {
    const email = invitedEmail('exists');
    const first = await env.invite(email);
    const browser = new Browser(env.appUrl);
    const { csrf } = await openInvitation(browser, first);
    expect((await browser.post('/sign-up/invitation', { _csrf: csrf!, token: first, password: PASSWORD, terms: 'on' })).status).toBe(303);
    const second = await env.invite(email);
    const other = new Browser(env.appUrl);
    const opened = await openInvitation(other, second);
    const answer = await other.post('/sign-up/invitation', { _csrf: opened.csrf!, token: second, password: PASSWORD, terms: 'on' });
    expect(answer.status).toBe(409);
    expect(answer.text).toContain('An account with this email address already exists.');
    expect(answer.text).toContain(`href="/sign-in?loginHint=${encodeURIComponent(email)}"`);
  });
});

describe('/sign-up/invitation with an expired token', () => {
  // The backend judges invitations by the test clock: moved past the expiry, not waited for. The identity
  // service has no part in it and keeps the real time, so this runs on real Kratos too.
  const clock = createTestClock();
  let clocked: ProfileStack;
  beforeAll(async () => {
    clocked = await startProfileStack({ clock, clockScope: 'backend' });
  });
  afterAll(() => clocked?.close());
  const clockedIdentities = useIdentities(() => clocked.identityAdminUrl);

  test('is refused with the expired page, before and after the form is sent', async () => {
    const email = uniqueEmail('late');
    clockedIdentities.track(email);
    const token = await clocked.invite(email, 60);
    const browser = new Browser(clocked.appUrl);
    const page = await browser.get(`/sign-up/invitation?token=${token}`);
    expect(page.status).toBe(200);
    const csrf = hiddenValue(page.text, '_csrf')!;
    clock.advance(61_000);
    const opened = await new Browser(clocked.appUrl).get(`/sign-up/invitation?token=${token}`);
    expect(opened.status).toBe(410);
    expect(opened.text).toContain('This invitation has expired.');
    const sent = await browser.post('/sign-up/invitation', { _csrf: csrf, token, password: PASSWORD, terms: 'on' });
    expect(sent.status).toBe(410);
    expect(sent.text).toContain('This invitation has expired.');
  });
});
