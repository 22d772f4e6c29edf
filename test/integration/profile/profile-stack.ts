// The stack of the profile tests (and of the invitation, Canny and backend-client tests, which need the
// same backend): the standard stack (test/support/stack.ts), with two transparent proxies the tests can
// watch and steer — one in front of the identity service (to count tokenizer calls) and one in front of
// a backend stand-in started with a data directory, an admin key and Canny settings (to count calls,
// read the bearer tokens, and answer `token_expired` on demand). The app only sees URLs, as in
// production. Users signed in on /profile-settings come from `useProfileUsers`, on top of the shared
// identity fixtures (test/support/fixtures.ts), so everything they create is deleted again.
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { startBackend, type BackendOptions, type RunningBackend } from '../../../embedded/backend/index.ts';
import type { Clock } from '../../../embedded/clock.ts';
import type { StartIdentityOptions } from '../../../embedded/identity/index.ts';
import { setBackendClientClock } from '../../../server/backend-client.ts';
import { useIdentities, type Identities, type IdentityOptions, type TestIdentity } from '../../support/fixtures.ts';
import { formAction, hiddenValue, type Browser } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';

export type Seen = { method: string; path: string; authorization?: string };

export type Proxy = {
  url: string;
  target: string;
  seen: Seen[];
  /** Requests received and not yet answered or abandoned. */
  inFlight: number;
  /** Answer this many of the next backend calls (under /api/user or /api/auth) with 401 token_expired. */
  expireNext: number;
  /** Likewise with 401 unauthorized: the backend refuses the token itself (a key or audience mismatch). */
  refuseNext: number;
  /**
   * Answers to give the next backend calls (under /api/user or /api/auth, and the invitation sign-up)
   * instead of the backend's, in order; one with a `path` (and a `method`, if given) waits for a call
   * to that path, whichever service the proxy stands for.
   */
  failNext: { status: number; code: string; path?: string; method?: string }[];
  /** Holds a request until the promise it returns settles (undefined: forward at once); the tests' own timing. */
  hold?: (path: string) => Promise<void> | undefined;
  close(): Promise<void>;
};

const INVITATION_SIGN_UP = '/api/auth/sign-up-invitation';

