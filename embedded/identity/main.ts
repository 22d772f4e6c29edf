// Runs the identity stand-in on its own: `./node_modules/.bin/node embedded/identity/main.ts`.
// Config file: IDENTITY_CONFIG or embedded/identity/identity.config.yaml.
// Env overrides: APP_URL (or IDENTITY_APP_URL), IDENTITY_PUBLIC_PORT, IDENTITY_ADMIN_PORT, IDENTITY_HOST,
// IDENTITY_DATA_DIR, IDENTITY_ADMIN_API_KEY, IDENTITY_SMTP_URL, IDENTITY_PUBLIC_URL, IDENTITY_ADMIN_URL,
// IDENTITY_CONFIG_OVERRIDES (JSON of Kratos keys merged last: `npm start` passes the embedded sign-in providers).
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { merge } from './config.ts';
import { buildConfig, startIdentity, type StartIdentityOptions } from './index.ts';

const env = process.env;
const configFile = env.IDENTITY_CONFIG ?? fileURLToPath(new URL('./identity.config.yaml', import.meta.url));
const num = (v: string | undefined) => (v === undefined || v === '' ? undefined : Number(v));

const options: StartIdentityOptions = {
  configFile,
  appUrl: env.IDENTITY_APP_URL ?? env.APP_URL,
  publicPort: num(env.IDENTITY_PUBLIC_PORT),
  adminPort: num(env.IDENTITY_ADMIN_PORT),
  host: env.IDENTITY_HOST,
  adminApiKey: env.IDENTITY_ADMIN_API_KEY,
  smtpUrl: env.IDENTITY_SMTP_URL,
  config: merge(
    {
      serve: {
        // A port override without an explicit URL moves the base URL along with it.
        public: baseUrlOverride(env.IDENTITY_PUBLIC_URL, env.IDENTITY_PUBLIC_PORT),
        admin: baseUrlOverride(env.IDENTITY_ADMIN_URL, env.IDENTITY_ADMIN_PORT),
      },
    },
    env.IDENTITY_CONFIG_OVERRIDES ? JSON.parse(env.IDENTITY_CONFIG_OVERRIDES) : undefined,
  ),
};

function baseUrlOverride(url: string | undefined, port: string | undefined): { base_url?: string } {
  if (url) return { base_url: url };
  if (port && port !== '0') return { base_url: `http://localhost:${port}/` };
  return {};
}
const config = buildConfig(options);
const dbPath = env.IDENTITY_DATA_DIR ? join(env.IDENTITY_DATA_DIR, 'identity.sqlite') : resolve(config.database.path);

const svc = await startIdentity({ ...options, database: dbPath });
process.stdout.write(`identity (dev stand-in for Ory Kratos): public ${svc.publicUrl}, admin ${svc.adminUrl}, mailbox ${svc.adminUrl}/mailbox, db ${dbPath}\n`);

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  await svc.close();
  process.exit(0);
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
