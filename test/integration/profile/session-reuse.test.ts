// Issue #17 item 5: a signed-in browser coming back to /profile-settings reuses our session as it is. The
// CSRF token stays the one of the session (csrf-sync does not mint a new one per page), so nothing is
// stored again and no session cookie is sent again: only the store's expiry is touched. (The bench once
// paid for a new session on every GET, about 1–1.5% of this page's CPU: its plain-HTTP requests never got
// the Secure cookie; scripts/bench-stack.mjs now asks as over HTTPS.)
import { afterAll, afterEach, beforeAll, expect, test, vi } from 'vitest';
import { BoundedMemoryStore } from '../../../server/session.ts';
import { hiddenValue } from '../../support/http.ts';
import { startProfileStack, useProfileUsers, type ProfileStack } from './profile-stack.ts';

let env: ProfileStack;
beforeAll(async () => {
  env = await startProfileStack();
});
afterAll(() => env?.close());
afterEach(() => vi.restoreAllMocks());
const users = useProfileUsers(() => env);

test('repeated GETs of /profile-settings store nothing and set no session cookie; the token stays', async () => {
  const u = await users.signedIn();
  const sessionCookie = u.browser.cookies.get('accounts.sid');
  expect(sessionCookie).toBeDefined();
  const stored = vi.spyOn(BoundedMemoryStore.prototype, 'set');
  const touched = vi.spyOn(BoundedMemoryStore.prototype, 'touch');
  for (let visit = 0; visit < 3; visit += 1) {
    const page = await u.browser.get(u.settingsAction);
    expect(page.status).toBe(200);
    expect(hiddenValue(page.text, '_csrf')).toBe(u.csrf);
    expect(page.setCookies.filter((line) => line.startsWith('accounts.sid='))).toEqual([]);
  }
  expect(stored).not.toHaveBeenCalled();
  expect(touched).toHaveBeenCalledTimes(3);
  expect(u.browser.cookies.get('accounts.sid')).toBe(sessionCookie);
});