export async function startProxy(): Promise<Proxy> {
  const proxy: Proxy = { url: '', target: '', seen: [], inFlight: 0, expireNext: 0, refuseNext: 0, failNext: [], close: async () => {} };
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    proxy.seen.push({ method: req.method ?? 'GET', path, authorization: req.headers.authorization });
    proxy.inFlight += 1;
    res.on('close', () => void (proxy.inFlight -= 1));
    // The steered answers apply to authorized backend calls (not the tokenizer, not the admin routes) and
    // to the invitation sign-up, which needs no token.
    const steered = (/^\/api\/(user|auth)\//.test(path) && req.headers.authorization !== undefined) || path === INVITATION_SIGN_UP;
    const answer = (status: number, code: string, message: string) => {
      req.resume();
      res.writeHead(status, { 'Content-Type': 'application/json', Connection: 'close' });
      res.end(JSON.stringify({ code, message }));
    };
    if (steered && proxy.expireNext > 0) {
      proxy.expireNext -= 1;
      return answer(401, 'token_expired', 'The authorization token has expired');
    }
    if (steered && proxy.refuseNext > 0) {
      proxy.refuseNext -= 1;
      return answer(401, 'unauthorized', 'The request could not be authorized');
    }
    const failing = proxy.failNext.findIndex((failure) =>
      failure.path === undefined ? steered : path.startsWith(failure.path) && (failure.method ?? req.method) === req.method,
    );
    const failure = failing >= 0 ? proxy.failNext.splice(failing, 1)[0] : undefined;
    if (failure) return answer(failure.status, failure.code, 'A failure the test asked for');
    const held = proxy.hold?.(path);
    if (held) return void held.then(() => forward(req, res, path));
    forward(req, res, path);
  });
  function forward(req: http.IncomingMessage, res: http.ServerResponse, path: string) {
    const target = new URL(path, proxy.target);
    const upstream = http.request(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return proxy;
}

export const ADMIN_KEY = 'profile-tests-admin-key';
export const CANNY_COMPANY_ID = 'company-123';
export const CANNY_PRIVATE_KEY = 'canny-private-key-for-tests-0123456789';

export type ProfileStack = {
  stack: Stack;
  /** The running app (for its locals, e.g. the configuration a test shortens). */
  app: Express;
  appUrl: string;
  identityAdminUrl: string;
  /** The backend stand-in the app talks to (through backendProxy). */
  backend: RunningBackend;
  backendProxy: Proxy;
  identityProxy: Proxy;
  /** The identity service's admin API as the app reaches it (the tests' own admin calls go straight to it). */
  identityAdminProxy: Proxy;
  /** Tokenizer calls seen so far (whoami?tokenize_as=authorization). */
  tokenizerCalls(): number;
  /** Bearer tokens the backend received so far, in order. */
  bearerTokens(): string[];
  /** Creates an invitation through the backend's admin route. */
  invite(email: string, expiresInSeconds?: number): Promise<string>;
  close(): Promise<void>;
};

export async function startProfileStack(
  options: {
    identityConfig?: StartIdentityOptions['config'];
    backend?: Partial<BackendOptions>;
    env?: Record<string, string>;
    /**
     * One clock (createTestClock() from embedded/clock.ts) for both stand-ins and for the app's judgement
     * of its stored backend tokens: tests advance it instead of sleeping.
     */
    clock?: Clock;
    /**
     * Who reads `clock`: 'all' (the default) includes the identity service, which only the stand-in can
     * (real Kratos reads the real time: startStack refuses a clock there); 'backend' is the backend and
     * the app's judgement of its stored backend tokens only, so the test runs on either identity service.
     */
    clockScope?: 'all' | 'backend';
    /** The embedded sign-in providers too (startStack's socialProviders; they are at `stack.providers`). */
    socialProviders?: boolean;
  } = {},
): Promise<ProfileStack> {
  const backendProxy = await startProxy();
  const identityProxy = await startProxy();
  const identityAdminProxy = await startProxy();
  const stack = await startStack({
    identityConfig: options.identityConfig,
    env: { BACKEND_URL: backendProxy.url, KRATOS_PUBLIC_URL: identityProxy.url, KRATOS_ADMIN_URL: identityAdminProxy.url, ...options.env },
    clock: options.clockScope === 'backend' ? undefined : options.clock,
    socialProviders: options.socialProviders,
  });
  const app = stack.app;
  const { clock } = options;
  if (clock) setBackendClientClock(app, () => clock.now());
  identityProxy.target = stack.identity.publicUrl;
  identityAdminProxy.target = stack.identity.adminUrl;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'profile-tests-'));
  const backend = await startBackend({
    port: 0,
    database: ':memory:',
    dataDir,
    identityPublicUrl: stack.identity.publicUrl,
    identityAdminUrl: stack.identity.adminUrl,
    ...stack.tokenTrust,
    adminApiKey: ADMIN_KEY,
    cannyCompanyId: CANNY_COMPANY_ID,
    cannyPrivateKey: CANNY_PRIVATE_KEY,
    // Avatar addresses point at the proxy, the origin the app knows (and allows in its CSP).
    publicUrl: backendProxy.url,
    clock: options.clock,
    ...options.backend,
  });
  backendProxy.target = backend.url;
  return {
    stack,
    app,
    appUrl: stack.appUrl,
    identityAdminUrl: stack.identity.adminUrl,
    backend,
    backendProxy,
    identityProxy,
    identityAdminProxy,
    tokenizerCalls: () => identityProxy.seen.filter((s) => s.path.startsWith('/sessions/whoami') && s.path.includes('tokenize_as=authorization')).length,
    bearerTokens: () => backendProxy.seen.map((s) => s.authorization?.replace(/^Bearer /, '') ?? '').filter(Boolean),
    async invite(email, expiresInSeconds) {
      const response = await fetch(`${backend.url}/api/admin/invitations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` },
        body: JSON.stringify({ email, ...(expiresInSeconds ? { expiresInSeconds } : {}) }),
      });
      if (response.status !== 201) throw new Error(`invite: ${response.status} ${await response.text()}`);
      return ((await response.json()) as { token: string }).token;
    },
    async close() {
      await stack.close();
      await backend.close();
      await backendProxy.close();
      await identityProxy.close();
      await identityAdminProxy.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

// ── users on /profile-settings ─────────────────────────────────────────────────────────────────────

export type SignedIn = TestIdentity & {
  browser: Browser;
  /** Our CSRF token (the `_csrf` field of the page's own forms). */
  csrf: string;
  /** The page's settings flow action, /profile-settings?flow=<id>. */
  settingsAction: string;
  /** Kratos's CSRF token of the settings flow. */
  flowCsrf: string;
  page: string;
};

/** Opens /profile-settings in a signed-in browser and reads its forms. */
export async function openProfile(browser: Browser): Promise<Pick<SignedIn, 'csrf' | 'settingsAction' | 'flowCsrf' | 'page'>> {
  const page = await browser.follow('/profile-settings');
  if (page.status !== 200) throw new Error(`profile page: ${page.status} ${page.url}`);
  const csrf = hiddenValue(page.text, '_csrf');
  const settingsAction = formAction(page.text, 'profile-name-form');
  const flowCsrf = hiddenValue(page.text, 'csrf_token');
  if (!csrf || !settingsAction || !flowCsrf) throw new Error('profile page without its forms');
  return { csrf, settingsAction, flowCsrf, page: page.text };
}

export type ProfileUsers = {
  /** The shared identity fixtures on this stack (deleted after the test, or the file, that made them). */
  identities: Identities;
  /** An identity (verified, STRONG_PASSWORD, name 'Ada' unless told), signed in, on its profile page. */
  signedIn(options?: IdentityOptions): Promise<SignedIn>;
};

/**
 * The users of a profile test file. Call at the top level of the file (or of a describe with its own
 * stack), after the hooks that start the stack, like useIdentities.
 */
export function useProfileUsers(env: () => ProfileStack): ProfileUsers {
  const identities = useIdentities(() => env().identityAdminUrl);
  return {
    identities,
    async signedIn(options = {}) {
      const { browser, ...identity } = await identities.signedIn(env().appUrl, { prefix: 'profile', ...options });
      return { ...identity, browser, ...(await openProfile(browser)) };
    },
  };
}
