// The app's Redis connections (REDIS_URL): sessions, rate limits and the socket fan-out share one
// Redis. The `redis` package is loaded only when REDIS_URL is set (a dynamic import), so a single
// instance without Redis never loads it. Decision: docs/decisions/160-live-sessions-and-scale-out.md.
import type { Logger } from 'pino';
import type { RedisClientType } from 'redis';

export type RedisClient = RedisClientType;

/** Reconnection after a lost connection: 100 ms doubling, at most 5 s apart, forever (Redis comes back without a restart of ours). */
export const redisReconnectDelay = (retries: number) => Math.min(100 * 2 ** retries, 5_000);

/** How often one connection's errors are logged at most: a Redis outage must not flood the log. */
const ERROR_LOG_EVERY_MS = 10_000;

/**
 * A client of `url`, connecting in the background. Commands fail at once while Redis is down (no
 * offline queue), so a request gets its fallback or its error page instead of hanging; `isReady`
 * says whether it can serve now (readiness reports it).
 */
export async function redisClient(url: string, logger: Logger, role: string): Promise<RedisClient> {
  const { createClient } = await import('redis');
  const client = createClient({
    url,
    disableOfflineQueue: true,
    socket: { reconnectStrategy: redisReconnectDelay, connectTimeout: 5_000 },
  }) as RedisClient;
  let loggedAt = 0;
  client.on('error', (error: unknown) => {
    if (Date.now() - loggedAt < ERROR_LOG_EVERY_MS) return;
    loggedAt = Date.now();
    logger.warn({ err: { message: (error as Error).message }, role }, 'redis connection error');
  });
  client.on('ready', () => logger.info({ role }, 'redis connection ready'));
  client.connect().catch((error: unknown) => logger.error({ err: { message: (error as Error).message }, role }, 'redis: cannot connect'));
  return client;
}

/** Closes a client whether or not it ever connected. */
export async function closeRedis(client: RedisClient | undefined): Promise<void> {
  if (!client) return;
  try {
    // A connection that is not serving (down, reconnecting) is dropped at once: close() would wait for it.
    if (client.isReady) await Promise.race([client.close(), new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
    if (client.isOpen) client.destroy();
  } catch {
    // Closed already, or the connection broke while closing: nothing is left to release.
  }
}
