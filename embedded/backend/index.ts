// Backend stand-in (dev/test only): startBackend(options) → { url, close() }. Routes under /api.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { systemClock, type Clock } from '../clock.ts';
import type { JwksSource } from './auth.ts';
import { createBackendApp, DEFAULT_DELETION_GRACE_MS, DEFAULT_INVITATION_TTL_MS, silentLogger, type Logger } from './app.ts';
import { Store } from './db.ts';
import { IdentityAdmin } from './identity-admin.ts';
import { CallLog } from './call-log.ts';
import { httpMailer } from './mailer.ts';

export type { JwksSource } from './auth.ts';
export type { Logger } from './app.ts';

export interface BackendOptions {
  /** Port to listen on; 0 (default) picks an ephemeral port. */
  port?: number;
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** SQLite file path or ':memory:' (default `<dataDir>/backend.sqlite`). */
  database?: string;
  /** Folder for the database file (by default) and `avatars/` (default ./data). */
  dataDir?: string;
  /** Public origin used in avatar URLs (default: the URL this server listens on). */
  publicUrl?: string;
  /** Identity service public URL; JWKS at `<identityPublicUrl>/.well-known/jwks.json` (default http://localhost:4433). */
  identityPublicUrl?: string;
  /** Expected `iss` (default: identityPublicUrl with or without its trailing slash; Kratos writes its base_url, which ends with one). */
  issuer?: string;
  /** Expected `aud` (default 'accounts-backend'). */
  audience?: string;
  /** Key set override: a JWKS object or a jose key getter (tests without the identity service). */
  jwks?: JwksSource;
  /** Identity admin API (Kratos admin). Without it, admin-side operations answer 503 identity_admin_unconfigured or are skipped. */
  identityAdminUrl?: string;
  identityAdminApiKey?: string;
  /** Identity schema for identities created by sign-up-invitation (default 'default'). */
  identitySchemaId?: string;
  /** Key guarding /api/admin/* (Authorization: Bearer <key>); default identityAdminApiKey. */
  adminApiKey?: string;
  cannyCompanyId?: string;
  cannyPrivateKey?: string;
  /** Hosts a Canny `redirect` may point at (default ['canny.io', '*.canny.io']); '*.' prefix = any subdomain. */
  cannyAllowedRedirectHosts?: string[];
  /** Trusted proxy headers carrying the caller's location, e.g. { country: 'x-geo-country', region: 'x-geo-region' }. */
  locationHeaders?: { country: string; region?: string };
  /** Origins allowed to call GET /api/user/user-location from a browser with credentials. */
  corsOrigins?: string[];
  /** Grace period between delete-account and purge, during which reactivation works (default 30 days). */
  deletionGracePeriodMs?: number;
  /** How often due deletions are purged in the background; 0 (default) = only lazily and via the admin route. */
  purgeIntervalMs?: number;
  /** Default invitation lifetime (default 7 days). */
  invitationTtlMs?: number;
  /** The app's invitation page, for mailed links (default http://localhost:3000/sign-up/invitation). */
  invitationUrl?: string;
  /** The accounts app's POST /internal/force-reload and the bearer secret it expects: called after auth/force-log-out. */
  forceReloadUrl?: string;
  forceReloadSecret?: string;
  /**
   * Where invitation mails are posted (Kratos's HTTP courier shape): the identity stand-in's POST /mailbox
   * on its admin port under `npm start`. Without it invitations are kept in the outbox only.
   */
  mailUrl?: string;
  /** Bearer key for mailUrl (default identityAdminApiKey, which guards the identity stand-in's mailbox). */
  mailApiKey?: string;
  /** Time source for token expiry, invitations, the deletion grace period and every timestamp (default: real time).
   * Tests pass createTestClock() from embedded/clock.ts and advance it. */
  clock?: Clock;
  /** @deprecated The older form of `clock`: a function returning ms since the epoch. */
  now?: () => number;
  logger?: Logger;
}

export interface RunningBackend {
  url: string;
  /** The calls received under /api/auth and /api/user (also at GET /api/admin/calls). */
  calls: CallLog;
  close(): Promise<void>;
}

export async function startBackend(options: BackendOptions = {}): Promise<RunningBackend> {
  const dataDir = resolve(options.dataDir ?? './data');
  const avatarsDir = join(dataDir, 'avatars');
  mkdirSync(avatarsDir, { recursive: true });
  const database = options.database ?? join(dataDir, 'backend.sqlite');
  const store = new Store(database);
  const identityPublicUrl = (options.identityPublicUrl ?? 'http://localhost:4433').replace(/\/+$/, '');
  const logger = options.logger ?? silentLogger;
  let url = '';
  const calls = new CallLog();

  const { app, purgeDue } = createBackendApp({
    store,
    avatarsDir,
    publicUrl: () => (options.publicUrl ?? url).replace(/\/+$/, ''),
    identityPublicUrl,
    issuer: options.issuer ?? [`${identityPublicUrl}/`, identityPublicUrl],
    audience: options.audience ?? 'accounts-backend',
    jwks: options.jwks,
    identityAdmin: options.identityAdminUrl ? new IdentityAdmin(options.identityAdminUrl, options.identityAdminApiKey) : null,
    identitySchemaId: options.identitySchemaId ?? 'default',
    adminApiKey: options.adminApiKey ?? options.identityAdminApiKey,
    canny:
      options.cannyCompanyId && options.cannyPrivateKey
        ? {
            companyId: options.cannyCompanyId,
            privateKey: options.cannyPrivateKey,
            allowedRedirectHosts: options.cannyAllowedRedirectHosts ?? ['canny.io', '*.canny.io'],
          }
        : null,
    locationHeaders: options.locationHeaders,
    corsOrigins: options.corsOrigins ?? [],
    deletionGracePeriodMs: options.deletionGracePeriodMs ?? DEFAULT_DELETION_GRACE_MS,
    invitationTtlMs: options.invitationTtlMs ?? DEFAULT_INVITATION_TTL_MS,
    invitationUrl: options.invitationUrl,
    forceReload: options.forceReloadUrl && options.forceReloadSecret ? { url: options.forceReloadUrl, secret: options.forceReloadSecret } : null,
    mailer: options.mailUrl ? httpMailer(options.mailUrl, options.mailApiKey ?? options.identityAdminApiKey) : null,
    calls,
    clock: options.clock ?? (options.now ? { now: options.now } : systemClock),
    logger,
  });

  const server: Server = createServer({ requestTimeout: 60_000, headersTimeout: 20_000 }, app);
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolveListen();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  url = `http://${urlHost === '0.0.0.0' || urlHost === '[::]' ? 'localhost' : urlHost}:${address.port}`;

  let timer: NodeJS.Timeout | null = null;
  if (options.purgeIntervalMs && options.purgeIntervalMs > 0) {
    timer = setInterval(() => {
      purgeDue().catch((err: unknown) => logger.error({ err }, 'purge failed'));
    }, options.purgeIntervalMs);
    timer.unref();
  }

  let closed: Promise<void> | null = null;
  return {
    url,
    calls,
    close() {
      closed ??= new Promise<void>((resolveClose) => {
        if (timer) clearInterval(timer);
        server.close(() => {
          store.close();
          resolveClose();
        });
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
