// `npm start`: runs the product on a bare machine: the embedded identity service, the embedded
// backend and the app, as three processes wired by environment variables. Production runs only
// the app (dist/server.js) and points its URLs at real Ory and the real backend.
import { spawn, type ChildProcess } from 'node:child_process';

const node = process.execPath;
const env = { ...process.env };
const appUrl = env.PUBLIC_URL ?? `http://localhost:${env.PORT ?? 3000}`;
const identityPublic = env.KRATOS_PUBLIC_URL ?? 'http://localhost:4433';
const identityAdmin = env.KRATOS_ADMIN_URL ?? 'http://localhost:4434';
const backendUrl = env.BACKEND_URL ?? 'http://localhost:4500';

const children: ChildProcess[] = [];
function start(name: string, args: string[], extraEnv: Record<string, string>) {
  const child = spawn(node, args, { env: { ...env, ...extraEnv }, stdio: 'inherit' });
  child.on('exit', (code, signal) => {
    if (!stopping) {
      process.stderr.write(`${name} exited (${signal ?? code}); stopping everything\n`);
      stop(code ?? 1);
    }
  });
  children.push(child);
}

let stopping = false;
function stop(code = 0) {
  stopping = true;
  for (const child of children) child.kill('SIGTERM');
  setTimeout(() => process.exit(code), 11_000).unref();
  Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.on('exit', r))))).then(() => process.exit(code));
}
process.on('SIGTERM', () => stop(0));
process.on('SIGINT', () => stop(0));

start('identity', ['embedded/identity/main.ts'], { APP_URL: appUrl });
// Locally the identity admin API listens on loopback only and, as Kratos's does, has no key.
start('backend', ['embedded/backend/main.ts'], {
  IDENTITY_PUBLIC_URL: identityPublic,
  IDENTITY_ADMIN_URL: identityAdmin,
  BACKEND_CORS_ORIGINS: env.BACKEND_CORS_ORIGINS ?? new URL(appUrl).origin,
});
start('app', ['dist/server.js'], {
  PUBLIC_URL: appUrl,
  KRATOS_PUBLIC_URL: identityPublic,
  KRATOS_ADMIN_URL: identityAdmin,
  BACKEND_URL: backendUrl,
  // The local product shows its development hooks (the crash screen at /__test/crash, the UI kit).
  ENABLE_TEST_ROUTES: env.ENABLE_TEST_ROUTES ?? (env.NODE_ENV === 'production' ? 'false' : 'true'),
});
process.stdout.write(`accounts: ${appUrl}  (identity ${identityPublic}, mailbox ${identityAdmin}/mailbox, backend ${backendUrl})\n`);
