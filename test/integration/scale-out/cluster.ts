// Two app instances on one real redis-server, for the scale-out suite: instance A is the standard
// stack's app (with its identity service and backend), instance B a second app with the same
// configuration on its own HTTP server. Both share sessions, rate-limit counts and the socket fan-out
// through Redis, exactly as `npm run start:cluster` runs them.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { createApp } from '../../../server/app.ts';
import type { Config } from '../../../server/config.ts';
import type { AppLocals } from '../../../server/locals.ts';
import { attachLiveSessions } from '../../../server/socket/live-sessions.ts';
import { startRedisServer, type RunningRedis } from '../../../scripts/redis-server.ts';
import { Browser } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';

export const FORCE_RELOAD_SECRET = 'scale-out-force-reload-secret-0123456789';

export type Instance = { url: string; locals: AppLocals; server: http.Server; stop(): Promise<void> };

export type Cluster = { redis: RunningRedis; stack: Stack; a: Instance; b: Instance; close(): Promise<void> };

/** Another instance of the stack's app, with its configuration or the one given (another REDIS_URL). */
export async function startInstance(stack: Stack, config: Config = stack.locals.config): Promise<Instance> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const app = await createApp(config, pino({ level: 'silent' }));
  server.on('request', app);
  const locals = app.locals as AppLocals;
  attachLiveSessions(server, locals.liveSessions, config);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, locals, server, stop: () => stopInstance(server, locals) };
}

/** What main.ts does on SIGTERM, at once: sockets and connections closed, then the shutdown hooks. */
async function stopInstance(server: http.Server, locals: AppLocals): Promise<void> {
  await locals.liveSessions.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  for (const hook of locals.onShutdown) await hook().catch(() => undefined);
}

export async function startCluster(): Promise<Cluster> {
  const redis = await startRedisServer();
  const stack = await startStack({ env: { REDIS_URL: redis.url, FORCE_RELOAD_SECRET } });
  const aLocals = stack.locals;
  const a: Instance = { url: stack.appUrl, locals: aLocals, server: stack.server, stop: () => stopInstance(stack.server, aLocals) };
  // The same configuration as A (its Redis, identity service, token key set, secret): one product, two processes.
  const b = await startInstance(stack);
  const cluster: Cluster = {
    redis,
    stack,
    a,
    b,
    async close() {
      try {
        await Promise.allSettled([b.stop(), a.stop()]);
        await stack.close();
      } finally {
        // The Redis of now: a test may have restarted it.
        await cluster.redis.stop();
      }
    },
  };
  return cluster;
}

/** A browser on another instance sharing this one's cookies (cookies do not tell ports apart). */
export function sameBrowserOn(browser: Browser, url: string): Browser {
  const other = new Browser(url);
  Object.defineProperty(other, 'cookies', { value: browser.cookies });
  return other;
}
