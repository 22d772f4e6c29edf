// The backend stand-in's HTTP surface (spec §7) as an Express app. See README.md / openapi.json.
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { bearerToken, makeKeyGetter, verifyToken, type JwksSource, type TokenClaims } from './auth.ts';
import { AVATAR_NAME, drain, processAvatar, readSingleFile } from './avatar.ts';
import { cannyRedirectUrl, cannySsoToken, isAllowedCannyRedirect } from './canny.ts';
import { type LinkedAccount, Store, type UserRecord } from './db.ts';
import { ApiError, badRequest } from './errors.ts';
import { IdentityAdmin } from './identity-admin.ts';

export const DAY_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_DELETION_GRACE_MS = 30 * DAY_MS;
export const DEFAULT_INVITATION_TTL_MS = 7 * DAY_MS;

export interface Logger {
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };

export interface AppOptions {
  store: Store;
  avatarsDir: string;
  /** Origin used to build public avatar URLs (`<publicUrl>/avatars/<name>`). */
  publicUrl: () => string;
  identityPublicUrl: string;
  issuer: string;
  audience: string;
  jwks?: JwksSource;
  identityAdmin: IdentityAdmin | null;
  identitySchemaId: string;
  adminApiKey?: string;
  canny: { companyId: string; privateKey: string; allowedRedirectHosts: string[] } | null;
  locationHeaders?: { country: string; region?: string };
  corsOrigins: string[];
  deletionGracePeriodMs: number;
  invitationTtlMs: number;
  now: () => number;
  logger: Logger;
}

const LOGIN_SERVICES = ['EMAIL_PASSWORD', 'GOOGLE', 'MICROSOFT', 'DROPBOX', 'APPLE'] as const;
const LINK_PROVIDERS = ['google', 'microsoft', 'dropbox', 'apple'] as const;

const email = z.string().trim().toLowerCase().max(255).email();
const loginService = z
  .string()
  .transform((s) => s.toUpperCase().replace(/[ &-]+/g, '_'))
  .transform((s) => (s === 'EMAIL' || s === 'PASSWORD' || s === 'EMAIL_AND_PASSWORD' ? 'EMAIL_PASSWORD' : s))
  .pipe(z.enum(LOGIN_SERVICES));

const schemas = {
  forgotPassword: z.object({ email }),
  signUp: z.object({ name: z.string().trim().min(1).max(32).optional(), loginService: loginService.optional() }),
  signOut: z.object({ loginService: loginService.optional() }),
  signUpInvitation: z.object({
    token: z.string().min(1).max(200),
    password: z.string().min(8).max(72),
    name: z.string().trim().min(1).max(32).optional(),
  }),
  updateIdentityId: z.object({ identityId: z.string().min(1).max(200) }),
  forgetLastAccess: z.object({ email: email.optional() }),
  deleteAccount: z.object({ reason: z.string().trim().max(500).optional() }),
  confirmLink: z.object({
    provider: z
      .string()
      .transform((s) => s.toLowerCase())
      .pipe(z.enum(LINK_PROVIDERS)),
    email,
  }),
  createInvitation: z.object({
    email,
    expiresInSeconds: z.number().int().min(60).max(30 * 24 * 3600).optional(),
    invitedBy: z.string().trim().max(255).optional(),
  }),
};

function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const value = body === undefined || body === null ? {} : body;
  if (typeof value !== 'object' || Array.isArray(value)) throw badRequest('invalid_body', 'The request body must be a JSON object');
  const result = schema.safeParse(value);
  if (!result.success) {
    throw badRequest('invalid_body', 'The request body is not valid', {
      issues: result.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    });
  }
  return result.data;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

function safeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

interface AuthContext {
  claims: TokenClaims;
  user: UserRecord;
  created: boolean;
}

interface AuthMode {
  /** Create the user record on the first authenticated call (default true). */
  autoCreate?: boolean;
  /** Allowed while the account waits for deletion (default false). */
  allowPending?: boolean;
}

