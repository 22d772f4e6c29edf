// Embedded Kratos-compatible identity service (development and test stand-in, not production).
// startIdentity() starts the public and admin listeners and returns their URLs.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { appUrlConfig, defaultConfig, loadConfigFile, merge, type DeepPartial, type IdentityConfig } from './config.ts';
import { Courier } from './courier.ts';
import { Csrf, csrfCookieName } from './csrf.ts';
import { KratosError } from './errors.ts';
import { isJSONRequest, makeBodyReader, parseCookies, redirect, writeReply, type Ctx, type Reply } from './http.ts';
import { storeBrowserError } from './error-ui.ts';
import { adminRoutes, mailboxRoute, match, publicRoutes, type Route } from './routes.ts';
import { loadSchema, type IdentitySchema } from './schema.ts';
import type { Service } from './service.ts';
import { systemClock, type Clock } from '../clock.ts';
import { Store } from './store.ts';
import { Tokenizer } from './tokenizer.ts';

export interface StartIdentityOptions {
  /** Public listener port (0 = ephemeral). Default: config serve.public.port (4433). */
  publicPort?: number;
  /** Admin listener port (0 = ephemeral). Default: config serve.admin.port (4434). */
  adminPort?: number;
  /** Interface to bind (default config serve.*.host, 127.0.0.1). */
  host?: string;
  /** SQLite database: ':memory:' (default) or a file path. */
  database?: string;
  /** argon2id parameters (memory in KiB); tests use tiny values. */
  argon2?: Partial<IdentityConfig['hashers']['argon2']>;
  /** The app's public URL: every selfservice ui_url, default_browser_return_url and allowed_return_urls. */
  appUrl?: string;
  /** Bearer API key required on the admin listener. */
  adminApiKey?: string;
  /** SMTP URL (smtp://user:pass@host:port); mails are also sent through nodemailer. */
  smtpUrl?: string;
  /** A YAML/JSON config file with Kratos keys, merged over the defaults. */
  configFile?: string;
  /** Config overrides (Kratos keys), merged last. */
  config?: DeepPartial<IdentityConfig>;
  /** Time source for every expiry and timestamp (default: real time). Tests pass createTestClock() from embedded/clock.ts. */
  clock?: Clock;
}

export interface IdentityService {
  publicUrl: string;
  adminUrl: string;
  config: IdentityConfig;
  close(): Promise<void>;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function baseUrl(configured: string | undefined, host: string, port: number): string {
  if (configured) return configured.replace(/\/+$/, '');
  const h = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${h}:${port}`;
}

export function buildConfig(o: StartIdentityOptions = {}): IdentityConfig {
  let c = defaultConfig();
  if (o.configFile) c = merge(c, loadConfigFile(o.configFile));
  if (o.appUrl) c = merge(c, appUrlConfig(o.appUrl));
  if (o.config) c = merge(c, o.config);
  if (o.publicPort !== undefined) c.serve.public.port = o.publicPort;
  if (o.adminPort !== undefined) c.serve.admin.port = o.adminPort;
  if (o.host) {
    c.serve.public.host = o.host;
    c.serve.admin.host = o.host;
  }
  if (o.adminApiKey !== undefined) c.serve.admin.api_key = o.adminApiKey;
  if (o.argon2) c.hashers.argon2 = { ...c.hashers.argon2, ...o.argon2 };
  if (o.smtpUrl) c.courier.smtp.connection_uri = o.smtpUrl;
  return c;
}

function makeCtx(req: IncomingMessage, schema: IdentitySchema): Ctx {
  const host = String(req.headers['x-forwarded-host'] ?? req.headers.host ?? 'localhost');
  const proto = String(req.headers['x-forwarded-proto'] ?? 'http')
    .split(',')[0]!
    .trim();
  const raw = req.url ?? '/';
  let url: URL;
  try {
    url = new URL(raw.startsWith('/') ? raw : `/${raw}`, `${proto}://${host}`);
  } catch {
    url = new URL('http://localhost/');
  }
  const fwd = String(req.headers['x-forwarded-for'] ?? '')
    .split(',')[0]!
    .trim();
  return {
    req,
    method: (req.method ?? 'GET').toUpperCase(),
    path: url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname,
    query: url.searchParams,
    requestUrl: url.toString(),
    cookies: parseCookies(req.headers.cookie),
    setCookies: [],
    isJSON: isJSONRequest(req),
    ip: fwd || req.socket.remoteAddress?.replace(/^::ffff:/, '') || '',
    userAgent: String(req.headers['user-agent'] ?? ''),
    requestId: typeof req.headers['x-request-id'] === 'string' ? req.headers['x-request-id'] : undefined,
    params: {},
    body: makeBodyReader(req, schema),
  };
}

