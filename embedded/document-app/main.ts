// Runs the demo document app for `npm start`: ./node_modules/.bin/node embedded/document-app/main.ts
import { startDocumentApp } from './index.ts';

const env = process.env;
const app = await startDocumentApp({
  port: Number(env.DOCUMENT_APP_PORT ?? 4700),
  host: env.DOCUMENT_APP_HOST || undefined,
  publicHost: env.DOCUMENT_APP_PUBLIC_HOST || 'localhost',
  oauth2PublicUrl: env.OAUTH2_PUBLIC_URL ?? 'http://localhost:4444',
  oauth2AdminUrl: env.OAUTH2_ADMIN_URL ?? 'http://localhost:4445',
  readyTimeoutMs: Number(env.DOCUMENT_APP_READY_TIMEOUT_MS ?? 60_000),
});

// The client id is not a secret; the secret never goes to the log.
process.stdout.write(`document app (demo OAuth2 client ${app.clientId}) listening on ${app.url}\n`);

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
