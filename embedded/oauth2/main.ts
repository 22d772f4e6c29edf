// Runs the OAuth2 stand-in on its own: `./node_modules/.bin/node embedded/oauth2/main.ts` (`npm start`
// starts it beside the identity stand-in). Environment: OAUTH2_PUBLIC_PORT (4444), OAUTH2_ADMIN_PORT
// (4445), OAUTH2_HOST (127.0.0.1), OAUTH2_PUBLIC_HOST (localhost), OAUTH2_DATABASE (data/oauth2.sqlite,
// or :memory:), APP_URL (the app, whose pages are the login, consent, logout and error UI;
// http://localhost:3000), IDENTITY_ADMIN_URL (the identity service's admin URL: logout ends its session).
import { resolve } from 'node:path';
import { startOAuth2Provider } from './index.ts';

const env = process.env;
const port = (value: string | undefined, fallback: number) => (value === undefined || value === '' ? fallback : Number(value));
const app = (env.APP_URL ?? 'http://localhost:3000').replace(/\/+$/, '');
const database = env.OAUTH2_DATABASE === ':memory:' ? ':memory:' : resolve(env.OAUTH2_DATABASE ?? 'data/oauth2.sqlite');

// The app's pages, as scripts/ory/hydra.ts gives them to real Hydra (HYDRA_UI_PATHS; embedded/ cannot import core/).
const provider = await startOAuth2Provider({
  host: env.OAUTH2_HOST ?? '127.0.0.1',
  publicHost: env.OAUTH2_PUBLIC_HOST ?? 'localhost',
  publicPort: port(env.OAUTH2_PUBLIC_PORT, 4444),
  adminPort: port(env.OAUTH2_ADMIN_PORT, 4445),
  database,
  urls: { login: `${app}/sign-in`, consent: `${app}/consent`, logout: `${app}/logout`, error: `${app}/error`, postLogout: `${app}/` },
  identityProviderAdminUrl: env.IDENTITY_ADMIN_URL || undefined,
});
process.stdout.write(`oauth2 (dev stand-in for Ory Hydra): public ${provider.publicUrl}, admin ${provider.adminUrl}, db ${database}\n`);

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  await provider.close();
  process.exit(0);
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