function errorReply(svc: Service, ctx: Ctx, route: Route | undefined, e: unknown): Reply {
  let err: KratosError;
  if (e instanceof KratosError) err = e;
  else {
    console.error('[identity] unexpected error', e);
    err = new KratosError(500, {});
  }
  if (route?.browserErrors && !ctx.isJSON && err.code !== 500) {
    if (err.browserRedirect) return redirect(303, err.browserRedirect);
    const id = storeBrowserError(svc, err);
    const u = new URL(svc.config.selfservice.flows.error.ui_url);
    u.searchParams.set('id', id);
    return redirect(303, u.toString());
  }
  return {
    status: err.code,
    body: err.body(ctx.requestId),
    headers: { 'Content-Type': 'application/json', 'Ory-Error-Id': err.id ?? '' },
  };
}

const notFound = () => new KratosError(404, {});

/**
 * The public paths v1.3.1 registers with nosurf's IgnorePath/IgnoreGlob (flow submits and API inits,
 * the API logout, Apple's social sign-in callback, whoami and /sessions, /schemas/*): the middleware
 * issues no anti-CSRF cookie there, though a handler may (a new flow, a new session).
 */
const NOSURF_IGNORED =
  /^\/(self-service\/(login|registration|settings|recovery|verification)(\/api)?|self-service\/logout\/api|self-service\/methods\/oidc\/callback\/apple|sessions(\/[^/]+(\/extend)?)?|schemas\/[^/]+)$/;

async function dispatch(svc: Service, listener: 'public' | 'admin', req: IncomingMessage, res: ServerResponse): Promise<void> {
  const ctx = makeCtx(req, svc.schema);
  let route: Route | undefined;
  let reply: Reply;
  try {
    const search = ctx.query.toString() ? `?${ctx.query.toString()}` : '';
    let path = ctx.path;
    let routes = publicRoutes;
    if (listener === 'public') {
      if (path === '/admin' || path.startsWith('/admin/')) {
        reply = redirect(307, `${svc.adminUrl}${path}${search}`);
        writeReply(res, ctx, reply);
        return;
      }
    } else {
      routes = adminRoutes;
      if (path === '/mailbox') {
        const key = svc.config.serve.admin.api_key;
        if (key && ctx.query.get('key') !== key && !isAuthorized(req, key)) throw new KratosError(401, { reason: 'Open /mailbox?key=<admin API key>.' });
        route = mailboxRoute;
      } else if (path !== '/admin' && !path.startsWith('/admin/')) {
        // v1.3.1's RedirectAdminMiddleware: every path of the admin port outside /admin is a 307 to the
        // same path under /admin, with a relative Location.
        reply = redirect(307, `/admin${path}${search}`);
        writeReply(res, ctx, reply);
        return;
      } else if (/^\/admin\/(self-service|sessions\/whoami|\.well-known)(\/|$)/.test(path)) {
        // The public routes asked on the admin port: a 307 to the public port (v1.3.1 RouterAdmin).
        reply = redirect(307, `${svc.publicUrl}${path.slice('/admin'.length)}${search}`);
        writeReply(res, ctx, reply);
        return;
      } else if (/^\/admin\/(health|version)(\/|$)/.test(path)) {
        path = path.slice('/admin'.length);
      }
      if (!route && path.startsWith('/admin')) {
        const key = svc.config.serve.admin.api_key;
        if (key && !isAuthorized(req, key)) throw new KratosError(401, { reason: 'The admin API key is missing or invalid.' });
      }
    }
    if (!route) {
      const m = match(routes, ctx.method, path);
      if (!m.route) throw m.methodMismatch ? new KratosError(405, {}) : notFound();
      route = m.route;
      ctx.params = m.params;
    }
    reply = await route.handler(svc, ctx);
  } catch (e) {
    try {
      reply = errorReply(svc, ctx, route, e);
    } catch (e2) {
      console.error('[identity] error while reporting an error', e2);
      reply = { status: 500, body: new KratosError(500, {}).body(), headers: { 'Content-Type': 'application/json', 'Ory-Error-Id': '' } };
    }
  }
  // Like Kratos's nosurf middleware, which wraps every public route but the health checks: a request
  // without a valid anti-CSRF cookie gets one, whatever the status, and every answer has `Vary: Cookie`.
  if (listener === 'public' && !/^\/(health|version)(\/|$)/.test(ctx.path)) {
    if (!ctx.csrfToken && !svc.csrf.fromCookie(ctx) && !NOSURF_IGNORED.test(ctx.path)) svc.csrf.regenerate(ctx);
    reply.headers = { ...reply.headers, Vary: 'Cookie' };
  }
  // Drain any unread request body so keep-alive connections stay healthy.
  if (!req.complete) req.resume();
  writeReply(res, ctx, reply);
}

