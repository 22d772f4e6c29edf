// `npm start`: runs the product on a bare machine: the embedded identity service, the embedded
// backend and the app, as three processes wired by environment variables. Production runs only
// the app (dist/server.js) and points its URLs at real Ory and the real backend; `npm run start:ory`
// runs it on real Kratos and Hydra instead of the stand-ins (scripts/start-ory.ts).
import { createSupervisor } from './supervisor.ts';
import { appEnv, backendEnv, LOCAL_PRODUCT, startLocalProviders } from './local-product.ts';

const { appUrl, identityPublic, identityAdmin, backendUrl } = LOCAL_PRODUCT;
const supervisor = createSupervisor();

// The embedded Google, Microsoft, Dropbox and Apple run in this process (their Apple key and client
// registrations are made at start, and the identity service is told them through its environment).
const { fakes, identityOverrides } = await startLocalProviders(identityPublic);
supervisor.onStop(() => fakes.close());
supervisor.start('identity', ['embedded/identity/main.ts'], { APP_URL: appUrl, IDENTITY_CONFIG_OVERRIDES: identityOverrides });
// Locally the identity admin API listens on loopback only and, as Kratos's does, has no key.
supervisor.start('backend', ['embedded/backend/main.ts'], {
  ...backendEnv({ publicUrl: identityPublic, adminUrl: identityAdmin }),
});
supervisor.start('app', ['dist/server.js'], appEnv());
process.stdout.write(`accounts: ${appUrl}  (identity ${identityPublic}, mailbox ${identityAdmin}/mailbox, backend ${backendUrl})\n`);
process.stdout.write(
  `sign-in providers (embedded, test accounts only): ${[fakes.google, fakes.microsoft, fakes.dropbox, fakes.apple].map((f) => `${f.label} ${f.origin}`).join(', ')}\n`,
);
