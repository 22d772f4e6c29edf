import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Browser } from '../../support/http.ts';
import { startProfileStack, useProfileUsers, type ProfileStack } from './profile-stack.ts';

describe('a settings flow opened by account recovery', () => {
  let env: ProfileStack;
  beforeAll(async () => {
    env = await startProfileStack();
  });
  afterAll(() => env?.close());
  const users = useProfileUsers(() => env);

  test('shows the password part first, with the recovery notice', async () => {
    const { id: identityId } = await users.identities.create({ prefix: 'recovered' });
    const link = await fetch(`${env.identityAdminUrl}/admin/recovery/link`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ identity_id: identityId, expires_in: '5m' }),
    });
    expect(link.status).toBe(200);
    const { recovery_link } = (await link.json()) as { recovery_link: string };
    const browser = new Browser(env.appUrl);
    const followed = await browser.get(recovery_link);
    expect(followed.status).toBe(303);
    const target = new URL(followed.location!, recovery_link);
    expect(target.pathname).toBe('/profile-settings');
    const page = await browser.get(target.pathname + target.search);
    expect(page.status).toBe(200);
    expect(page.text).toContain('You successfully recovered your account.');
    const order = ['id="password"', 'id="avatar"', 'id="profile"'].map((marker) => page.text.indexOf(marker));
    expect(order.every((index) => index > 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  test('a normal visit keeps the usual order (avatar, details, password)', async () => {
    const u = await users.signedIn({ prefix: 'order' });
    const order = ['id="avatar"', 'id="profile"', 'id="password"'].map((marker) => u.page.indexOf(marker));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(u.page).not.toContain('You successfully recovered your account.');
  });
});

// The login services (link, unlink, the last way in) are tested with the embedded providers in linked-logins*.test.ts.
