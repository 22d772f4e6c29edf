// Runs the backend stand-in standalone: ./node_modules/.bin/node embedded/backend/main.ts
import { createRemoteJWKSet } from 'jose';
import { startBackend } from './index.ts';

const env = process.env;
const list = (v: string | undefined) =>
  v
    ? v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;

const log = (level: string) => (obj: unknown, msg?: string) =>
  process.stderr.write(JSON.stringify({ level, time: new Date().toISOString(), msg, ...(obj && typeof obj === 'object' ? obj : { obj }) }) + '\n');

const backend = await startBackend({
  port: Number(env.BACKEND_PORT ?? 4500),
  host: env.BACKEND_HOST ?? '127.0.0.1',
  dataDir: env.BACKEND_DATA_DIR ?? './data',
  database: env.BACKEND_DATABASE || undefined,
  publicUrl: env.BACKEND_PUBLIC_URL || undefined,
  identityPublicUrl: env.IDENTITY_PUBLIC_URL ?? 'http://localhost:4433',
  issuer: env.BACKEND_TOKEN_ISSUER || undefined,
  // Real Kratos does not publish its tokenizer keys: start:ory names where they are served.
  jwks: env.BACKEND_TOKEN_JWKS_URL ? createRemoteJWKSet(new URL(env.BACKEND_TOKEN_JWKS_URL)) : undefined,
  audience: env.BACKEND_TOKEN_AUDIENCE || 'accounts-backend',
  identityAdminUrl: env.IDENTITY_ADMIN_URL ?? 'http://localhost:4434',
  identityAdminApiKey: env.IDENTITY_ADMIN_API_KEY || undefined,
  identitySchemaId: env.IDENTITY_SCHEMA_ID || undefined,
  adminApiKey: env.BACKEND_ADMIN_API_KEY || undefined,
  cannyCompanyId: env.CANNY_COMPANY_ID || undefined,
  cannyPrivateKey: env.CANNY_PRIVATE_KEY || undefined,
  cannyAllowedRedirectHosts: list(env.CANNY_ALLOWED_REDIRECT_HOSTS),
  locationHeaders: env.BACKEND_LOCATION_COUNTRY_HEADER
    ? { country: env.BACKEND_LOCATION_COUNTRY_HEADER, region: env.BACKEND_LOCATION_REGION_HEADER || undefined }
    : undefined,
  corsOrigins: list(env.BACKEND_CORS_ORIGINS),
  deletionGracePeriodMs: env.BACKEND_DELETION_GRACE_DAYS ? Number(env.BACKEND_DELETION_GRACE_DAYS) * 86_400_000 : undefined,
  purgeIntervalMs: Number(env.BACKEND_PURGE_INTERVAL_MS ?? 3_600_000),
  invitationUrl: env.BACKEND_INVITATION_URL || undefined,
  forceReloadUrl: env.BACKEND_FORCE_RELOAD_URL || undefined,
  forceReloadSecret: env.BACKEND_FORCE_RELOAD_SECRET || undefined,
  mailUrl: env.BACKEND_MAIL_URL || undefined,
  mailApiKey: env.BACKEND_MAIL_API_KEY || undefined,
  logger: { info: log('info'), warn: log('warn'), error: log('error') },
});

process.stdout.write(`backend stand-in listening on ${backend.url} (API under ${backend.url}/api)\n`);

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  backend.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
