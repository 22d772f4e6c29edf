// Issue 10 #7: our own session (accounts.sid, holding the CSRF token of our forms) is regenerated when
// who is signed in changes, and destroyed on sign-out, so a planted session id is worth nothing.
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { BoundedMemoryStore } from '../../../server/session.ts';
import { signIn, STRONG_PASSWORD, uniqueEmail, useIdentities } from '../../support/fixtures.ts';
import { Browser, hiddenValue } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());
afterEach(() => vi.restoreAllMocks());
const identities = useIdentities(() => stack.identity.adminUrl);

/** The session id inside a signed `accounts.sid` cookie value (`s:<id>.<signature>`). */
const sidOf = (cookie: string) => decodeURIComponent(cookie).slice(2).split('.')[0]!;

/** An attacker with an account of their own: a session of ours and the CSRF token that goes with it. */
async function plantableSession(): Promise<{ cookie: string; token: string }> {
  const email = uniqueEmail('attacker');
  await identities.create({ email });
  const attacker = new Browser(stack.appUrl);
  expect((await signIn(attacker, email)).status).toBe(303);
  const page = await attacker.get('/logout');
  const token = hiddenValue(page.text, '_csrf')!;
  expect(token).toMatch(/^[0-9a-f]{64}$/);
  return { cookie: attacker.cookies.get('accounts.sid')!, token };
}

describe('session fixation', () => {
  test('a session planted before sign-in is gone after it, and its CSRF token no longer works', async () => {
    const destroyed = vi.spyOn(BoundedMemoryStore.prototype, 'destroy');
    const planted = await plantableSession();
    const email = uniqueEmail('victim');
    await identities.create({ email });
    const victim = new Browser(stack.appUrl);
    victim.cookies.set('accounts.sid', planted.cookie);
    expect((await signIn(victim, email)).status).toBe(303);
    expect(destroyed).toHaveBeenCalledWith(sidOf(planted.cookie), expect.any(Function));

    // The forged request carries the victim's cookies (the planted id included) and the attacker's token.
    victim.cookies.set('accounts.sid', planted.cookie);
    const forged = await victim.post('/logout', { _csrf: planted.token });
    expect(forged.status).toBe(403);
    expect((await victim.get('/')).status).toBe(200); // still signed in

    // The victim's own pages get a token of a new session, which works.
    const page = await victim.get('/logout');
    const token = hiddenValue(page.text, '_csrf')!;
    expect(token).not.toBe(planted.token);
    expect(sidOf(victim.cookies.get('accounts.sid')!)).not.toBe(sidOf(planted.cookie));
    expect((await victim.post('/logout', { _csrf: token })).status).toBe(303);
  });

  test('a session planted while the victim is already signed in is replaced before its page gets a token', async () => {
    const email = uniqueEmail('signed-in-victim');
    await identities.create({ email });
    const victim = new Browser(stack.appUrl);
    expect((await signIn(victim, email)).status).toBe(303);
    const planted = await plantableSession();
    victim.cookies.set('accounts.sid', planted.cookie);
    const page = await victim.get('/logout');
    const token = hiddenValue(page.text, '_csrf')!;
    expect(token).not.toBe(planted.token);
    expect(sidOf(victim.cookies.get('accounts.sid')!)).not.toBe(sidOf(planted.cookie));
    victim.cookies.set('accounts.sid', planted.cookie);
    expect((await victim.post('/logout', { _csrf: planted.token })).status).toBe(403);
  });

  test('the same person staying signed in (a refresh sign-in) keeps the session and its token', async () => {
    const email = uniqueEmail('refreshing');
    await identities.create({ email });
    const browser = new Browser(stack.appUrl);
    await signIn(browser, email);
    const token = hiddenValue((await browser.get('/logout')).text, '_csrf')!;
    const before = sidOf(browser.cookies.get('accounts.sid')!);
    const answer = await signIn(browser, email, STRONG_PASSWORD, '?refresh=true');
    expect(answer.status).toBe(303);
    expect(sidOf(browser.cookies.get('accounts.sid')!)).toBe(before);
    expect(hiddenValue((await browser.get('/logout')).text, '_csrf')).toBe(token);
  });

  test('sign-out destroys our session and expires its cookie: the token used before is dead', async () => {
    const email = uniqueEmail('leaving');
    await identities.create({ email });
    const browser = new Browser(stack.appUrl);
    await signIn(browser, email);
    const page = await browser.get('/logout');
    const token = hiddenValue(page.text, '_csrf')!;
    const cookie = browser.cookies.get('accounts.sid')!;
    const destroyed = vi.spyOn(BoundedMemoryStore.prototype, 'destroy');
    const answer = await browser.post('/logout', { _csrf: token });
    expect(answer.status).toBe(303);
    expect(destroyed).toHaveBeenCalledWith(sidOf(cookie), expect.any(Function));
    expect(answer.setCookies.some((line) => line.startsWith('accounts.sid=;') && /expires=Thu, 01 Jan 1970/i.test(line))).toBe(true);

    // Signed in again with the old cookie put back: the old token is refused.
    await signIn(browser, email);
    browser.cookies.set('accounts.sid', cookie);
    expect((await browser.post('/logout', { _csrf: token })).status).toBe(403);
  });
});
