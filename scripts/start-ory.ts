// `npm run start:ory`: the product on real Ory Kratos and Ory Hydra instead of the stand-ins, for
// operators who want the real thing locally. Same ports and origins as `npm start`
// (scripts/local-product.ts); Kratos reads the stand-in's own configuration file translated
// (scripts/ory/kratos-config.ts), Hydra sends its challenges to the app. Data stays in data/ory/
// (ORY_DATA_DIR). Mails are printed here (real Kratos has no mailbox page). Needs `npm run ory:build`.
// The embedded sign-in providers run here too, on npm start's ports: real Kratos has each as a generic
// provider (scripts/ory/kratos-oidc.ts), which cannot take an ID token, so One Tap stays off.
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hydraAvailable, startHydra } from './ory/hydra.ts';
import { kratosAvailable, startKratos, type StartKratosOptions } from './ory/kratos.ts';
import { APP_NODE_FLAGS, appEnv, backendEnv, captchaEnv, documentAppEnv, LOCAL_PRODUCT, oauth2AppEnv, startLocalProviders } from './local-product.ts';
import { createSupervisor } from './supervisor.ts';

if (!kratosAvailable() || !hydraAvailable()) {
  process.stderr.write('start:ory: real Kratos and Hydra are not built yet: run `npm run ory:build` (needs the Go toolchain)\n');
  process.exit(1);
}
const env = process.env;
const { appUrl, identityPublic, identityAdmin, backendUrl, hydraPublic, hydraAdmin } = LOCAL_PRODUCT;
const dataDir = resolve(env.ORY_DATA_DIR ?? 'data/ory');
const port = (url: string) => Number(new URL(url).port);
const logLevel = env.ORY_LOG_LEVEL ?? 'warning';
const supervisor = createSupervisor();

const hydra = await startHydra({
  appUrl,
  identityProviderAdminUrl: identityAdmin,
  publicPort: port(hydraPublic),
  adminPort: port(hydraAdmin),
  dataDir: join(dataDir, 'hydra'),
  urlHost: 'localhost',
  stdio: 'inherit',
  logLevel,
});
supervisor.onStop(() => hydra.close());
const { fakes, identityOverrides } = await startLocalProviders(identityPublic);
supervisor.onStop(() => fakes.close());
const kratos = await startKratos({
  appUrl,
  configFile: env.IDENTITY_CONFIG ?? fileURLToPath(new URL('../embedded/identity/identity.config.yaml', import.meta.url)),
  config: JSON.parse(identityOverrides) as StartKratosOptions['config'],
  publicPort: port(identityPublic),
  adminPort: port(identityAdmin),
  dataDir: join(dataDir, 'kratos'),
  urlHost: 'localhost',
  stdio: 'inherit',
  logLevel,
  argon2: null,
  oauth2ProviderUrl: hydraAdmin,
  onMail: (mail) => process.stdout.write(`mail to ${mail.recipient} (${mail.template_type}): ${mail.subject ?? ''}\n${mail.body}\n\n`),
});
supervisor.onStop(() => kratos.close());

supervisor.start('backend', ['embedded/backend/main.ts'], {
  // Invitation mails go to the mail sidecar beside Kratos, which prints them like Kratos's own.
  ...backendEnv({ publicUrl: identityPublic, adminUrl: identityAdmin, mailUrl: new URL('/mail', kratos.jwksUrl).href }),
  BACKEND_TOKEN_ISSUER: `${identityPublic}/`,
  BACKEND_TOKEN_JWKS_URL: kratos.jwksUrl,
});
const oauth2 = await oauth2AppEnv();
supervisor.start('document-app', ['embedded/document-app/main.ts'], documentAppEnv());
supervisor.start('captcha', ['embedded/captcha/main.ts'], captchaEnv());
supervisor.start('app', [...APP_NODE_FLAGS, 'dist/server.js'], {
  ...appEnv(),
  ...oauth2.env,
  GOOGLE_CLIENT_ID: env.GOOGLE_CLIENT_ID ?? '',
});
process.stdout.write(`accounts on real Ory: ${appUrl}  (Kratos ${identityPublic}, Hydra ${hydraPublic}, backend ${backendUrl}, data ${dataDir})\n`);
process.stdout.write(
  `sign-in providers (embedded, test accounts only): ${[fakes.google, fakes.microsoft, fakes.dropbox, fakes.apple].map((f) => `${f.label} ${f.origin}`).join(', ')}\n`,
);
