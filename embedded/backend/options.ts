// What the backend app is built from: startBackend (index.ts) resolves its options into these.
import type { Clock } from '../clock.ts';
import type { ForceReloadTarget } from './force-reload.ts';
import type { CallLog } from './call-log.ts';
import type { JwksSource } from './auth.ts';
import type { Store } from './db.ts';
import type { IdentityAdmin } from './identity-admin.ts';
import type { Mailer } from './mailer.ts';

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
  issuer: string | string[];
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
  clock: Clock;
  logger: Logger;
  /** The record of calls under /api/auth and /api/user (GET /api/admin/calls); a fresh one when not given. */
  calls?: CallLog;
  /** How invitation mails are sent; without one they are kept in the outbox only. */
  mailer?: Mailer | null;
  /** The app's invitation page; the mailed link is `<invitationUrl>?token=<token>`. */
  invitationUrl?: string;
  /** The accounts app's POST /internal/force-reload and its secret: told after auth/force-log-out (force-reload.ts). */
  forceReload?: ForceReloadTarget | null;
}

export const DEFAULT_INVITATION_URL = 'http://localhost:3000/sign-up/invitation';
