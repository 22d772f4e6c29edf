// A social sign-up completes in Kratos's callback, without our sign-up handler: the backend still learns
// the account (auth/sign-up, with the provider's name) at the landing after it, and the authentication
// cookie is set there (decision 150). On the stand-in and real Kratos, with the embedded providers.
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { findIdentity, getIdentity, uniqueEmail } from '../../support/fixtures.ts';
import { Browser } from '../../support/http.ts';
import { socialRoundTrip } from '../social/social-support.ts';
import { ADMIN_KEY, startProfileStack, useProfileUsers, type ProfileStack } from '../profile/profile-stack.ts';

let env: ProfileStack;
beforeAll(async () => {
  env = await startProfileStack({ socialProviders: true });
});
afterAll(() => env?.close());
const { identities } = useProfileUsers(() => env);

async function admin<T>(path: string): Promise<T> {
  const response = await fetch(`${env.backend.url}/api/admin/${path}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  return (await response.json()) as T;
}

test('signing up with a provider: auth/sign-up once with the name the provider gave, and the authentication cookie', async () => {
  const email = uniqueEmail('social-backend');
  env.stack.providers!.addAccount('microsoft', { email, name: 'Mira Social' });
  identities.track(email);
  const before = (await admin<{ calls: unknown[] }>('calls?path=auth/sign-up')).calls.length;
  const browser = new Browser(env.appUrl);
  const end = await socialRoundTrip(env.stack, browser, '/sign-up', 'microsoft', { email });
  expect(end.url).toBe(`${env.appUrl}/`);
  expect(browser.cookies.has('auth_token_test')).toBe(true);

  await vi.waitFor(async () => {
    const { users } = await admin<{ users: { name: string | null }[] }>(`users?email=${encodeURIComponent(email)}`);
    expect(users.map((u) => u.name)).toEqual(['Mira Social']);
  });
  const id = (await findIdentity(env.identityAdminUrl, email))!.id;
  await vi.waitFor(async () => expect((await getIdentity(env.identityAdminUrl, id)).metadata_public).toHaveProperty('backendSignedUpAt'));
  // Later landings send it no more.
  await browser.get('/sign-in');
  await browser.get('/');
  expect((await admin<{ calls: unknown[] }>('calls?path=auth/sign-up')).calls.length).toBe(before + 1);
});
