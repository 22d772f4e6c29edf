// user/*: the signed-in user's record, moving it to a new identity, linking login services, deletion and reactivation.
import { z } from 'zod';
import type { LinkedAccount } from '../records.ts';
import { ApiError } from '../errors.ts';
import { DAY_MS } from '../options.ts';
import { email, userSchema, withUser } from '../schemas.ts';
import { BEARER_ERRORS, errorDoc, INVALID_BODY, iso, parseBody, type Route, type RouteContext } from './route.ts';

const LINK_PROVIDERS = ['google', 'microsoft', 'dropbox', 'apple'] as const;

const updateIdentityIdBody = z.object({ identityId: z.string().min(1).max(200) });
const deleteAccountBody = z.object({ reason: z.string().trim().max(500).optional() });
const confirmLinkBody = z.object({
  provider: z
    .string()
    .transform((s) => s.toLowerCase())
    .pipe(z.enum(LINK_PROVIDERS))
    .meta({ description: 'google | microsoft | dropbox | apple (case-insensitive)' }),
  email,
});

const pendingDeletion = (message: string, meta?: Record<string, unknown>) => new ApiError(403, 'account_pending_deletion', message, meta);

export function userRoutes({ o, accounts, access }: RouteContext): Route[] {
  const { store } = o;
  const { userJson } = accounts;
  return [
    {
      method: 'get',
      path: '/api/user/get-current-user',
      doc: {
        tag: 'user',
        security: 'bearer',
        summary: 'The signed-in user',
        description:
          "Creates the record on the first authenticated call (keyed by the token's `sub`). Answers also while deletion is pending (state `pending_deletion`), so the app can offer reactivation.",
        responses: { 200: { description: 'The user', schema: userSchema }, ...BEARER_ERRORS },
      },
      async handler(req) {
        const { user } = await access.authenticate(req, { allowPending: true });
        return userJson(user);
      },
    },
    {
      method: 'get',
      path: '/api/user/get-organization-team-owner',
      doc: {
        tag: 'user',
        security: 'bearer',
        summary: "Owner of the user's organization team",
        description: 'The stand-in has no organizations: every user is the owner of their own team.',
        responses: {
          200: {
            description: 'Owner',
            schema: z.object({
              organization: z.null(),
              isOwner: z.literal(true),
              owner: userSchema.pick({ _id: true, identityId: true, email: true, name: true, avatarRemoteId: true }),
            }),
          },
          ...BEARER_ERRORS,
        },
      },
      async handler(req) {
        const { user } = await access.authenticate(req);
        return {
          organization: null,
          isOwner: true,
          owner: { _id: user._id, identityId: user.identityId, email: user.email, name: user.name, avatarRemoteId: user.avatarRemoteId },
        };
      },
    },
    {
      method: 'post',
      path: '/api/user/update-identityId',
      doc: {
        tag: 'user',
        security: 'bearer',
        summary: 'Attach the user record to the current identity',
        description:
          "`identityId` must equal the token's `sub` (else 403 identity_mismatch). If a record exists for it, it is returned (updated false). If another live record has the token's email, it is moved to this identity (updated true, previousIdentityId set) only when the identity admin API shows this identity's email verified and the old identity no longer exists (else 409 identity_conflict); an empty record auto-created for this identity is dropped in favour of it. Otherwise a record is created.",
        body: { schema: updateIdentityIdBody, required: true },
        responses: {
          200: { description: 'Result', schema: withUser({ updated: z.boolean(), previousIdentityId: z.string().nullable() }) },
          400: INVALID_BODY,
          ...BEARER_ERRORS,
          403: errorDoc("Not the token's identity; account pending deletion or deleted (code: identity_mismatch, account_pending_deletion, account_deleted)"),
          409: errorDoc('Move refused (code: identity_conflict)'),
          502: errorDoc('Identity service failing (code: identity_unavailable, identity_error)'),
        },
      },
      async handler(req) {
        const { claims } = await access.authenticate(req, { autoCreate: false });
        const body = parseBody(updateIdentityIdBody, req.body);
        if (body.identityId !== claims.sub) {
          throw new ApiError(403, 'identity_mismatch', 'identityId must be the identity of the bearer token');
        }
        const now = o.clock.now();
        const current = store.userByIdentity(claims.sub);
        const candidates = claims.email ? store.usersByEmail(claims.email).filter((u) => u.identityId !== claims.sub) : [];
        const candidate = candidates[0];
        const fresh = current && current.state === 'active' && !current.avatarRemoteId && current.linkedAccounts.length === 0;
        if (candidate && (!current || fresh)) {
          // Move an older record to this identity only if this identity's email is verified and the old identity is gone.
          const admin = access.requireIdentityAdmin();
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
          if (current.state === 'pending_deletion') throw pendingDeletion('This account is scheduled for deletion; reactivate it first');
          return { updated: false, previousIdentityId: null, user: userJson(current) };
        }
        const user = store.createUser({ identityId: claims.sub, email: claims.email }, now);
        return { updated: false, previousIdentityId: null, user: userJson(user) };
      },
    },
    {
      method: 'post',
      path: '/api/user/delete-account',
      doc: {
        tag: 'user',
        security: 'bearer',
        summary: 'Delete the account (soft, with a grace period)',
        description:
          "Revokes all the identity's sessions (admin API; nothing changes if that fails), then marks the account `pending_deletion` with deletionScheduledAt = now + grace period (default 30 days). Within the grace period the user can sign in (get-current-user shows the state; other calls answer 403 account_pending_deletion) and call reactivate-account. After it, the account is purged (avatar file and personal fields erased, state `deleted`, identity deleted through the admin API): lazily on its next call, by the hourly sweep of main.ts, or via POST /api/admin/purge-deleted-accounts. Calls for a purged account answer 403 account_deleted.",
        body: { schema: deleteAccountBody, required: false },
        responses: {
          200: {
            description: 'Scheduled',
            schema: withUser({
              state: z.literal('pending_deletion'),
              deletionScheduledAt: z.iso.datetime(),
              gracePeriodMs: z.number().int(),
              gracePeriodDays: z.number(),
            }),
          },
          400: INVALID_BODY,
          ...BEARER_ERRORS,
          502: errorDoc('Identity service failing (code: identity_unavailable, identity_error)'),
        },
      },
      async handler(req) {
        const { user } = await access.authenticate(req);
        const body = parseBody(deleteAccountBody, req.body);
        // Sign the account out everywhere first; nothing changes if that fails.
        if (o.identityAdmin && user.identityId) await o.identityAdmin.revokeSessions(user.identityId);
        const now = o.clock.now();
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
      },
    },
    {
      method: 'patch',
      path: '/api/user/reactivate-account',
      doc: {
        tag: 'user',
        security: 'bearer',
        summary: 'Cancel a pending deletion',
        description: 'Within the grace period: state back to `active`, deletion dates cleared, reactivatedAt set. Body ignored.',
        responses: {
          200: { description: 'Reactivated', schema: withUser({}) },
          ...BEARER_ERRORS,
          403: errorDoc('Grace period over: the account was purged (code: account_deleted)'),
          409: errorDoc('Account is not pending deletion (code: account_not_pending_deletion)'),
        },
      },
      async handler(req) {
        const { user } = await access.authenticate(req, { allowPending: true });
        if (user.state !== 'pending_deletion') throw new ApiError(409, 'account_not_pending_deletion', 'This account is not scheduled for deletion');
        const now = o.clock.now();
        const updated = store.updateUser(
          user._id,
          { state: 'active', deletionRequestedAt: null, deletionScheduledAt: null, deletionReason: null, reactivatedAt: now },
          now,
        );
        return { user: userJson(updated) };
      },
    },
    {
      method: 'post',
      path: '/api/user/confirm-link-account',
      doc: {
        tag: 'user',
        security: 'bearer',
        summary: 'Confirm linking a login service',
        description:
          'Records that the account chosen at the provider (same email as this account) is linked. Provider google | microsoft | dropbox | apple (case-insensitive). A different email is the WRONG_ACCOUNT_SELECTED case.',
        body: { schema: confirmLinkBody, required: true },
        responses: {
          200: { description: 'Linked', schema: withUser({ linked: z.literal(true), provider: z.enum(LINK_PROVIDERS) }) },
          400: INVALID_BODY,
          ...BEARER_ERRORS,
          409: errorDoc('The selected account has another email (meta.expectedEmail) (code: wrong_account_selected)'),
        },
      },
      async handler(req) {
        const { user } = await access.authenticate(req);
        const body = parseBody(confirmLinkBody, req.body);
        if (!user.email || body.email !== user.email) {
          throw new ApiError(409, 'wrong_account_selected', 'The selected account does not have the email of this account', {
            expectedEmail: user.email,
          });
        }
        const now = o.clock.now();
        const linked: LinkedAccount[] = user.linkedAccounts.filter((a) => a.provider !== body.provider);
        linked.push({ provider: body.provider, email: body.email, linkedAt: new Date(now).toISOString() });
        const updated = store.updateUser(user._id, { linkedAccounts: linked }, now);
        return { linked: true, provider: body.provider, user: userJson(updated) };
      },
    },
  ];
}
