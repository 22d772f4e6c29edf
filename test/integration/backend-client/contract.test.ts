import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { AppError } from '../../../core/errors.ts';
import { createBackendClient, type BackendClient } from '../../../server/backend-client.ts';
import { uniqueEmail } from '../../support/fixtures.ts';
import { startProfileStack, useProfileUsers, type ProfileStack } from '../profile/profile-stack.ts';

// The backend client against the real backend stand-in and identity service: every call of spec §7
// reaches the route the backend documents, with the body it expects.

let env: ProfileStack;
let client: BackendClient;
beforeAll(async () => {
  env = await startProfileStack();
  client = createBackendClient({ backendUrl: env.backend.url, kratosPublicUrl: env.stack.identity.publicUrl });
});
afterAll(() => env?.close());
const users = useProfileUsers(() => env);

async function caller() {
  const u = await users.signedIn({ prefix: 'contract' });
  return { u, caller: { cookie: u.browser.cookieHeader() } };
}

describe('backend client ↔ backend stand-in', () => {
  test('user calls', async () => {
    const { u, caller: who } = await caller();
    const user = await client.getCurrentUser(who);
    expect(user).toMatchObject({ identityId: u.id, email: u.email, state: 'active', avatarRemoteId: null });
    const owner = (await client.getOrganizationTeamOwner(who)) as { owner: { identityId: string } };
    expect(owner.owner.identityId).toBe(u.id);
    const updated = (await client.updateIdentityId(who, u.id)) as { updated: boolean };
    expect(updated.updated).toBe(false);
    const mismatch = await client.updateIdentityId(who, 'someone-else').catch((e: unknown) => e);
    expect(mismatch).toBeInstanceOf(AppError);
    expect((mismatch as AppError).code).toBe('identity_mismatch');
    const linked = (await client.confirmLinkAccount(who, { provider: 'google', email: u.email })) as { linked: boolean };
    expect(linked.linked).toBe(true);
    const wrong = await client.confirmLinkAccount(who, { provider: 'google', email: 'other@example.com' }).catch((e: unknown) => e);
    expect((wrong as AppError).toJSON()).toMatchObject({ code: 'wrong_account_selected', meta: { expectedEmail: u.email } });
  });

  test('auth calls', async () => {
    const { caller: who } = await caller();
    const signedUp = await client.signUp(who, { name: 'Contract' });
    expect(signedUp.user.state).toBe('active');
    expect(await client.signOut(who, { loginService: 'EMAIL_PASSWORD' })).toEqual({ ok: true });
    expect(((await client.getCurrentUser(who)).lastAccessAccount as { loginService: string }).loginService).toBe('EMAIL_PASSWORD');
    expect(await client.forgetLastAccessAccount(who)).toEqual({ ok: true });
    expect((await client.getCurrentUser(who)).lastAccessAccount).toBeNull();
    expect(await client.forgetLastAccessAccountByEmail(uniqueEmail('nobody'))).toEqual({ ok: true });
    expect(await client.forgotPassword(uniqueEmail('nobody'))).toEqual({ ok: true });
    const canny = await client.getCannyRedirectUrl(who, 'https://feedback.canny.io/x');
    expect(canny.redirectUrl).toMatch(/^https:\/\/canny\.io\/api\/redirects\/sso\?/);
  });

  test('deletion and force log-out end the session and drop its token', async () => {
    const { u, caller: who } = await caller();
    const deleted = await client.deleteAccount(who, 'testing');
    expect(deleted).toMatchObject({ state: 'pending_deletion', gracePeriodDays: 30 });
    // The backend revoked the sessions: this browser is signed out now.
    const after = await client.getCurrentUser({ cookie: u.browser.cookieHeader() }).catch((e: unknown) => e);
    expect((after as AppError).code).toBe('session_inactive');

    const again = await users.signedIn({ prefix: 'contract-2' });
    const fresh = { cookie: again.browser.cookieHeader() };
    expect((await client.forceLogOut(fresh)) as object).toEqual({ ok: true });
    const out = await client.getCurrentUser(fresh).catch((e: unknown) => e);
    expect((out as AppError).code).toBe('session_inactive');
  });
});