function isAuthorized(req: IncomingMessage, key: string): boolean {
  const h = String(req.headers.authorization ?? '');
  return /^bearer /i.test(h) && h.slice(7).trim() === key;
}

export async function startIdentity(options: StartIdentityOptions = {}): Promise<IdentityService> {
  const config = buildConfig(options);
  const store = new Store(options.database ?? ':memory:');
  const clock = options.clock ?? systemClock;
  let svc: Service | undefined;
  const handler = (listener: 'public' | 'admin') => (req: IncomingMessage, res: ServerResponse) => {
    if (!svc) {
      res.writeHead(503, { 'Content-Type': 'application/json' }).end('{"error":{"code":503,"status":"Service Unavailable","message":"starting"}}');
      return;
    }
    dispatch(svc, listener, req, res).catch((e) => {
      console.error('[identity] unhandled', e);
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json' });
      res.end();
    });
  };
  const publicServer = createServer(handler('public'));
  const adminServer = createServer(handler('admin'));
  const closeAll = async () => {
    await Promise.all(
      [publicServer, adminServer].map(
        (s) =>
          new Promise<void>((r) => {
            if (!s.listening) return r();
            s.close(() => r());
            s.closeAllConnections();
          }),
      ),
    );
  };
  try {
    const publicPort = await listen(publicServer, config.serve.public.port, config.serve.public.host);
    const adminPort = await listen(adminServer, config.serve.admin.port, config.serve.admin.host);
    const publicUrl = baseUrl(config.serve.public.base_url, config.serve.public.host, publicPort);
    const adminUrl = baseUrl(config.serve.admin.base_url, config.serve.admin.host, adminPort);
    let secret = store.getKv('cookie_secret');
    if (!secret) {
      secret = randomBytes(32).toString('base64');
      store.setKv('cookie_secret', secret);
    }
    // `iss` is Kratos's SelfPublicURL: serve.public.base_url, which ends with a slash.
    const tokenizer = new Tokenizer(config.session.whoami.tokenizer.templates, `${publicUrl}/`, clock);
    await tokenizer.init(store);
    const schemaDef = config.identity.schemas.find((s) => s.id === config.identity.default_schema_id);
    const schemaPath = schemaDef?.url?.startsWith('file://') ? new URL(schemaDef.url).pathname : schemaDef?.url;
    svc = {
      config,
      store,
      schema: loadSchema(config.identity.default_schema_id, schemaPath),
      csrf: new Csrf(csrfCookieName(`${publicUrl}/`), config),
      tokenizer,
      courier: new Courier(store, config, clock),
      publicUrl,
      adminUrl,
      cookieSecret: Buffer.from(secret, 'base64'),
      clock,
    };
  } catch (e) {
    await closeAll();
    store.close();
    throw e;
  }
  const ready = svc;
  let closed = false;
  return {
    publicUrl: ready.publicUrl,
    adminUrl: ready.adminUrl,
    config,
    async close() {
      if (closed) return;
      closed = true;
      await closeAll();
      await ready.courier.close();
      store.close();
    },
  };
}

export type { IdentityConfig, DeepPartial } from './config.ts';
