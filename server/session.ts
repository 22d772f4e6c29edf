import { RedisStore } from 'connect-redis';
import type { RequestHandler } from 'express';
import session, { Store, type SessionData } from 'express-session';
import type { Logger } from 'pino';
import { createClient } from 'redis';
import type { Config } from './config.ts';

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

/**
 * In-memory store for development, tests and single-instance runs without REDIS_URL. Unlike
 * express-session's MemoryStore it drops expired sessions on a timer instead of growing forever.
 */
export class ExpiringMemoryStore extends Store {
  readonly #sessions = new Map<string, { data: string; expires: number }>();
  readonly #timer: NodeJS.Timeout;

  constructor(pruneEveryMs = 10 * 60 * 1000) {
    super();
    this.#timer = setInterval(() => this.prune(), pruneEveryMs).unref();
  }

  prune(now = Date.now()): void {
    for (const [sid, entry] of this.#sessions) if (entry.expires <= now) this.#sessions.delete(sid);
  }

  get size(): number {
    return this.#sessions.size;
  }

  override get(sid: string, callback: (err: unknown, session?: SessionData | null) => void): void {
    const entry = this.#sessions.get(sid);
    if (!entry || entry.expires <= Date.now()) {
      this.#sessions.delete(sid);
      return callback(null, null);
    }
    callback(null, JSON.parse(entry.data) as SessionData);
  }

  override set(sid: string, data: SessionData, callback?: (err?: unknown) => void): void {
    const expires = data.cookie?.expires ? new Date(data.cookie.expires).getTime() : Date.now() + SESSION_TTL_MS;
    this.#sessions.set(sid, { data: JSON.stringify(data), expires });
    callback?.();
  }

  override touch(sid: string, data: SessionData, callback?: () => void): void {
    const entry = this.#sessions.get(sid);
    if (entry && data.cookie?.expires) entry.expires = new Date(data.cookie.expires).getTime();
    callback?.();
  }

  override destroy(sid: string, callback?: (err?: unknown) => void): void {
    this.#sessions.delete(sid);
    callback?.();
  }

  close(): void {
    clearInterval(this.#timer);
    this.#sessions.clear();
  }
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
    const store = new ExpiringMemoryStore();
    const middleware = session(options(store));
    return { middleware, whenPresent: whenCookiePresent(config, middleware), isReady: () => true, close: async () => store.close() };
  }

  // Commands fail at once while Redis is down (no offline queue), so requests get an error page
  // instead of hanging; readiness reports the outage meanwhile.
  const client = createClient({
    url: config.REDIS_URL,
    disableOfflineQueue: true,
    socket: { reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 5_000) },
  });
  client.on('error', (error: unknown) => logger.warn({ err: error }, 'redis session store error'));
  client.connect().catch((error: unknown) => logger.error({ err: error }, 'redis session store: cannot connect'));
  const store = new RedisStore({ client, prefix: 'accounts:sess:' });
  const middleware = session(options(store));
  return {
    middleware,
    whenPresent: whenCookiePresent(config, middleware),
    isReady: () => client.isReady,
    close: async () => {
      if (client.isOpen) await client.close().catch(() => client.destroy());
      else client.destroy();
    },
  };
}