export function createBackendApp(o: AppOptions): { app: express.Express; purgeDue: () => Promise<number> } {
  const { store } = o;
  const getKey = makeKeyGetter(o.jwks, o.identityPublicUrl);
  const avatarUrl = (name: string | null) => (name ? `${o.publicUrl()}/avatars/${name}` : null);

  const userJson = (u: UserRecord) => ({
    _id: u._id,
    identityId: u.identityId,
    email: u.email,
    name: u.name,
    avatarRemoteId: u.avatarRemoteId,
    avatarUrl: avatarUrl(u.avatarRemoteId),
    state: u.state,
    deletionRequestedAt: iso(u.deletionRequestedAt),
    deletionScheduledAt: iso(u.deletionScheduledAt),
    reactivatedAt: iso(u.reactivatedAt),
    lastAccessAccount: u.lastAccessAccount,
    linkedAccounts: u.linkedAccounts,
    createdAt: iso(u.createdAt),
    updatedAt: iso(u.updatedAt),
  });

  const removeAvatarFile = async (name: string | null) => {
    if (!name || !AVATAR_NAME.test(name)) return;
    await unlink(join(o.avatarsDir, name)).catch(() => {});
  };

  /** Purges an account whose grace period is over: local data first, then the identity (best effort). */
  const purgeUser = async (user: UserRecord): Promise<UserRecord> => {
    const now = o.now();
    const purged = store.updateUser(
      user._id,
      {
        state: 'deleted',
        deletedAt: now,
        email: null,
        name: null,
        avatarRemoteId: null,
        lastAccessAccount: null,
        linkedAccounts: [],
        deletionReason: null,
      },
      now,
    );
    await removeAvatarFile(user.avatarRemoteId);
    if (o.identityAdmin && user.identityId) {
      await o.identityAdmin.deleteIdentity(user.identityId).catch((err: unknown) => {
        o.logger.warn({ err, identityId: user.identityId }, 'could not delete identity of purged account');
      });
    }
    return purged;
  };

  const purgeDue = async (): Promise<number> => {
    const due = store.usersDueForPurge(o.now());
    for (const user of due) await purgeUser(user);
    return due.length;
  };

  const requireAdminApi = (): IdentityAdmin => {
    if (!o.identityAdmin) throw new ApiError(503, 'identity_admin_unconfigured', 'The identity admin API is not configured');
    return o.identityAdmin;
  };

  async function authenticate(req: Request, mode: AuthMode = {}): Promise<AuthContext> {
    const token = bearerToken(req.get('authorization'));
    if (!token) throw new ApiError(401, 'unauthorized', 'A bearer token is required', undefined, { 'WWW-Authenticate': 'Bearer realm="api"' });
    const claims = await verifyToken(token, { getKey, issuer: o.issuer, audience: o.audience, now: o.now });
    let user = store.userByIdentity(claims.sub);
    let created = false;
    if (user && user.state === 'pending_deletion' && user.deletionScheduledAt !== null && user.deletionScheduledAt <= o.now()) {
      user = await purgeUser(user);
    }
    if (user && user.state === 'deleted') throw new ApiError(403, 'account_deleted', 'This account has been deleted');
    if (!user) {
      if (mode.autoCreate === false) return { claims, user: null as unknown as UserRecord, created: false };
      user = store.createUser({ identityId: claims.sub, email: claims.email }, o.now());
      created = true;
    } else if (claims.email && user.email !== claims.email) {
      user = store.updateUser(user._id, { email: claims.email }, o.now());
    }
    if (user.state === 'pending_deletion' && !mode.allowPending) {
      throw new ApiError(403, 'account_pending_deletion', 'This account is scheduled for deletion; reactivate it first', {
        deletionScheduledAt: iso(user.deletionScheduledAt),
      });
    }
    return { claims, user, created };
  }

  function requireAdminKey(req: Request): void {
    if (!o.adminApiKey) throw new ApiError(403, 'admin_disabled', 'No admin key is configured for this backend');
    const header = req.get('authorization') ?? '';
    const match = /^Bearer (.+)$/.exec(header);
    if (!match || !safeEqual(match[1]!, o.adminApiKey)) throw new ApiError(401, 'unauthorized', 'The admin key is missing or wrong');
  }

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');

  app.use((_req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'no-store');
    next();
  });

  const jsonParser = express.json({ limit: '32kb', strict: true, type: ['application/json', 'application/*+json'] });

  type Handler = (req: Request, res: Response) => Promise<unknown> | unknown;
  interface Route {
    method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
    path: string;
    handler: Handler;
    raw?: boolean;
  }
  const routes: Route[] = [];
  const route = (method: Route['method'], path: string, handler: Handler, raw = false) => routes.push({ method, path, handler, raw });

  // ---------------------------------------------------------------- auth/*

  route('POST', '/api/auth/forgot-password', async (req, res) => {
    const body = parseBody(schemas.forgotPassword, req.body);
    const admin = o.identityAdmin;
    if (admin) {
      const identity = await admin.findByEmail(body.email);
      if (identity && identity.state !== 'inactive') {
        const link = await admin.createRecoveryLink(identity.id);
        store.addOutbox(
          { kind: 'recovery', email: body.email, identityId: identity.id, link: link.recovery_link, expiresAt: link.expires_at ?? null },
          o.now(),
        );
      }
    } else {
      o.logger.warn({}, 'forgot-password: identity admin API not configured, nothing sent');
    }
    res.status(202);
    return { ok: true };
  });

  route('POST', '/api/auth/sign-up', async (req, res) => {
    const ctx = await authenticate(req);
    const body = parseBody(schemas.signUp, req.body);
    let user = ctx.user;
    const patch: Partial<UserRecord> = {};
    if (body.name && !user.name) patch.name = body.name;
    if (Object.keys(patch).length) user = store.updateUser(user._id, patch, o.now());
    res.status(ctx.created ? 201 : 200);
    return { created: ctx.created, user: userJson(user) };
  });

  route('POST', '/api/auth/sign-out', async (req) => {
    const { user } = await authenticate(req, { allowPending: true });
    const body = parseBody(schemas.signOut, req.body);
    const now = o.now();
    store.updateUser(
      user._id,
      {
        lastSignOutAt: now,
        lastAccessAccount: user.email
          ? {
              email: user.email,
              loginService: body.loginService ?? user.lastAccessAccount?.loginService ?? null,
              name: user.name,
              avatarRemoteId: user.avatarRemoteId,
              at: new Date(now).toISOString(),
            }
          : user.lastAccessAccount,
      },
      now,
    );
    return { ok: true };
  });

  route('GET', '/api/auth/invitation', async (req) => {
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    if (!token || token.length > 200) throw badRequest('invalid_invitation_token', 'The invitation token is missing or invalid');
    const inv = store.invitation(hashToken(token));
    if (!inv) throw new ApiError(404, 'invalid_invitation_token', 'The invitation token is invalid');
    if (inv.usedAt !== null) throw new ApiError(410, 'invitation_token_used', 'The invitation has already been used');
    if (inv.expiresAt <= o.now()) throw new ApiError(410, 'invitation_token_expired', 'The invitation has expired');
    return { email: inv.email, expiresAt: iso(inv.expiresAt) };
  });

  route('POST', '/api/auth/sign-up-invitation', async (req, res) => {
    const body = parseBody(schemas.signUpInvitation, req.body);
    const admin = requireAdminApi();
    const hash = hashToken(body.token);
    const inv = store.invitation(hash);
    if (!inv) throw new ApiError(400, 'invalid_invitation_token', 'The invitation token is invalid');
    if (!store.reserveInvitation(hash, o.now())) {
      const again = store.invitation(hash)!;
      if (again.usedAt !== null) throw new ApiError(410, 'invitation_token_used', 'The invitation has already been used');
      throw new ApiError(410, 'invitation_token_expired', 'The invitation has expired');
    }
    let identityId: string;
    try {
      const traits: Record<string, unknown> = { email: inv.email, loginService: 'EMAIL_PASSWORD' };
      if (body.name) traits.name = body.name;
      const created = await admin.createIdentity({
        schema_id: o.identitySchemaId,
        traits,
        state: 'active',
        credentials: { password: { config: { password: body.password } } },
        verifiable_addresses: [{ value: inv.email, verified: true, via: 'email', status: 'completed' }],
      });
      if (created.status === 409) throw new ApiError(409, 'email_exists', 'An account with this email already exists');
      if (created.status !== 201 && created.status !== 200) {
        const reason = (created.body as { error?: { reason?: string; message?: string } } | null)?.error;
        throw new ApiError(400, 'identity_rejected', reason?.reason ?? reason?.message ?? 'The identity service refused the sign-up');
      }
      identityId = String((created.body as { id: unknown }).id);
    } catch (err) {
      store.releaseInvitation(hash);
      throw err;
    }
    store.completeInvitation(hash, identityId);
    const user = store.createUser({ identityId, email: inv.email, name: body.name ?? null }, o.now());
    res.status(201);
    return { identityId, email: inv.email, user: userJson(user) };
  });

  route('POST', '/api/auth/force-log-out', async (req) => {
    const { user } = await authenticate(req, { allowPending: true });
    await requireAdminApi().revokeSessions(user.identityId!);
    return { ok: true };
  });

  route('GET', '/api/auth/get-canny-redirect-url', async (req) => {
    const { user, claims } = await authenticate(req);
    if (!o.canny) throw new ApiError(503, 'canny_unconfigured', 'Canny SSO is not configured');
    const redirect = typeof req.query.redirect === 'string' && req.query.redirect !== '' ? req.query.redirect : null;
    if (redirect !== null && (redirect.length > 2048 || !isAllowedCannyRedirect(redirect, o.canny.allowedRedirectHosts))) {
      throw badRequest('invalid_redirect', 'The redirect must be an https address of the feedback board');
    }
    const mail = user.email ?? claims.email;
    if (!mail) throw badRequest('email_missing', 'The account has no email address');
    const ssoToken = await cannySsoToken(
      { email: mail, id: user._id, name: user.name ?? mail.split('@')[0]!, avatarURL: avatarUrl(user.avatarRemoteId) ?? undefined },
      o.canny.privateKey,
    );
    return { redirectUrl: cannyRedirectUrl(o.canny.companyId, ssoToken, redirect) };
  });

  route('POST', '/api/auth/forget-last-access-account', async (req) => {
    const now = o.now();
    if (req.get('authorization')) {
      const { user } = await authenticate(req, { allowPending: true });
      parseBody(schemas.forgetLastAccess, req.body);
      store.updateUser(user._id, { lastAccessAccount: null }, now);
      return { ok: true };
    }
    const body = parseBody(schemas.forgetLastAccess, req.body);
    if (!body.email) throw badRequest('invalid_body', 'Send a bearer token or an email');
    store.tx(() => {
      for (const u of store.usersByEmail(body.email!)) store.updateUser(u._id, { lastAccessAccount: null }, now);
    });
    return { ok: true };
  });

  // ---------------------------------------------------------------- user/*

  route('GET', '/api/user/get-current-user', async (req) => {
    const { user } = await authenticate(req, { allowPending: true });
    return userJson(user);
  });

  route('GET', '/api/user/get-organization-team-owner', async (req) => {
    const { user } = await authenticate(req);
    return {
      organization: null,
      isOwner: true,
      owner: { _id: user._id, identityId: user.identityId, email: user.email, name: user.name, avatarRemoteId: user.avatarRemoteId },
    };
  });

  route('POST', '/api/user/update-identityId', async (req) => {
    const { claims } = await authenticate(req, { autoCreate: false });
    const body = parseBody(schemas.updateIdentityId, req.body);
    if (body.identityId !== claims.sub) {
      throw new ApiError(403, 'identity_mismatch', 'identityId must be the identity of the bearer token');
    }
    const now = o.now();
    const current = store.userByIdentity(claims.sub);
    const candidates = claims.email ? store.usersByEmail(claims.email).filter((u) => u.identityId !== claims.sub) : [];
    const candidate = candidates[0];
    const fresh = current && current.state === 'active' && !current.avatarRemoteId && current.linkedAccounts.length === 0;
    if (candidate && (!current || fresh)) {
      // Move an older record to this identity only if this identity's email is verified and the old identity is gone.
      const admin = requireAdminApi();
      const identity = await admin.getIdentity(claims.sub);
      const verified = identity?.verifiable_addresses?.some((a) => a.verified && a.value.toLowerCase() === claims.email);
      if (!verified) throw new ApiError(409, 'identity_conflict', 'The email of this identity is not verified');
      if (candidate.identityId && (await admin.getIdentity(candidate.identityId))) {
        throw new ApiError(409, 'identity_conflict', 'Another identity still owns this account');
      }
      const moved = store.tx(() => {
        if (current) store.deleteUserRow(current._id);
        return store.updateUser(candidate._id, { identityId: claims.sub }, now);
      });
      return { updated: true, previousIdentityId: candidate.identityId, user: userJson(moved) };
    }
    if (current) {
      if (current.state === 'pending_deletion') {
        throw new ApiError(403, 'account_pending_deletion', 'This account is scheduled for deletion; reactivate it first');
      }
      return { updated: false, previousIdentityId: null, user: userJson(current) };
    }
    const user = store.createUser({ identityId: claims.sub, email: claims.email }, now);
    return { updated: false, previousIdentityId: null, user: userJson(user) };
  });

  route(
    'PATCH',
    '/api/user/upload-avatar',
    async (req, res) => {
      let ctx: AuthContext;
      try {
        ctx = await authenticate(req);
      } catch (err) {
        drain(req, res);
        throw err;
      }
      const file = await readSingleFile(req, res);
      const image = await processAvatar(file);
      const name = `${randomBytes(16).toString('hex')}.${image.type === 'png' ? 'png' : 'jpg'}`;
      await mkdir(o.avatarsDir, { recursive: true });
      const tmp = join(o.avatarsDir, `.${name}.tmp`);
      await writeFile(tmp, image.data, { mode: 0o644 });
      await rename(tmp, join(o.avatarsDir, name));
      const previous = store.userById(ctx.user._id)?.avatarRemoteId ?? null;
      const user = store.updateUser(ctx.user._id, { avatarRemoteId: name }, o.now());
      await removeAvatarFile(previous);
      const identitySynced = await syncAvatarTrait(user.identityId, name);
      return {
        avatarRemoteId: name,
        avatarUrl: avatarUrl(name),
        contentType: image.type === 'png' ? 'image/png' : 'image/jpeg',
        width: image.width,
        height: image.height,
        size: image.data.length,
        identitySynced,
        user: userJson(user),
      };
    },
    true,
  );

  route('PATCH', '/api/user/remove-avatar', async (req) => {
    const { user } = await authenticate(req);
    const previous = user.avatarRemoteId;
    const updated = store.updateUser(user._id, { avatarRemoteId: null }, o.now());
    await removeAvatarFile(previous);
    const identitySynced = previous ? await syncAvatarTrait(user.identityId, null) : true;
    return { avatarRemoteId: null, identitySynced, user: userJson(updated) };
  });

  /** Keeps the identity trait avatarRemoteId in step (best effort: a schema without that trait refuses). */
  async function syncAvatarTrait(identityId: string | null, name: string | null): Promise<boolean> {
    if (!o.identityAdmin || !identityId) return false;
    try {
      const ops = name === null ? [{ op: 'remove', path: '/traits/avatarRemoteId' }] : [{ op: 'add', path: '/traits/avatarRemoteId', value: name }];
      const res = await o.identityAdmin.patchIdentity(identityId, ops);
      return res.status === 200;
    } catch (err) {
      o.logger.warn({ err }, 'could not sync avatarRemoteId to the identity');
      return false;
    }
  }

  route('POST', '/api/user/delete-account', async (req) => {
    const { user } = await authenticate(req);
    const body = parseBody(schemas.deleteAccount, req.body);
    // Sign the account out everywhere first; nothing changes if that fails.
    if (o.identityAdmin && user.identityId) await o.identityAdmin.revokeSessions(user.identityId);
    const now = o.now();
    const updated = store.updateUser(
      user._id,
      {
        state: 'pending_deletion',
        deletionRequestedAt: now,
        deletionScheduledAt: now + o.deletionGracePeriodMs,
        deletionReason: body.reason ?? null,
        reactivatedAt: null,
      },
      now,
    );
    return {
      state: updated.state,
      deletionScheduledAt: iso(updated.deletionScheduledAt),
      gracePeriodMs: o.deletionGracePeriodMs,
      gracePeriodDays: Math.round((o.deletionGracePeriodMs / DAY_MS) * 1000) / 1000,
      user: userJson(updated),
    };
  });

  route('PATCH', '/api/user/reactivate-account', async (req) => {
    const { user } = await authenticate(req, { allowPending: true });
    if (user.state !== 'pending_deletion') throw new ApiError(409, 'account_not_pending_deletion', 'This account is not scheduled for deletion');
    const updated = store.updateUser(
      user._id,
      { state: 'active', deletionRequestedAt: null, deletionScheduledAt: null, deletionReason: null, reactivatedAt: o.now() },
      o.now(),
    );
    return { user: userJson(updated) };
  });

  route('POST', '/api/user/confirm-link-account', async (req) => {
    const { user } = await authenticate(req);
    const body = parseBody(schemas.confirmLink, req.body);
    if (!user.email || body.email !== user.email) {
      throw new ApiError(409, 'wrong_account_selected', 'The selected account does not have the email of this account', {
        expectedEmail: user.email,
      });
    }
    const now = o.now();
    const linked: LinkedAccount[] = user.linkedAccounts.filter((a) => a.provider !== body.provider);
    linked.push({ provider: body.provider, email: body.email, linkedAt: new Date(now).toISOString() });
    const updated = store.updateUser(user._id, { linkedAccounts: linked }, now);
    return { linked: true, provider: body.provider, user: userJson(updated) };
  });

  route('GET', '/api/user/user-location', (req, res) => {
    applyCors(req, res);
    return readLocation(req);
  });

  // ---------------------------------------------------------------- admin (stand-in helpers)

  route('POST', '/api/admin/invitations', async (req, res) => {
    requireAdminKey(req);
    const body = parseBody(schemas.createInvitation, req.body);
    const token = randomBytes(24).toString('base64url');
    const now = o.now();
    const expiresAt = now + (body.expiresInSeconds ? body.expiresInSeconds * 1000 : o.invitationTtlMs);
    store.createInvitation({ tokenHash: hashToken(token), email: body.email, invitedBy: body.invitedBy ?? null, createdAt: now, expiresAt });
    res.status(201);
    return { token, email: body.email, expiresAt: iso(expiresAt) };
  });

  route('GET', '/api/admin/outbox', (req) => {
    requireAdminKey(req);
    return { messages: store.outbox() };
  });

  route('POST', '/api/admin/purge-deleted-accounts', async (req) => {
    requireAdminKey(req);
    return { purged: await purgeDue() };
  });

  route('GET', '/api/health', () => ({ status: 'ok' }));

  // ---------------------------------------------------------------- helpers

  function applyCors(req: Request, res: Response): void {
    const origin = req.get('origin');
    res.vary('Origin');
    if (origin && o.corsOrigins.includes(origin)) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Allow-Credentials', 'true');
    }
  }

  function readLocation(req: Request): { countryCode: string; regionName: string } {
    const unknown = { countryCode: 'unknown', regionName: 'unknown' };
    if (!o.locationHeaders) return unknown;
    const country = (req.get(o.locationHeaders.country) ?? '').trim();
    if (!/^[A-Za-z]{2}$/.test(country)) return unknown;
    let region = o.locationHeaders.region ? (req.get(o.locationHeaders.region) ?? '').trim() : '';
    if (region.length > 100 || /[\u0000-\u001f\u007f<>]/.test(region)) region = '';
    return { countryCode: country.toUpperCase(), regionName: region || 'unknown' };
  }

  // ---------------------------------------------------------------- wiring

  const wrap =
    (handler: Handler): RequestHandler =>
    async (req, res, next) => {
      try {
        const result = await handler(req, res);
        if (!res.headersSent) res.json(result);
      } catch (err) {
        next(err);
      }
    };

  const allowed = new Map<string, Set<string>>();
  for (const r of routes) {
    const set = allowed.get(r.path) ?? new Set<string>();
    set.add(r.method);
    if (r.method === 'GET') set.add('HEAD');
    allowed.set(r.path, set);
    const handlers: RequestHandler[] = r.raw || r.method === 'GET' ? [wrap(r.handler)] : [jsonParser, wrap(r.handler)];
    app[r.method.toLowerCase() as 'get' | 'post' | 'patch' | 'put' | 'delete'](r.path, ...handlers);
  }

  app.options('/api/user/user-location', (req, res) => {
    applyCors(req, res);
    res.setHeader('Access-Control-Allow-Methods', 'GET, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type');
    res.setHeader('Access-Control-Max-Age', '600');
    res.setHeader('Allow', 'GET, HEAD, OPTIONS');
    res.status(204).end();
  });

  for (const [path, methods] of allowed) {
    const allow = [...methods, 'OPTIONS'].join(', ');
    app.options(path, (_req, res) => {
      res.setHeader('Allow', allow);
      res.status(204).end();
    });
    app.all(path, (req, res) => {
      if (req.readable) req.resume();
      res.setHeader('Allow', allow);
      res.status(405).json({ code: 'method_not_allowed', message: `${req.method} is not allowed here`, meta: { allow: [...methods] } });
    });
  }

  app.get('/api/openapi.json', async (_req, res, next) => {
    try {
      const doc = await readFile(new URL('./openapi.json', import.meta.url), 'utf8');
      res.type('application/json').send(doc);
    } catch (err) {
      next(err);
    }
  });

  app.get('/avatars/:name', async (req, res) => {
    const name = String(req.params.name);
    if (!AVATAR_NAME.test(name)) {
      res.status(404).json({ code: 'not_found', message: 'No such avatar' });
      return;
    }
    let data: Buffer;
    try {
      data = await readFile(join(o.avatarsDir, name));
    } catch {
      res.status(404).json({ code: 'not_found', message: 'No such avatar' });
      return;
    }
    res.setHeader('Content-Type', name.endsWith('.png') ? 'image/png' : 'image/jpeg');
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
    res.setHeader('Content-Disposition', 'inline');
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    res.setHeader('Content-Length', String(data.length));
    res.status(200).end(req.method === 'HEAD' ? undefined : data);
  });
  app.all('/avatars/:name', (req, res) => {
    if (req.readable) req.resume();
    res.setHeader('Allow', 'GET, HEAD');
    res.status(405).json({ code: 'method_not_allowed', message: `${req.method} is not allowed here` });
  });

  app.use((req, res) => {
    if (req.readable) req.resume();
    res.status(404).json({ code: 'not_found', message: 'No such route' });
  });

  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) {
      res.end();
      return;
    }
    if (err instanceof ApiError) {
      if (err.headers) for (const [k, v] of Object.entries(err.headers)) res.setHeader(k, v);
      const body: Record<string, unknown> = { code: err.code, message: err.message };
      if (err.meta) body.meta = err.meta;
      res.status(err.status).json(body);
      return;
    }
    const e = err as { status?: number; statusCode?: number; type?: string; expose?: boolean };
    const status = e.status ?? e.statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      const code =
        e.type === 'entity.parse.failed'
          ? 'invalid_json'
          : e.type === 'entity.too.large'
            ? 'payload_too_large'
            : e.type === 'encoding.unsupported' || e.type === 'charset.unsupported'
              ? 'unsupported_encoding'
              : 'bad_request';
      if (req.readable) req.resume();
      res.status(status).json({ code, message: code === 'invalid_json' ? 'The request body is not valid JSON' : 'The request could not be read' });
      return;
    }
    o.logger.error({ err }, 'unhandled error');
    res.status(500).json({ code: 'internal_error', message: 'Something went wrong' });
  });

  return { app, purgeDue };
}
