import type { RequestHandler } from 'express';
import session, { Store, type SessionData } from 'express-session';
import type { Logger } from 'pino';
import type { LRUCache } from 'lru-cache';
import { boundedLru } from './bounded-lru.ts';
import type { Config } from './config.ts';
import { closeRedis, redisClient, type RedisClient } from './redis.ts';

/**
 * The app's own server-side session: it holds our CSRF token (server/security/csrf.ts) and nothing
 * about the user's identity, which lives in Kratos's session. The cookie is only set once something
 * is stored (`saveUninitialized: false`), so pages without our forms set no cookie.
 */
export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** `__Host-` binds the cookie to our exact origin (Secure, Path=/, no Domain): production only, as it needs HTTPS. */
export function sessionCookieName(config: Pick<Config, 'isProduction'>): string {
  return config.isProduction ? '__Host-accounts.sid' : 'accounts.sid';
}

export type SessionSetup = {
  /** Loads or creates the session: for routes that need one (our CSRF token, flash messages). */
  middleware: RequestHandler;
  /**
   * Loads the session only when the browser already has our cookie. Mounted app-wide: most requests
   * (sign-in pages, probes, JSON) have no session, and skipping the store spares every one of them.
   */
  whenPresent: RequestHandler;
  /** False while the Redis store is unreachable; always true for the memory store. */
  isReady(): boolean;
  close(): Promise<void>;
};

/** How many sessions the memory store keeps at most; past it, the least recently used one goes. */
export const MEMORY_STORE_MAX_SESSIONS = 20_000;

/**
 * In-memory store for development, tests and single-instance runs without REDIS_URL, on `lru-cache`:
 * bounded in count (the least recently used session is dropped past `max`) and in time (each entry
 * expires with its cookie). Only browsers that were shown one of our forms, or posted one, have a
 * session at all (docs/decisions/080-no-session-for-guests.md), so the bound is never reached in normal
 * use; it caps what a flood could cost.
 */
export class BoundedMemoryStore extends Store {
  readonly #sessions: LRUCache<string, string>;

  /** `perf` is the clock expiries are measured on (tests pass one they can move forward). */
  constructor(options: { max?: number; perf?: { now(): number } } = {}) {
    super();
    const { max = MEMORY_STORE_MAX_SESSIONS, perf } = options;
    this.#sessions = boundedLru<string, string>(max, { ttl: SESSION_TTL_MS, ...(perf ? { perf } : {}) });
  }

  get size(): number {
    return this.#sessions.size;
  }

  override get(sid: string, callback: (err: unknown, session?: SessionData | null) => void): void {
    const data = this.#sessions.get(sid);
    callback(null, data === undefined ? null : (JSON.parse(data) as SessionData));
  }

  override set(sid: string, data: SessionData, callback?: (err?: unknown) => void): void {
    this.#sessions.set(sid, JSON.stringify(data), { ttl: ttlOf(data) });
    callback?.();
  }

  override touch(sid: string, data: SessionData, callback?: () => void): void {
    const entry = this.#sessions.get(sid);
    if (entry !== undefined) this.#sessions.set(sid, entry, { ttl: ttlOf(data) });
    callback?.();
  }

  override destroy(sid: string, callback?: (err?: unknown) => void): void {
    this.#sessions.delete(sid);
    callback?.();
  }

  override clear(callback?: (err?: unknown) => void): void {
    this.#sessions.clear();
    callback?.();
  }

  override length(callback: (err: unknown, length?: number) => void): void {
    callback(null, this.#sessions.size);
  }

  close(): void {
    this.#sessions.clear();
  }
}

/** Milliseconds until the session's cookie expires, at most SESSION_TTL_MS and at least 1. */
function ttlOf(data: SessionData): number {
  const expires = data.cookie?.expires ? new Date(data.cookie.expires).getTime() : Number.NaN;
  const left = Number.isFinite(expires) ? expires - Date.now() : SESSION_TTL_MS;
  return Math.max(1, Math.min(SESSION_TTL_MS, left));
}

/** Redis TTL in seconds: the cookie's remaining life, never more than SESSION_TTL_MS (never a key without expiry). */
export function redisTtlSeconds(data: SessionData): number {
  return Math.ceil(ttlOf(data) / 1000);
}

function whenCookiePresent(config: Pick<Config, 'isProduction'>, middleware: RequestHandler): RequestHandler {
  const name = sessionCookieName(config);
  return (req, res, next) => (req.cookies?.[name] ? middleware(req, res, next) : next());
}

export function createSession(config: Config, logger: Logger): SessionSetup {
  const cookie: session.CookieOptions = {
    httpOnly: true,
    sameSite: 'lax',
    secure: config.isProduction,
    path: '/',
    maxAge: SESSION_TTL_MS,
  };
  const options = (store: Store): session.SessionOptions => ({
    name: sessionCookieName(config),
    secret: config.SESSION_SECRET,
    store,
    cookie,
    resave: false,
    saveUninitialized: false,
    unset: 'destroy',
  });

  if (!config.REDIS_URL) {
    const store = new BoundedMemoryStore();
    const middleware = session(options(store));
    return { middleware, whenPresent: whenCookiePresent(config, middleware), isReady: () => true, close: async () => store.close() };
  }

  // Sessions live in Redis, shared by every instance. While Redis is down they fail closed: a request
  // that needs its session gets the error page (our CSRF token cannot be checked), readiness says
  // "session-store", and the client reconnects on its own (server/redis.ts). `redis` and
  // `connect-redis` are loaded only here, when REDIS_URL is set.
  let client: RedisClient | undefined;
  const loading = Promise.all([redisClient(config.REDIS_URL, logger, 'sessions'), import('connect-redis')]).then(([made, { RedisStore }]) => {
    client = made;
    return session(options(new RedisStore({ client: made, prefix: 'accounts:sess:', ttl: redisTtlSeconds })));
  });
  let loaded: RequestHandler | undefined;
  void loading.then((middleware) => (loaded = middleware)).catch((error: unknown) => logger.error({ err: error }, 'redis session store could not be loaded'));
  const middleware: RequestHandler = (req, res, next) => (loaded ? loaded(req, res, next) : loading.then((ready) => ready(req, res, next), next));
  return {
    middleware,
    whenPresent: whenCookiePresent(config, middleware),
    isReady: () => client?.isReady === true,
    close: async () => closeRedis(client ?? (await loading.then(() => client).catch(() => undefined))),
  };
}
