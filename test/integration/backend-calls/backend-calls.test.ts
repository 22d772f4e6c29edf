// The backend calls of spec §7 the app makes around sign-up, sign-in and recovery (decision 150), read from
// the backend stand-in's own record of the calls it received (GET /api/admin/calls). On the stand-in and on
// real Kratos (integration-ory).
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { jwtVerify } from 'jose';
import { getIdentity, signIn, STRONG_PASSWORD } from '../../support/fixtures.ts';
import { Browser, formAction, hiddenValue } from '../../support/http.ts';
import { ADMIN_KEY, CANNY_PRIVATE_KEY, startProfileStack, useProfileUsers, type ProfileStack } from '../profile/profile-stack.ts';

let env: ProfileStack;
beforeAll(async () => {
  env = await startProfileStack();
});
afterAll(() => env?.close());
const { identities } = useProfileUsers(() => env);

type Call = { method: string; path: string; status: number; at: string };

async function admin<T>(path: string): Promise<T> {
  const response = await fetch(`${env.backend.url}/api/admin/${path}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}
const calls = async (path: string) => (await admin<{ calls: Call[] }>(`calls?path=${encodeURIComponent(path)}`)).calls;
const usersOf = async (email: string) => (await admin<{ users: { name: string | null }[] }>(`users?email=${encodeURIComponent(email)}`)).users;

/** Every call the app may have started has been answered (the identity and backend proxies are idle). */
const settled = () =>
  vi.waitFor(() => {
    if (env.backendProxy.inFlight + env.identityProxy.inFlight > 0) throw new Error('calls under way');
  });

describe('auth/sign-up', () => {
  test('after a registration, at the first sign-in: once, with the name the feedback board then shows', async () => {
    const before = (await calls('auth/sign-up')).length;
    const person = await identities.signUp(env.appUrl, { prefix: 'backend-signup', name: 'Ivy Registered', verify: true });
    // Verified but not signed in yet (password sign-ups verify first): the backend has not been told.
    expect((await calls('auth/sign-up')).length).toBe(before);

    const browser = new Browser(env.appUrl);
    expect((await signIn(browser, person.email, STRONG_PASSWORD)).status).toBe(303);
    await vi.waitFor(async () => expect((await calls('auth/sign-up')).length).toBe(before + 1));
    const [call] = (await calls('auth/sign-up')).slice(before);
    expect(call).toMatchObject({ method: 'POST', status: 201 });
    expect((await usersOf(person.email)).map((u) => u.name)).toEqual(['Ivy Registered']);
    // Marked on the identity, so a later sign-in sends it no more.
    await vi.waitFor(async () => expect((await getIdentity(env.identityAdminUrl, person.id)).metadata_public).toHaveProperty('backendSignedUpAt'));
    expect((await signIn(new Browser(env.appUrl), person.email, STRONG_PASSWORD)).status).toBe(303);
    await settled();
    expect((await calls('auth/sign-up')).length).toBe(before + 1);

    // The feedback board's token carries the name, not the address's local part.
    const canny = await browser.get(`/authentication/canny?redirect=${encodeURIComponent('https://feedback.canny.io/x')}`);
    const token = new URL(canny.location!).searchParams.get('ssoToken')!;
    const { payload } = await jwtVerify(token, new TextEncoder().encode(CANNY_PRIVATE_KEY));
    expect(payload.name).toBe('Ivy Registered');
  });

  test('a backend that refuses the call does not stop the sign-in; the next sign-in tries again', async () => {
    const person = await identities.create({ prefix: 'backend-refuses', name: 'Rae Refused' });
    const before = (await calls('auth/sign-up')).length;
    env.backendProxy.refuseNext = 1; // the first backend call with a token: the sign-up
    const browser = new Browser(env.appUrl);
    const answer = await signIn(browser, person.email, person.password!);
    expect(answer.status).toBe(303);
    expect(answer.location).toBe('/');
    await settled();
    expect((await getIdentity(env.identityAdminUrl, person.id)).metadata_public ?? {}).not.toHaveProperty('backendSignedUpAt');
    expect((await signIn(new Browser(env.appUrl), person.email, person.password!)).status).toBe(303);
    await vi.waitFor(async () => expect((await calls('auth/sign-up')).slice(before).map((c) => c.status)).toEqual([201]));
  });
});

describe('auth/forget-last-access-account', () => {
  test('"forget this account" tells the backend by the remembered address', async () => {
    const person = await identities.create({ prefix: 'backend-forget' });
    const browser = new Browser(env.appUrl);
    expect((await signIn(browser, person.email, person.password!)).status).toBe(303);
    expect(browser.cookies.has('last_access_account')).toBe(true);
    const before = (await calls('auth/forget-last-access-account')).length;
    const forgotten = await browser.post('/sign-in/forget-account', {}, { origin: new URL(env.appUrl).origin, 'sec-fetch-site': 'same-origin' });
    expect(forgotten.status).toBe(303);
    expect(browser.cookies.has('last_access_account')).toBe(false);
    await vi.waitFor(async () =>
      expect((await calls('auth/forget-last-access-account')).slice(before)).toEqual([expect.objectContaining({ method: 'POST', status: 200 })]),
    );
    // Without a remembered account there is nothing to tell.
    await new Browser(env.appUrl).post('/sign-in/forget-account', {}, { origin: new URL(env.appUrl).origin, 'sec-fetch-site': 'same-origin' });
    await settled();
    expect((await calls('auth/forget-last-access-account')).length).toBe(before + 1);
  });
});

describe('auth/forgot-password', () => {
  test('a recovery request tells the backend, for a known and an unknown address alike', async () => {
    const person = await identities.create({ prefix: 'backend-recovery' });
    const before = (await calls('auth/forgot-password')).length;
    for (const email of [person.email, `nobody-${Date.now()}@example.com`]) {
      const browser = new Browser(env.appUrl);
      const page = await browser.follow('/forgot-password');
      const action = formAction(page.text, 'forgot-password-form') ?? page.url;
      const sent = await browser.post(action, { csrf_token: hiddenValue(page.text, 'csrf_token')!, method: 'code', email });
      expect(sent.status).toBe(303);
    }
    await vi.waitFor(async () => expect((await calls('auth/forgot-password')).slice(before).map((c) => c.status)).toEqual([202, 202]));
  });
});
