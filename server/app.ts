import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import compression from 'compression';
import expressStaticGzip from 'express-static-gzip';
import cookieParser from 'cookie-parser';
import express, { type Express, type Request, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';
import { bundledIslandScripts, FIRST_PAINT_FILE, GUEST_CSS_FILE, guestStyleHash, loadInlined, loadManifest } from './assets.ts';
import type { Config } from './config.ts';
import { errorResponder, failedRequestFields, notFound } from './http-errors.ts';
import { wantsJson } from './flows/respond.ts';
import { createI18n, i18nRequest } from './i18n.ts';
import type { AppLocals } from './locals.ts';
import { logSerializers } from './logger.ts';
import { healthRoutes, identityReadiness } from './routes/health.ts';
import { mountRoutes } from './routes/index.ts';
import { testRoutes } from './routes/test-hooks.ts';
import { admissionControl, refuseOverloaded } from './security/admission.ts';
import { cspNonce, securityHeaders } from './security/headers.ts';
import { createSession } from './session.ts';
import { closeRedis } from './redis.ts';
import { useRateLimitStore } from './security/rate-limit.ts';
import { sharedLimitStores } from './security/shared-limit-store.ts';
import { createLiveSessions } from './socket/live-sessions.ts';
import { ROUTES } from '../core/routes.ts';

const REQUEST_ID = /^[\w.-]{1,128}$/;
const BODY_LIMIT = '64kb';
const PROBES = new Set<string>([ROUTES.health, ROUTES.ready]);

/** `/favicon.ico`, … : the files directly in the built public folder, the manifest and what pages inline excepted. */
function topLevelPublicFiles(dir: string): Set<string> {
  const names = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && !['manifest.json', GUEST_CSS_FILE, FIRST_PAINT_FILE].includes(entry.name) && !/\.(br|gz)$/.test(entry.name))
    .map((entry) => `/${entry.name}`);
  return new Set(names);
}

// Dynamic answers (pages, JSON, redirects) are never cached: they may carry a CSRF token or
// personal data. Mounted after the static files, which set their own Cache-Control.
const dynamicAnswerDefaults: RequestHandler = (req, res, next) => {
  res.set('Cache-Control', 'no-store');
  // Once shutdown has begun, a kept-alive connection is closed after its current answer.
  if ((req.app.locals as AppLocals).shuttingDown) res.set('Connection', 'close');
  next();
};

/**
 * Express 5's `req.query` is a getter that parses the query string again on every read, and a sign-in
 * page reads it about ten times (logging, guards, the flow, the view): parsed once here, then the same
 * object, read-only as before (nothing of ours changes it). The query never changes within a request.
 */
const queryParsedOnce: RequestHandler = (req, _res, next) => {
  Object.defineProperty(req, 'query', { value: req.query, enumerable: true, configurable: true });
  next();
};

/**
 * A browser's page load (a GET asking for HTML) is answered with a page that compresses itself
 * (server/render.tsx sendHtml) or a redirect of a few bytes: the compression middleware, which wraps
 * the response's writes for every request, would only step aside. The Swagger UI page is HTML the
 * middleware does compress, and a client that prefers JSON gets JSON.
 */
function answeredWithPage(req: Request): boolean {
  const navigation = (req.method === 'GET' || req.method === 'HEAD') && (req.headers.accept ?? '').includes('text/html');
  return navigation && req.path !== ROUTES.swaggerUi && !wantsJson(req);
}

/**
 * Production cookies are `Secure`: express-session sets ours only on requests it sees as HTTPS, i.e.
 * with `X-Forwarded-Proto: https` from a trusted proxy (TRUST_PROXY). Without it no session cookie is
 * set and every form of ours answers 403. Said once at start-up, and once more on the first request
 * that arrives as plain HTTP.
 */
function warnOnceOnPlainHttp(config: Config, logger: Logger): RequestHandler {
  logger.info(
    { trustProxy: config.TRUST_PROXY },
    'production: session cookies are Secure and set only on HTTPS requests; behind a proxy it must send X-Forwarded-Proto: https and TRUST_PROXY must trust it, or every app form answers 403',
  );
  let warned = false;
  return (req, _res, next) => {
    if (!warned && !req.secure) {
      warned = true;
      logger.warn(
        { trustProxy: config.TRUST_PROXY, forwardedProto: req.headers['x-forwarded-proto'] ?? null },
        'a request arrived as plain HTTP in production: no session cookie will be set and app forms will answer 403; send X-Forwarded-Proto: https from a proxy TRUST_PROXY trusts',
      );
    }
    next();
  };
}

