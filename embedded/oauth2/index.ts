// The embedded OAuth2 provider: a stand-in for Ory Hydra v2.3.0 (public and admin API) for `npm start`
// and the tests — never for production, never imported by the app. It speaks Hydra's HTTP API as the
// real binary answers it (see README.md for what it covers and where it differs), keeps everything in
// SQLite, and reads time from the clock it is given.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock, type Clock } from '../clock.ts';
import { handleLoginConsentRequests } from './admin-requests.ts';
import { handleAuthorize } from './authorize.ts';
import { handleClients } from './clients-admin.ts';
import type { Context } from './context.ts';
import { HydraError, oauthError } from './errors.ts';
import { sendError, sendJson } from './http.ts';
import { handleAdminLogout, handlePublicLogout } from './logout.ts';
import { discovery, handleIntrospect, handleRevoke, handleUserinfo, jwks } from './resources.ts';
import { handleSessionsAdmin } from './sessions-admin.ts';
import { OAuth2Store } from './store.ts';
import { handleToken } from './token.ts';
import { loadSecret, loadSigningKey, saveToken, type TokenRecord } from './tokens.ts';

export type OAuth2UiUrls = {
  /** Hydra's urls.login: the login UI, given `?login_challenge=`. */
  login: string;
  /** urls.consent: `?consent_challenge=`. */
  consent: string;
  /** urls.logout: `?logout_challenge=`. */
  logout: string;
  /** urls.error: `?error=&error_description=`. */
  error: string;
  /** urls.post_logout_redirect: where an OP-initiated logout ends. */
  postLogout: string;
  /** urls.registration (prompt=registration); default: login. */
  registration?: string;
};

export type StartOAuth2ProviderOptions = {
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** Host name in the issuer and the URLs it hands out (default: `host`). */
  publicHost?: string;
  /** 0 (default) picks a free port. `npm start`: 4444 and 4445, as Hydra's defaults. */
  publicPort?: number;
  adminPort?: number;
  /** SQLite file, or ':memory:' (default). */
  database?: string;
  urls: OAuth2UiUrls;
  /** Kratos's admin URL: an accepted logout then ends the Kratos session too (Hydra's urls.identity_provider.url). */
  identityProviderAdminUrl?: string;
  clock?: Clock;
};

export type OAuth2Provider = { publicUrl: string; adminUrl: string; issuer: string; close(): Promise<void> };

const SWEEP_INTERVAL_MS = 10 * 60_000;

export async function startOAuth2Provider(options: StartOAuth2ProviderOptions): Promise<OAuth2Provider> {
  const host = options.host ?? '127.0.0.1';
  const publicHost = options.publicHost ?? host;
  const store = new OAuth2Store(options.database ?? ':memory:');
  const clock = options.clock ?? systemClock;
  const publicServer = createServer();
  const adminServer = createServer();
  const [publicPort, adminPort] = await Promise.all([listen(publicServer, options.publicPort ?? 0, host), listen(adminServer, options.adminPort ?? 0, host)]);
  const hostname = publicHost.includes(':') ? `[${publicHost}]` : publicHost;
  const publicUrl = `http://${hostname}:${publicPort}`;
  const adminUrl = `http://${hostname}:${adminPort}`;

  const idTokenKey = loadSigningKey(store, 'id-token');
  const ctx: Context = {
    store,
    clock,
    issuer: `${publicUrl}/`,
    publicUrl,
    adminUrl,
    urls: options.urls,
    secret: loadSecret(store),
    key: idTokenKey,
    publishedKeys: [idTokenKey.publicJwk, loadSigningKey(store, 'access-token').publicJwk],
    identityProviderAdminUrl: options.identityProviderAdminUrl,
    revokeClientTokens(clientId) {
      for (const row of store.findWithIds<TokenRecord>('token', { clientId })) if (row.data.active) saveToken(ctx, row.id, { ...row.data, active: false });
    },
  };

  publicServer.on('request', (req, res) => void serve(req, res, () => routePublic(req, res, ctx)));
  adminServer.on('request', (req, res) => void serve(req, res, () => routeAdmin(req, res, ctx)));
  store.sweep(clock.now());
  const sweeper = setInterval(() => store.sweep(clock.now()), SWEEP_INTERVAL_MS);
  sweeper.unref();

  return {
    publicUrl,
    adminUrl,
    issuer: ctx.issuer,
    async close() {
      clearInterval(sweeper);
      await Promise.all([publicServer, adminServer].map(stop));
      store.close();
    },
  };
}

async function serve(req: IncomingMessage, res: ServerResponse, route: () => Promise<boolean>): Promise<void> {
  try {
    if (!(await route())) sendText(res, 404, '404 page not found\n');
  } catch (error) {
    if (res.headersSent) return void res.destroy();
    if (error instanceof HydraError) return sendError(res, error);
    sendError(res, oauthError('server_error', (error as Error).message));
  }
}

const HEALTH = ['/health/alive', '/health/ready'];

async function routePublic(req: IncomingMessage, res: ServerResponse, ctx: Context): Promise<boolean> {
  const path = new URL(req.url ?? '/', ctx.publicUrl).pathname;
  const get = req.method === 'GET';
  const getOrPost = get || req.method === 'POST';
  if (path === '/oauth2/auth' && getOrPost) return (await handleAuthorize(req, res, ctx), true);
  if (path === '/oauth2/token') return (await handleToken(req, res, ctx), true);
  if (path === '/userinfo' && getOrPost) return (await handleUserinfo(req, res, ctx), true);
  if (path === '/oauth2/sessions/logout' && getOrPost) return (await handlePublicLogout(req, res, ctx), true);
  if (path === '/oauth2/revoke' && req.method === 'POST') return (await handleRevoke(req, res, ctx), true);
  // v2.3.0 has no /.well-known/oauth-authorization-server yet.
  if (path === '/.well-known/openid-configuration' && get) return (sendJson(res, 200, discovery(ctx)), true);
  if (path === '/.well-known/jwks.json' && get) return (sendJson(res, 200, jwks(ctx)), true);
  if (HEALTH.includes(path) && get) return (sendHealth(res), true);
  return false;
}

async function routeAdmin(req: IncomingMessage, res: ServerResponse, ctx: Context): Promise<boolean> {
  const url = new URL(req.url ?? '/', ctx.adminUrl);
  const path = url.pathname;
  if (HEALTH.includes(path) && req.method === 'GET') return (sendHealth(res), true);
  if (!path.startsWith('/admin/')) {
    // Hydra's admin port sends a path without the prefix to the prefixed one.
    res.writeHead(307, {
      'Cache-Control': 'private, no-cache, no-store, must-revalidate',
      Location: `${ctx.adminUrl}/admin${path}${url.search}`,
      'Content-Type': 'text/html; charset=utf-8',
    });
    res.end(`<a href="${ctx.adminUrl}/admin${path}${url.search.replaceAll('&', '&amp;')}">Temporary Redirect</a>.\n\n`);
    return true;
  }
  if (path === '/admin/oauth2/introspect' && req.method === 'POST') return (await handleIntrospect(req, res, ctx), true);
  if (await handleClients(req, res, path, ctx)) return true;
  if (await handleLoginConsentRequests(req, res, path, ctx)) return true;
  if (await handleAdminLogout(req, res, path, ctx)) return true;
  return handleSessionsAdmin(req, res, path, ctx);
}

/** Hydra's health answers carry no Cache-Control. */
function sendHealth(res: ServerResponse): void {
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' });
  res.end('{"status":"ok"}');
}

function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  res.end(text);
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
