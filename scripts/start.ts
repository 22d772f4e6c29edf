// `npm start`: runs the product on a bare machine: the embedded identity service, the embedded
// backend and the app, as three processes wired by environment variables. Production runs only
// the app (dist/server.js) and points its URLs at real Ory and the real backend; `npm run start:ory`
// runs it on real Kratos and Hydra instead of the stand-ins (scripts/start-ory.ts).
import { createSupervisor } from './supervisor.ts';
import { APP_NODE_FLAGS, appEnv, backendEnv, captchaEnv, documentAppEnv, LOCAL_PRODUCT, oauth2AppEnv, startLocalProviders } from './local-product.ts';

const { appUrl, identityPublic, identityAdmin, backendUrl, hydraPublic, hydraAdmin, documentAppUrl } = LOCAL_PRODUCT;
const port = (url: string) => new URL(url).port || '80';
const supervisor = createSupervisor();

// The embedded Google, Microsoft, Dropbox and Apple run in this process (their Apple key and client
// registrations are made at start, and the identity service is told them through its environment).
const { fakes, identityOverrides } = await startLocalProviders(identityPublic);
supervisor.onStop(() => fakes.close());
// The OAuth2 provider (a stand-in for Ory Hydra): the identity service accepts its login challenges,
// and an accepted logout there ends the identity session too.
supervisor.start('oauth2', ['embedded/oauth2/main.ts'], {
  OAUTH2_PUBLIC_PORT: port(hydraPublic),
  OAUTH2_ADMIN_PORT: port(hydraAdmin),
  OAUTH2_PUBLIC_HOST: new URL(hydraPublic).hostname,
  APP_URL: appUrl,
  IDENTITY_ADMIN_URL: identityAdmin,
});
const identityConfig = { ...(JSON.parse(identityOverrides) as object), oauth2_provider: { url: hydraAdmin } };
supervisor.start('identity', ['embedded/identity/main.ts'], { APP_URL: appUrl, IDENTITY_CONFIG_OVERRIDES: JSON.stringify(identityConfig) });
// Locally the identity admin API listens on loopback only and, as Kratos's does, has no key.
supervisor.start('backend', ['embedded/backend/main.ts'], {
  ...backendEnv({ publicUrl: identityPublic, adminUrl: identityAdmin, mailUrl: `${identityAdmin}/mailbox` }),
});
// The gateway's desktop and mobile clients are registered before the app starts: it is told their ids.
const oauth2 = await oauth2AppEnv();
supervisor.start('document-app', ['embedded/document-app/main.ts'], documentAppEnv());
supervisor.start('captcha', ['embedded/captcha/main.ts'], captchaEnv());
supervisor.start('app', [...APP_NODE_FLAGS, 'dist/server.js'], { ...appEnv(), ...oauth2.env });
process.stdout.write(`accounts: ${appUrl}  (identity ${identityPublic}, mailbox ${identityAdmin}/mailbox, backend ${backendUrl})\n`);
process.stdout.write(`OAuth2 (embedded stand-in for Ory Hydra): ${hydraPublic}, admin ${hydraAdmin}; demo document app: ${documentAppUrl}\n`);
process.stdout.write(
  `sign-in providers (embedded, test accounts only): ${[fakes.google, fakes.microsoft, fakes.dropbox, fakes.apple].map((f) => `${f.label} ${f.origin}`).join(', ')}\n`,
);
