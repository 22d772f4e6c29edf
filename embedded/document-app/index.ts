// The demo "document app": a confidential OAuth2 client of the accounts app's OAuth2 provider (real
// Hydra or the stand-in in embedded/oauth2), for `npm start` and the tests (never for production, never
// imported by the app). Sign in = authorization code + PKCE S256 + state + nonce (openid-client); the
// ID token is verified against the provider's JWKS (jose); /open is where /open-drive hands Drive files.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oidc from 'openid-client';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { registerDocumentAppClient, waitForAdmin } from './client-registration.ts';
import { errorPage, homePage, openFilesPage, signedInPage, type SignedInView } from './pages.ts';

export { DOCUMENT_APP_CLIENT_NAME } from './client-registration.ts';

export type StartDocumentAppOptions = {
  /** 0 (default) picks a free port; `npm start` uses 4700. */
  port?: number;
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** Host name in its own URL (redirect URIs), as browsers reach it (default: `host`). */
  publicHost?: string;
  oauth2PublicUrl: string;
  oauth2AdminUrl: string;
  /** How long to wait for the admin API at start (default 30 s). */
  readyTimeoutMs?: number;
};

export type DocumentApp = { url: string; clientId: string; clientSecret: string; close(): Promise<void> };

const COOKIE = 'document_app_session';
const UPSTREAM_DEADLINE_S = 10;
const MAX_SESSIONS = 10_000;
const SCOPE = 'openid offline_access email profile';
const MAX_OPEN_IDS = 100;

type Session = {
  pending?: { verifier: string; state: string; nonce: string };
  signedIn?: SignedInView & { idToken: string };
  logoutState?: string;
};