export async function createApp(config: Config, logger: Logger): Promise<Express> {
  const app = express();
  const manifest = loadManifest(config.ASSETS_DIR);
  const session = createSession(config, logger);
  // Shared state with REDIS_URL (decision 160): rate-limit counts and the socket fan-out in Redis too.
  const limits = config.REDIS_URL ? await sharedLimitStores(config.REDIS_URL, logger) : undefined;
  const liveSessions = await createLiveSessions(config, logger);
  const islandScripts = islandScriptsOf(manifest);
  const locals: AppLocals = {
    config,
    logger,
    i18n: await createI18n(config.LANGUAGES, config.DEFAULT_LANGUAGE, config.LOCALES_DIR),
    assets: {
      css: manifest['app.css'] ?? '',
      js: manifest['main.js'] ?? '',
      oneTap: manifest['one-tap.js'],
      appBridge: manifest['app-bridge.js'],
      guestCss: loadInlined(config.ASSETS_DIR, GUEST_CSS_FILE),
      firstPaint: loadInlined(config.ASSETS_DIR, FIRST_PAINT_FILE),
    },
    islandScripts,
    bundledIslandScripts: bundledIslandScripts(config.ASSETS_DIR, islandScripts),
    shuttingDown: false,
    readiness: [
      { name: 'session-store', check: session.isReady },
      { name: 'identity', check: identityReadiness(config) },
      ...(limits ? [{ name: 'redis', check: () => limits.client.isReady && liveSessions.isReady() }] : []),
    ],
    onShutdown: [session.close, liveSessions.close, async () => closeRedis(limits?.client)],
    liveSessions,
    startSession: session.middleware,
  };
  Object.assign(app.locals, locals);

  app.disable('x-powered-by');
  // Dynamic answers are no-store, so an ETag (a hash of every body) would never be used.
  app.set('etag', false);
  app.set('trust proxy', config.TRUST_PROXY);

  app.use(queryParsedOnce);
  app.use(
    pinoHttp({
      logger,
      genReqId: (req, res) => {
        const incoming = req.headers['x-request-id'];
        const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      serializers: logSerializers,
      customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
      customErrorObject: failedRequestFields,
      // Probes hit every few seconds; their answers are not worth a log line each.
      autoLogging: { ignore: (req) => PROBES.has(String(req.url).split('?')[0] ?? '') },
    }),
  );
  if (config.isProduction) app.use(warnOnceOnPlainHttp(config, logger));
  const guestStyle = guestStyleHash(locals.assets.guestCss);
  app.use(cspNonce, securityHeaders(config, guestStyle ? [guestStyle] : []));

  const assetsDir = path.resolve(config.ASSETS_DIR);
  // Static files go out as the build compressed them (brotli 11 or gzip 9, scripts/build.mjs), never
  // compressed again per request. Content-hashed names: a changed file gets a new URL, so a year of
  // immutable caching is safe, and validators and ranges serve nothing: no ETag, Last-Modified or
  // Accept-Ranges (~95 B per script on a cold page load, issue #17's 15 KB bar).
  app.use(
    '/assets',
    expressStaticGzip(path.join(assetsDir, 'assets'), {
      enableBrotli: true,
      orderPreference: ['br', 'gz'],
      index: false,
      serveStatic: { immutable: true, maxAge: '365d', index: false, fallthrough: true, etag: false, lastModified: false, acceptRanges: false },
    }),
  );
  // Favicons and friends: the few top-level files, listed once, so page requests never touch the disk.
  const publicFiles = expressStaticGzip(assetsDir, {
    enableBrotli: true,
    orderPreference: ['br', 'gz'],
    index: false,
    serveStatic: { maxAge: '1d', index: false },
  });
  const publicNames = topLevelPublicFiles(assetsDir);
  app.use((req, res, next) => (publicNames.has(req.path) ? publicFiles(req, res, next) : next()));
  // JSON and other dynamic answers (pages compress themselves: server/render.tsx sendHtml).
  const compress = compression({ threshold: 512 });
  app.use((req, res, next) => (answeredWithPage(req) ? next() : compress(req, res, next)));
  app.use(dynamicAnswerDefaults);

  app.use(healthRoutes());
  app.use(cookieParser());
  app.use(i18nRequest(locals.i18n));
  // Past this point requests cost real work: at most MAX_IN_FLIGHT at once, the rest wait briefly or get a quick 503.
  app.use(admissionControl({ maxInFlight: config.MAX_IN_FLIGHT, queueTimeoutMs: config.QUEUE_TIMEOUT_MS }, refuseOverloaded));
  app.use(session.whenPresent);
  app.use(express.urlencoded({ extended: false, limit: BODY_LIMIT, parameterLimit: 200 }));
  app.use(express.json({ limit: BODY_LIMIT }));

  if (config.ENABLE_TEST_ROUTES) app.use(testRoutes());
  // The limiters are built while the routers are, right below: they count in this app's store.
  useRateLimitStore(limits?.factory);
  mountRoutes(app);

  // Everything unmatched, /404 itself included, is the 404 page.
  app.use(notFound);
  app.use(errorResponder);
  return app;
}

/** The manifest's script entries other than the shared bundle, by name (`avatar.js` → `avatar`). */
function islandScriptsOf(manifest: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(manifest)
      .filter(([name]) => name.endsWith('.js') && name !== 'main.js')
      .map(([name, url]) => [name.slice(0, -'.js'.length), url]),
  );
}
