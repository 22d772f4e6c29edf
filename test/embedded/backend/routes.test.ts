import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import request from 'supertest';
import { randomUUID } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { createTestClock } from '../../../embedded/clock.ts';
import { ADMIN_KEY, makeKeys, mint, startFakeAdmin, startTestBackend, type FakeAdmin, type Keys, type TestBackend } from './helpers.ts';

const CANNY_COMPANY = '5f0c0ffee0ddba11c0ffee00';
const CANNY_KEY = 'canny-private-key-for-tests';
const DAY = 86_400_000;

describe('backend stand-in: spec §7 routes', () => {
  let keys: Keys;
  let admin: FakeAdmin;
  let backend: TestBackend;
  const clock = createTestClock();

  beforeAll(async () => {
    keys = await makeKeys();
    admin = await startFakeAdmin();
    backend = await startTestBackend({
      jwks: keys.jwks,
      identityAdminUrl: admin.url,
      identityAdminApiKey: ADMIN_KEY,
      cannyCompanyId: CANNY_COMPANY,
      cannyPrivateKey: CANNY_KEY,
      cannyAllowedRedirectHosts: ['*.canny.io', 'feedback.example.com'],
      locationHeaders: { country: 'x-geo-country', region: 'x-geo-region' },
      corsOrigins: ['http://app.test'],
      clock,
    });
  });
  afterAll(async () => {
    await backend.close();
    await admin.close();
  });
  beforeEach(() => {
    clock.set(Date.now());
    admin.calls.length = 0;
  });

  const api = () => request(backend.url);
  /** A fresh identity (known to the fake admin) and a token for it. */
  const newUser = async (email = `u${randomUUID().slice(0, 8)}@example.com`) => {
    const identity = admin.add(email);
    const token = await mint(keys, { sub: identity.id, email, now: clock.now() });
    return { identity, email, token, auth: `Bearer ${token}` };
  };

  it('POST auth/sign-up creates the user record (201), then answers 200; extra fields are ignored', async () => {
    const u = await newUser();
    const res = await api()
      .post('/api/auth/sign-up')
      .set('Authorization', u.auth)
      .send({
        name: 'Ada',
        verified: true,
        state: 'deleted',
        metadata_admin: { role: 'admin' },
        _id: 'aaaaaaaaaaaaaaaaaaaaaaaa',
        identityId: 'someone-else',
        avatarRemoteId: 'x.png',
      })
      .expect(201);
    expect(res.body.created).toBe(true);
    expect(res.body.user).toMatchObject({ identityId: u.identity.id, email: u.email, name: 'Ada', state: 'active', avatarRemoteId: null });
    expect(res.body.user._id).not.toBe('aaaaaaaaaaaaaaaaaaaaaaaa');
    expect(res.body.user).not.toHaveProperty('verified');
    expect(res.body.user).not.toHaveProperty('metadata_admin');
    const again = await api().post('/api/auth/sign-up').set('Authorization', u.auth).send({}).expect(200);
    expect(again.body.created).toBe(false);
    expect(again.body.user._id).toBe(res.body.user._id);
  });

  it('POST auth/sign-up requires a token', async () => {
    expect((await api().post('/api/auth/sign-up').send({}).expect(401)).body.code).toBe('unauthorized');
  });

  it('POST auth/forgot-password creates a 5-minute recovery link through the admin API, without revealing unknown emails', async () => {
    const u = await newUser();
    await api().post('/api/auth/forgot-password').send({ email: u.email.toUpperCase() }).expect(202, { ok: true });
    const link = admin.calls.find((c) => c.path === '/admin/recovery/link');
    expect(link?.body).toEqual({ identity_id: u.identity.id, expires_in: '5m' });
    expect(link?.auth).toBe(`Bearer ${ADMIN_KEY}`);
    await api().post('/api/auth/forgot-password').send({ email: 'nobody@example.com' }).expect(202, { ok: true });
    const outbox = await api().get('/api/admin/outbox').set('Authorization', `Bearer ${ADMIN_KEY}`).expect(200);
    expect(outbox.body.messages).toHaveLength(1);
    expect(outbox.body.messages[0]).toMatchObject({ kind: 'recovery', email: u.email, identityId: u.identity.id });
    expect(outbox.body.messages[0].link).toContain('/self-service/recovery?flow=');
    expect((await api().post('/api/auth/forgot-password').send({ email: 'not-an-email' }).expect(400)).body.code).toBe('invalid_body');
    expect((await api().post('/api/auth/forgot-password').send({}).expect(400)).body.code).toBe('invalid_body');
  });

  it('POST auth/sign-out remembers the last access account; auth/forget-last-access-account forgets it', async () => {
    const u = await newUser();
    await api().post('/api/auth/sign-out').set('Authorization', u.auth).send({ loginService: 'google' }).expect(200, { ok: true });
    let me = await api().get('/api/user/get-current-user').set('Authorization', u.auth).expect(200);
    expect(me.body.lastAccessAccount).toMatchObject({ email: u.email, loginService: 'GOOGLE' });
    await api().post('/api/auth/forget-last-access-account').set('Authorization', u.auth).expect(200, { ok: true });
    me = await api().get('/api/user/get-current-user').set('Authorization', u.auth).expect(200);
    expect(me.body.lastAccessAccount).toBeNull();
    // as a guest, by email
    await api().post('/api/auth/sign-out').set('Authorization', u.auth).send({}).expect(200);
    await api().post('/api/auth/forget-last-access-account').send({ email: u.email }).expect(200, { ok: true });
    me = await api().get('/api/user/get-current-user').set('Authorization', u.auth).expect(200);
    expect(me.body.lastAccessAccount).toBeNull();
    await api().post('/api/auth/forget-last-access-account').send({}).expect(400);
    await api().post('/api/auth/sign-out').set('Authorization', u.auth).send({ loginService: 'myspace' }).expect(400);
  });

  describe('invitations', () => {
    const invite = async (email: string, extra: Record<string, unknown> = {}) =>
      (
        await api()
          .post('/api/admin/invitations')
          .set('Authorization', `Bearer ${ADMIN_KEY}`)
          .send({ email, ...extra })
          .expect(201)
      ).body as {
        token: string;
        email: string;
        expiresAt: string;
      };

    it('POST admin/invitations needs the admin key', async () => {
      await api().post('/api/admin/invitations').send({ email: 'x@example.com' }).expect(401);
      await api().post('/api/admin/invitations').set('Authorization', 'Bearer wrong').send({ email: 'x@example.com' }).expect(401);
      const u = await newUser();
      await api().post('/api/admin/invitations').set('Authorization', u.auth).send({ email: 'x@example.com' }).expect(401);
    });

    it('GET auth/invitation shows the invited email; POST auth/sign-up-invitation creates a verified identity once', async () => {
      const inv = await invite('Invitee@Example.com');
      expect(inv.email).toBe('invitee@example.com');
      expect((await api().get('/api/auth/invitation').query({ token: inv.token }).expect(200)).body).toEqual({
        email: 'invitee@example.com',
        expiresAt: inv.expiresAt,
      });
      const res = await api()
        .post('/api/auth/sign-up-invitation')
        .send({ token: inv.token, password: 'correct horse battery', name: 'Invitee', email: 'attacker@example.com', verified: false, state: 'inactive' })
        .expect(201);
      expect(res.body).toMatchObject({ email: 'invitee@example.com', user: { email: 'invitee@example.com', name: 'Invitee', state: 'active' } });
      const create = admin.calls.find((c) => c.method === 'POST' && c.path === '/admin/identities');
      expect(create?.auth).toBe(`Bearer ${ADMIN_KEY}`);
      expect(create?.body).toEqual({
        schema_id: 'default',
        traits: { email: 'invitee@example.com', name: 'Invitee', loginService: 'EMAIL_PASSWORD' },
        state: 'active',
        credentials: { password: { config: { password: 'correct horse battery' } } },
        verifiable_addresses: [{ value: 'invitee@example.com', verified: true, via: 'email', status: 'completed' }],
      });
      expect(admin.identities.get(res.body.identityId)).toBeDefined();
      // used
      const reuse = await api().post('/api/auth/sign-up-invitation').send({ token: inv.token, password: 'another password' }).expect(410);
      expect(reuse.body.code).toBe('invitation_token_used');
      expect((await api().get('/api/auth/invitation').query({ token: inv.token }).expect(410)).body.code).toBe('invitation_token_used');
    });

    it('refuses unknown, expired and malformed invitations, and an email that already exists', async () => {
      expect((await api().post('/api/auth/sign-up-invitation').send({ token: 'nope', password: 'long enough' }).expect(400)).body.code).toBe(
        'invalid_invitation_token',
      );
      expect((await api().get('/api/auth/invitation').query({ token: 'nope' }).expect(404)).body.code).toBe('invalid_invitation_token');
      expect((await api().get('/api/auth/invitation').expect(400)).body.code).toBe('invalid_invitation_token');
      const inv = await invite('late@example.com', { expiresInSeconds: 60 });
      clock.advance(61_000);
      expect((await api().post('/api/auth/sign-up-invitation').send({ token: inv.token, password: 'long enough' }).expect(410)).body.code).toBe(
        'invitation_token_expired',
      );
      expect((await api().get('/api/auth/invitation').query({ token: inv.token }).expect(410)).body.code).toBe('invitation_token_expired');
      clock.set(Date.now());
      const short = await invite('short@example.com');
      expect((await api().post('/api/auth/sign-up-invitation').send({ token: short.token, password: 'short' }).expect(400)).body.code).toBe('invalid_body');
      expect(
        (
          await api()
            .post('/api/auth/sign-up-invitation')
            .send({ token: short.token, password: 'x'.repeat(73) })
            .expect(400)
        ).body.code,
      ).toBe('invalid_body');
      const taken = await newUser();
      const dup = await invite(taken.email);
      expect((await api().post('/api/auth/sign-up-invitation').send({ token: dup.token, password: 'long enough' }).expect(409)).body.code).toBe('email_exists');
      // a failed sign-up does not burn the invitation
      await api().get('/api/auth/invitation').query({ token: dup.token }).expect(200);
    });
  });

  it('GET user/get-current-user returns the record', async () => {
    const u = await newUser();
    const res = await api().get('/api/user/get-current-user').set('Authorization', u.auth).expect(200);
    expect(Object.keys(res.body).sort()).toEqual(
      [
        '_id',
        'identityId',
        'email',
        'name',
        'avatarRemoteId',
        'avatarUrl',
        'state',
        'deletionRequestedAt',
        'deletionScheduledAt',
        'reactivatedAt',
        'lastAccessAccount',
        'linkedAccounts',
        'createdAt',
        'updatedAt',
      ].sort(),
    );
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('GET user/get-organization-team-owner: every user owns their own team', async () => {
    const u = await newUser();
    const res = await api().get('/api/user/get-organization-team-owner').set('Authorization', u.auth).expect(200);
    expect(res.body).toMatchObject({ organization: null, isOwner: true, owner: { identityId: u.identity.id, email: u.email } });
  });

  it('POST auth/force-log-out revokes the identity sessions through the admin API', async () => {
    const u = await newUser();
    await api().post('/api/auth/force-log-out').set('Authorization', u.auth).send({ identityId: 'someone-else' }).expect(200, { ok: true });
    const call = admin.calls.find((c) => c.method === 'DELETE');
    expect(call).toMatchObject({ path: `/admin/identities/${u.identity.id}/sessions`, auth: `Bearer ${ADMIN_KEY}` });
  });

  it('POST user/update-identityId: only the token identity; moves an old record of a deleted identity with the same verified email', async () => {
    const email = `move${randomUUID().slice(0, 6)}@example.com`;
    const old = admin.add(email);
    const oldToken = await mint(keys, { sub: old.id, email });
    const oldUser = (await api().post('/api/auth/sign-up').set('Authorization', `Bearer ${oldToken}`).send({ name: 'Old' }).expect(201)).body.user;
    admin.identities.delete(old.id); // the old identity is gone
    const fresh = admin.add(email);
    const token = await mint(keys, { sub: fresh.id, email });
    const mismatch = await api().post('/api/user/update-identityId').set('Authorization', `Bearer ${token}`).send({ identityId: old.id }).expect(403);
    expect(mismatch.body.code).toBe('identity_mismatch');
    await api().post('/api/user/update-identityId').set('Authorization', `Bearer ${token}`).send({}).expect(400);
    const res = await api().post('/api/user/update-identityId').set('Authorization', `Bearer ${token}`).send({ identityId: fresh.id }).expect(200);
    expect(res.body).toMatchObject({ updated: true, previousIdentityId: old.id, user: { _id: oldUser._id, identityId: fresh.id, name: 'Old' } });
    const again = await api().post('/api/user/update-identityId').set('Authorization', `Bearer ${token}`).send({ identityId: fresh.id }).expect(200);
    expect(again.body).toMatchObject({ updated: false, user: { _id: oldUser._id } });
  });

  it('POST user/update-identityId does not take over a record whose identity still exists or with an unverified email', async () => {
    const email = `keep${randomUUID().slice(0, 6)}@example.com`;
    const first = admin.add(email);
    await api()
      .post('/api/auth/sign-up')
      .set('Authorization', `Bearer ${await mint(keys, { sub: first.id, email })}`)
      .send({})
      .expect(201);
    const second = admin.add(email);
    const token = await mint(keys, { sub: second.id, email });
    const res = await api().post('/api/user/update-identityId').set('Authorization', `Bearer ${token}`).send({ identityId: second.id }).expect(409);
    expect(res.body.code).toBe('identity_conflict');
    admin.identities.delete(first.id);
    const unverified = admin.add(`x${email}`, { verified: false });
    admin.identities.get(unverified.id)!.verifiable_addresses[0]!.value = email;
    admin.identities.get(unverified.id)!.verifiable_addresses[0]!.verified = false;
    const t2 = await mint(keys, { sub: unverified.id, email });
    expect(
      (await api().post('/api/user/update-identityId').set('Authorization', `Bearer ${t2}`).send({ identityId: unverified.id }).expect(409)).body.code,
    ).toBe('identity_conflict');
  });

  it('GET auth/get-canny-redirect-url returns a Canny SSO URL with an HS256 token of email, id, name, avatarURL', async () => {
    const u = await newUser();
    await api().post('/api/auth/sign-up').set('Authorization', u.auth).send({ name: 'Grace Hopper' }).expect(201);
    const redirect = 'https://acme.canny.io/feature-requests';
    const res = await api().get('/api/auth/get-canny-redirect-url').query({ redirect }).set('Authorization', u.auth).expect(200);
    const url = new URL(res.body.redirectUrl);
    expect(url.origin + url.pathname).toBe('https://canny.io/api/redirects/sso');
    expect(url.searchParams.get('companyID')).toBe(CANNY_COMPANY);
    expect(url.searchParams.get('redirect')).toBe(redirect);
    const ssoToken = url.searchParams.get('ssoToken')!;
    expect(decodeProtectedHeader(ssoToken).alg).toBe('HS256');
    const { payload } = await jwtVerify(ssoToken, new TextEncoder().encode(CANNY_KEY), { algorithms: ['HS256'] });
    const me = (await api().get('/api/user/get-current-user').set('Authorization', u.auth).expect(200)).body;
    expect(payload).toMatchObject({ email: u.email, id: me._id, name: 'Grace Hopper' });
    expect(payload.avatarURL).toBeUndefined();
    // custom board domain allowed; other hosts and schemes refused
    await api().get('/api/auth/get-canny-redirect-url').query({ redirect: 'https://feedback.example.com/b' }).set('Authorization', u.auth).expect(200);
    for (const bad of ['https://evil.example.com/', 'http://acme.canny.io/', 'javascript:alert(1)', 'https://canny.io.evil.com/', '//acme.canny.io']) {
      const r = await api().get('/api/auth/get-canny-redirect-url').query({ redirect: bad }).set('Authorization', u.auth).expect(400);
      expect(r.body.code).toBe('invalid_redirect');
    }
    // without redirect
    const plain = await api().get('/api/auth/get-canny-redirect-url').set('Authorization', u.auth).expect(200);
    expect(new URL(plain.body.redirectUrl).searchParams.has('redirect')).toBe(false);
    expect(decodeJwt(new URL(plain.body.redirectUrl).searchParams.get('ssoToken')!).name).toBe('Grace Hopper');
  });

  it('POST user/confirm-link-account records the link when the selected account has the same email', async () => {
    const u = await newUser();
    const wrong = await api()
      .post('/api/user/confirm-link-account')
      .set('Authorization', u.auth)
      .send({ provider: 'google', email: 'other@example.com' })
      .expect(409);
    expect(wrong.body.code).toBe('wrong_account_selected');
    const res = await api()
      .post('/api/user/confirm-link-account')
      .set('Authorization', u.auth)
      .send({ provider: 'GOOGLE', email: u.email.toUpperCase() })
      .expect(200);
    expect(res.body).toMatchObject({ linked: true, provider: 'google', user: { linkedAccounts: [{ provider: 'google', email: u.email }] } });
    await api().post('/api/user/confirm-link-account').set('Authorization', u.auth).send({ provider: 'myspace', email: u.email }).expect(400);
  });

  it('GET user/user-location reads the trusted proxy headers, else unknown; CORS only for configured origins', async () => {
    const known = await api()
      .get('/api/user/user-location')
      .set('x-geo-country', 'us')
      .set('x-geo-region', 'Virginia')
      .set('Origin', 'http://app.test')
      .expect(200);
    expect(known.body).toEqual({ countryCode: 'US', regionName: 'Virginia' });
    expect(known.headers['access-control-allow-origin']).toBe('http://app.test');
    expect(known.headers['access-control-allow-credentials']).toBe('true');
    const unknown = await api().get('/api/user/user-location').set('Origin', 'http://evil.test').expect(200);
    expect(unknown.body).toEqual({ countryCode: 'unknown', regionName: 'unknown' });
    expect(unknown.headers['access-control-allow-origin']).toBeUndefined();
    expect((await api().get('/api/user/user-location').set('x-geo-country', '<script>').expect(200)).body.countryCode).toBe('unknown');
    const pre = await api().options('/api/user/user-location').set('Origin', 'http://app.test').set('Access-Control-Request-Method', 'GET').expect(204);
    expect(pre.headers['access-control-allow-origin']).toBe('http://app.test');
  });

  it('user-location without configured headers is unknown even when the headers are sent', async () => {
    const plain = await startTestBackend({ jwks: keys.jwks });
    try {
      const res = await request(plain.url).get('/api/user/user-location').set('x-geo-country', 'FR').expect(200);
      expect(res.body).toEqual({ countryCode: 'unknown', regionName: 'unknown' });
    } finally {
      await plain.close();
    }
  });

  describe('account deletion and reactivation (grace period 30 days)', () => {
    it('delete-account revokes sessions and schedules deletion; reactivate-account within the grace period restores it', async () => {
      const u = await newUser();
      const del = await api().post('/api/user/delete-account').set('Authorization', u.auth).send({ reason: 'testing', state: 'active' }).expect(200);
      expect(del.body).toMatchObject({ state: 'pending_deletion', gracePeriodDays: 30, gracePeriodMs: 30 * DAY });
      expect(Date.parse(del.body.deletionScheduledAt)).toBe(clock.now() + 30 * DAY);
      expect(admin.calls.some((c) => c.method === 'DELETE' && c.path === `/admin/identities/${u.identity.id}/sessions`)).toBe(true);
      // while pending: current user shows the state; other calls are refused
      const me = await api().get('/api/user/get-current-user').set('Authorization', u.auth).expect(200);
      expect(me.body.state).toBe('pending_deletion');
      expect((await api().get('/api/user/get-organization-team-owner').set('Authorization', u.auth).expect(403)).body.code).toBe('account_pending_deletion');
      expect((await api().post('/api/user/delete-account').set('Authorization', u.auth).send({}).expect(403)).body.code).toBe('account_pending_deletion');
      // 29 days later, with a fresh token
      clock.advance(29 * DAY);
      const later = `Bearer ${await mint(keys, { sub: u.identity.id, email: u.email, now: clock.now() })}`;
      const re = await api().patch('/api/user/reactivate-account').set('Authorization', later).expect(200);
      expect(re.body.user).toMatchObject({ state: 'active', deletionScheduledAt: null });
      expect(re.body.user.reactivatedAt).not.toBeNull();
      expect((await api().patch('/api/user/reactivate-account').set('Authorization', later).expect(409)).body.code).toBe('account_not_pending_deletion');
    });

    it('after the grace period the account is purged and the identity deleted', async () => {
      const u = await newUser();
      await api().post('/api/user/delete-account').set('Authorization', u.auth).expect(200);
      clock.advance(30 * DAY + 1000);
      const later = `Bearer ${await mint(keys, { sub: u.identity.id, email: u.email, now: clock.now() })}`;
      expect((await api().patch('/api/user/reactivate-account').set('Authorization', later).expect(403)).body.code).toBe('account_deleted');
      expect(admin.identities.has(u.identity.id)).toBe(false);
      expect((await api().get('/api/user/get-current-user').set('Authorization', later).expect(403)).body.code).toBe('account_deleted');
    });

    it('admin purge route purges due accounts', async () => {
      const u = await newUser();
      await api().post('/api/user/delete-account').set('Authorization', u.auth).expect(200);
      clock.advance(31 * DAY);
      const res = await api().post('/api/admin/purge-deleted-accounts').set('Authorization', `Bearer ${ADMIN_KEY}`).expect(200);
      expect(res.body.purged).toBeGreaterThanOrEqual(1);
      expect(admin.identities.has(u.identity.id)).toBe(false);
    });
  });
});