export async function startDocumentApp(options: StartDocumentAppOptions): Promise<DocumentApp> {
  const host = options.host ?? '127.0.0.1';
  const publicHost = options.publicHost ?? (host === '0.0.0.0' || host === '::' ? 'localhost' : host);
  const publicUrl = options.oauth2PublicUrl.replace(/\/+$/, '');
  const adminUrl = options.oauth2AdminUrl.replace(/\/+$/, '');
  await waitForAdmin(adminUrl, options.readyTimeoutMs ?? 30_000);

  const sessions = new Map<string, Session>();
  let client: { clientId: string; clientSecret: string } | undefined;
  let url = '';
  // Discovery waits for the first sign-in: under `npm start` the public side may still be starting.
  let configuration: Promise<oidc.Configuration> | undefined;
  const discover = () => {
    configuration ??= oidc
      .discovery(new URL(`${publicUrl}/`), client!.clientId, undefined, oidc.ClientSecretBasic(client!.clientSecret), {
        execute: [oidc.allowInsecureRequests],
        timeout: UPSTREAM_DEADLINE_S,
      })
      .catch((error: unknown) => {
        configuration = undefined;
        throw error;
      });
    return configuration;
  };
  let keys: ReturnType<typeof createRemoteJWKSet> | undefined;

  const sessionOf = (req: IncomingMessage, res: ServerResponse): Session => {
    const id = /(?:^|;\s*)document_app_session=([A-Za-z0-9_-]{20,})/.exec(req.headers.cookie ?? '')?.[1];
    const existing = id ? sessions.get(id) : undefined;
    if (existing) return existing;
    if (sessions.size >= MAX_SESSIONS) sessions.delete(sessions.keys().next().value!);
    const fresh: Session = {};
    const newId = randomBytes(24).toString('base64url');
    sessions.set(newId, fresh);
    res.setHeader('Set-Cookie', `${COOKIE}=${newId}; Path=/; HttpOnly; SameSite=Lax`);
    return fresh;
  };

  const send = (res: ServerResponse, status: number, html: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      // No form-action: Sign out posts here and is redirected on to the OAuth2 provider and the accounts
      // app's logout page, and Chromium checks form-action on every redirect of a form's navigation.
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
      ...headers,
    });
    res.end(html);
  };
  const redirect = (res: ServerResponse, location: string) => {
    res.writeHead(303, { Location: location, 'Cache-Control': 'no-store' });
    res.end();
  };

  async function startSignIn(res: ServerResponse, session: Session) {
    const config = await discover();
    const pending = { verifier: oidc.randomPKCECodeVerifier(), state: oidc.randomState(), nonce: oidc.randomNonce() };
    session.pending = pending;
    const authorize = oidc.buildAuthorizationUrl(config, {
      redirect_uri: `${url}/callback`,
      scope: SCOPE,
      code_challenge: await oidc.calculatePKCECodeChallenge(pending.verifier),
      code_challenge_method: 'S256',
      state: pending.state,
      nonce: pending.nonce,
    });
    redirect(res, authorize.href);
  }

  async function finishSignIn(req: IncomingMessage, res: ServerResponse, session: Session) {
    const current = new URL(req.url ?? '/', url);
    const error = current.searchParams.get('error');
    const pending = session.pending;
    if (error) {
      session.pending = undefined;
      return send(res, 400, errorPage('Sign-in did not complete', { error, error_description: current.searchParams.get('error_description') ?? undefined }));
    }
    if (!pending) return send(res, 400, errorPage('No sign-in in progress', { error: 'Start again from the document app.' }));
    session.pending = undefined;
    const config = await discover();
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    try {
      tokens = await oidc.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: pending.verifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
    } catch (failure) {
      return send(res, 400, errorPage('The code was not accepted', { error: (failure as Error).message }));
    }
    keys ??= createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri!), { timeoutDuration: UPSTREAM_DEADLINE_S * 1000 });
    const verified = await jwtVerify(tokens.id_token!, keys, { issuer: config.serverMetadata().issuer, audience: client!.clientId });
    const claims: JWTPayload = verified.payload;
    const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, String(claims.sub));
    session.signedIn = {
      idToken: tokens.id_token!,
      idTokenClaims: claims as Record<string, unknown>,
      userinfo,
      refreshToken: Boolean(tokens.refresh_token),
      scope: tokens.scope,
    };
    send(res, 200, signedInPage(session.signedIn));
  }

  async function signOut(res: ServerResponse, session: Session) {
    const signedIn = session.signedIn;
    if (!signedIn) return redirect(res, '/');
    const config = await discover();
    session.signedIn = undefined;
    session.logoutState = oidc.randomState();
    const endSession = oidc.buildEndSessionUrl(config, {
      id_token_hint: signedIn.idToken,
      post_logout_redirect_uri: `${url}/`,
      state: session.logoutState,
    });
    redirect(res, endSession.href);
  }

  function home(req: IncomingMessage, res: ServerResponse, session: Session) {
    const state = new URL(req.url ?? '/', url).searchParams.get('state');
    if (state && session.logoutState && state === session.logoutState) {
      session.logoutState = undefined;
      return send(res, 200, homePage('You are signed out of the document app and of accounts.'));
    }
    if (session.signedIn) return send(res, 200, signedInPage(session.signedIn));
    send(res, 200, homePage());
  }

  function openFiles(req: IncomingMessage, res: ServerResponse) {
    const query = new URL(req.url ?? '/', url).searchParams;
    const ids = (query.get('ids') ?? '')
      .split(',')
      .map((id) => id.trim())
      .filter(Boolean)
      .slice(0, MAX_OPEN_IDS);
    const action = query.get('action') ?? 'open';
    if (ids.length === 0 && action !== 'create') return send(res, 400, errorPage('Nothing to open', { error: 'No file ids were given.' }));
    send(res, 200, openFilesPage({ ids, action, userId: query.get('userId') ?? undefined }));
  }

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://document-app').pathname;
    const session = sessionOf(req, res);
    const route = async () => {
      if (req.method === 'GET' && path === '/') return home(req, res, session);
      if (req.method === 'GET' && path === '/login') return startSignIn(res, session);
      if (req.method === 'GET' && path === '/callback') return finishSignIn(req, res, session);
      if (req.method === 'POST' && path === '/logout') return signOut(res, session);
      if (req.method === 'GET' && path === '/open') return openFiles(req, res);
      if (req.method === 'GET' && path === '/health/ready') return send(res, 200, 'ok', { 'Content-Type': 'text/plain' });
      send(res, 404, errorPage('Not found', { path }));
    };
    route().catch((error: unknown) => {
      if (!res.headersSent) send(res, 502, errorPage('The OAuth2 provider did not answer as expected', { error: (error as Error).message }));
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  url = `http://${publicHost}:${(server.address() as AddressInfo).port}`;
  try {
    client = await registerDocumentAppClient(adminUrl, url);
  } catch (error) {
    server.close();
    throw error;
  }
  return {
    url,
    clientId: client.clientId,
    clientSecret: client.clientSecret,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
