// `npm start`: runs the product on a bare machine: the stand-ins (scripts/local-stand-ins.ts) and the
// app, as processes wired by environment variables. Production runs only
// the app (dist/server.js) and points its URLs at real Ory and the real backend; `npm run start:ory`
// runs it on real Kratos and Hydra instead of the stand-ins (scripts/start-ory.ts).
import { createSupervisor } from './supervisor.ts';
import { APP_NODE_FLAGS, appEnv, LOCAL_PRODUCT } from './local-product.ts';
import { startStandIns } from './local-stand-ins.ts';

const { appUrl, identityPublic, identityAdmin, backendUrl, hydraPublic, hydraAdmin, documentAppUrl } = LOCAL_PRODUCT;
const supervisor = createSupervisor();
const standIns = await startStandIns(supervisor);
supervisor.start('app', [...APP_NODE_FLAGS, 'dist/server.js'], { ...appEnv(), ...standIns.appEnv });
const { fakes } = standIns;
process.stdout.write(`accounts: ${appUrl}  (identity ${identityPublic}, mailbox ${identityAdmin}/mailbox, backend ${backendUrl})\n`);
process.stdout.write(`OAuth2 (embedded stand-in for Ory Hydra): ${hydraPublic}, admin ${hydraAdmin}; demo document app: ${documentAppUrl}\n`);
process.stdout.write(
  `sign-in providers (embedded, test accounts only): ${[fakes.google, fakes.microsoft, fakes.dropbox, fakes.apple].map((f) => `${f.label} ${f.origin}`).join(', ')}\n`,
);
