// Who may call: the bearer JWT of an identity (and the user record it maps to) or the stand-in's admin key.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import type { Accounts } from './accounts.ts';
import { bearerToken, makeKeyGetter, verifyToken, type TokenClaims } from './auth.ts';
import type { UserRecord } from './records.ts';
import { ApiError } from './errors.ts';
import type { IdentityAdmin } from './identity-admin.ts';
import type { AppOptions } from './options.ts';
import { iso } from './routes/route.ts';

export interface AuthContext {
  claims: TokenClaims;
  user: UserRecord;
  created: boolean;
}

export interface AuthMode {
  /** Create the user record on the first authenticated call (default true). */
  autoCreate?: boolean;
  /** Allowed while the account waits for deletion (default false). */
  allowPending?: boolean;
}

export interface Access {
  authenticate(req: Request, mode?: AuthMode): Promise<AuthContext>;
  requireAdminKey(req: Request): void;
  requireIdentityAdmin(): IdentityAdmin;
}

function safeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

export function createAccess(o: AppOptions, accounts: Accounts): Access {
  const getKey = makeKeyGetter(o.jwks, o.identityPublicUrl);
  const { store } = o;

  return {
    async authenticate(req, mode = {}) {
      const token = bearerToken(req.get('authorization'));
      if (!token) throw new ApiError(401, 'unauthorized', 'A bearer token is required', undefined, { 'WWW-Authenticate': 'Bearer realm="api"' });
      const claims = await verifyToken(token, { getKey, issuer: o.issuer, audience: o.audience, clock: o.clock });
      let user = store.userByIdentity(claims.sub);
      let created = false;
      if (user && user.state === 'pending_deletion' && user.deletionScheduledAt !== null && user.deletionScheduledAt <= o.clock.now()) {
        user = await accounts.purgeUser(user);
      }
      if (user && user.state === 'deleted') throw new ApiError(403, 'account_deleted', 'This account has been deleted');
      if (!user) {
        if (mode.autoCreate === false) return { claims, user: null as unknown as UserRecord, created: false };
        user = store.createUser({ identityId: claims.sub, email: claims.email }, o.clock.now());
        created = true;
      } else if (claims.email && user.email !== claims.email) {
        user = store.updateUser(user._id, { email: claims.email }, o.clock.now());
      }
      if (user.state === 'pending_deletion' && !mode.allowPending) {
        throw new ApiError(403, 'account_pending_deletion', 'This account is scheduled for deletion; reactivate it first', {
          deletionScheduledAt: iso(user.deletionScheduledAt),
        });
      }
      return { claims, user, created };
    },

    requireAdminKey(req) {
      if (!o.adminApiKey) throw new ApiError(403, 'admin_disabled', 'No admin key is configured for this backend');
      const header = req.get('authorization') ?? '';
      const match = /^Bearer (.+)$/.exec(header);
      if (!match || !safeEqual(match[1]!, o.adminApiKey)) throw new ApiError(401, 'unauthorized', 'The admin key is missing or wrong');
    },

    requireIdentityAdmin() {
      if (!o.identityAdmin) throw new ApiError(503, 'identity_admin_unconfigured', 'The identity admin API is not configured');
      return o.identityAdmin;
    },
  };
}
