import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { createApp } from '../../server/app.ts';
import { loadConfig } from '../../server/config.ts';
import { startIdentity, type StartIdentityOptions } from '../../embedded/identity/index.ts';
import { startBackend } from '../../embedded/backend/index.ts';
import type { Clock } from '../../embedded/clock.ts';

export type Stack = {
  appUrl: string;
  identity: { publicUrl: string; adminUrl: string };
  backend: { url: string };
  server: http.Server;
  close(): Promise<void>;
};

/**
 * The whole product on ephemeral ports: the embedded identity service and backend, and the real app
 * talking to them over HTTP exactly as in production. The app's port is taken first because the
 * identity service needs the app's URL for its ui_url and allowed_return_urls settings.
 */
export async function startStack(
  options: {
    env?: Record<string, string>;
    identityConfig?: StartIdentityOptions['config'];
    /** One clock for both stand-ins (createTestClock() from embedded/clock.ts): tests advance it instead of sleeping. */
    clock?: Clock;
  } = {},
): Promise<Stack> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const appUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const identity = await startIdentity({
    publicPort: 0,
    adminPort: 0,
    database: ':memory:',
    appUrl,
    argon2: { memory: 1024, iterations: 1, parallelism: 1 },
    config: options.identityConfig,
    clock: options.clock,
  });
  const backend = await startBackend({
    port: 0,
    database: ':memory:',
    identityPublicUrl: identity.publicUrl,
    identityAdminUrl: identity.adminUrl,
    clock: options.clock,
  });
  const config = loadConfig({
    NODE_ENV: 'test',
    PUBLIC_URL: appUrl,
    KRATOS_PUBLIC_URL: identity.publicUrl,
    KRATOS_ADMIN_URL: identity.adminUrl,
    BACKEND_URL: backend.url,
    LOG_LEVEL: 'silent',
    ENABLE_TEST_ROUTES: 'true',
    ...options.env,
  });
  const app = await createApp(config, pino({ level: 'silent' }));
  server.on('request', app);

  return {
    appUrl,
    identity,
    backend,
    server,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await backend.close();
      await identity.close();
    },
  };
}
