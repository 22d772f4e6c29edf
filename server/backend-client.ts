// The one client of the user backend (spec §7). Every backend call of the app goes through here:
// it obtains the bearer token from Kratos's tokenizer, keeps it server-side per Kratos session,
// retries a `token_expired` answer with a fresh token, and turns every failure into an AppError
// (core/errors.ts) carrying the spec's error shape { code, message, meta }.
import { Configuration, FrontendApi } from '@ory/client';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { AppError, ERROR_CODES, type ErrorMeta } from '../core/errors.ts';
import { cookieJar } from './flows/cookies.ts';
import { sdkRequester } from './flows/sdk-requester.ts';
import { createTokenStore, type Caller } from './backend-tokens.ts';
import type { KratosSession } from '../core/kratos/types.ts';
import type { AppLocals } from './locals.ts';
import { oryClients } from './ory.ts';
import { backendAgents, sendWithin, type BackendAnswer } from './backend-transport.ts';

/** Spec §4: a `token_expired` answer is retried with a fresh token at most twice. */
export const TOKEN_EXPIRED_RETRIES = 2;
export { expiryOf, TOKEN_FALLBACK_LIFETIME_MS, TOKEN_LIFETIME_MS, type Caller } from './backend-tokens.ts';

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_UPLOAD_TIMEOUT_MS = 60_000;
const DEFAULT_CACHE_SIZE = 10_000;
const DEFAULT_MAX_SOCKETS = 64;

/** The error shape the backend answers with (spec §3): code, message, meta. */
type AnsweredError = { code: string; message?: unknown; meta?: unknown };

/**
 * True when the browser has no usable session (code `ERROR_CODES.signedOut`). A 401 from the backend
 * itself (a token it refused) is a service fault instead: sending the user to sign in would bring them
 * straight back here.
 */
export function isSignedOut(error: unknown): boolean {
  return error instanceof AppError && error.code === ERROR_CODES.signedOut;
}

export type BackendRequest = {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Path under the API base, without the leading `/api/` (e.g. `user/get-current-user`). */
  path: string;
  query?: Record<string, string | undefined>;
  json?: unknown;
  /**
   * A body that can be sent once only (a stream from the browser). Such a call is never retried:
   * it always starts with a fresh token instead, so `token_expired` cannot reasonably happen.
   */
  stream?: { body: ReadableStream<Uint8Array>; contentType: string; contentLength?: number };
  /** Mint a new token before the first attempt (spec §7: avatar calls and the Canny URL). */
  forceNewToken?: boolean;
  timeoutMs?: number;
  /** Aborts the call from outside (e.g. the upload was refused half-way). */
  signal?: AbortSignal;
};

export type BackendClientOptions = {
  backendUrl: string;
  kratosPublicUrl: string;
  /** Injected by tests; by default a FrontendApi on kratosPublicUrl. */
  frontend?: Pick<FrontendApi, 'toSession'>;
  timeoutMs?: number;
  uploadTimeoutMs?: number;
  /** Most sessions whose tokens are kept at once; the least recently used is dropped first. */
  cacheSize?: number;
  /** Sockets the client opens to the backend at most (BACKEND_MAX_SOCKETS). */
  maxSockets?: number;
  now?: () => number;
  logger?: Pick<Logger, 'warn' | 'debug'>;
};

// Types of the backend's answers we read (see embedded/backend/openapi.json).
export type CurrentUser = {
  _id: string;
  identityId: string | null;
  email: string | null;
  name: string | null;
  avatarRemoteId: string | null;
  avatarUrl: string | null;
  state: 'active' | 'pending_deletion' | 'deleted';
  deletionScheduledAt: string | null;
  lastAccessAccount: unknown;
  linkedAccounts: { provider: string; email: string; linkedAt: string }[];
};
export type AvatarUploaded = { avatarRemoteId: string; avatarUrl: string; contentType: string; width: number; height: number; size: number };
export type AccountDeleted = { state: string; deletionScheduledAt: string | null; gracePeriodMs: number; gracePeriodDays: number };
export type Invitation = { email: string; expiresAt: string | null };

export type BackendClient = ReturnType<typeof createBackendClient>;

export function createBackendClient(options: BackendClientOptions) {
  const base = `${options.backendUrl.replace(/\/+$/, '')}/api/`;
  const frontend = options.frontend ?? new FrontendApi(new Configuration({ basePath: options.kratosPublicUrl.replace(/\/+$/, '') }), undefined, sdkRequester);
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const uploadTimeoutMs = options.uploadTimeoutMs ?? DEFAULT_UPLOAD_TIMEOUT_MS;
  const cacheSize = options.cacheSize ?? DEFAULT_CACHE_SIZE;
  const tokens = createTokenStore({ frontend, now, timeoutMs, cacheSize, logger: options.logger });
  const { authorizationToken } = tokens;
  const agents = backendAgents(options.maxSockets ?? DEFAULT_MAX_SOCKETS);

  async function send(request: BackendRequest, token: string | null): Promise<BackendAnswer> {
    const url = new URL(request.path.replace(/^\/+/, ''), base);
    for (const [name, value] of Object.entries(request.query ?? {})) if (value !== undefined) url.searchParams.set(name, value);
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (token) headers.Authorization = `Bearer ${token}`;
    try {
      if (request.stream) return await sendStream(url, request.method, headers, request.stream, request.timeoutMs ?? uploadTimeoutMs, request.signal);
      let body: string | undefined;
      if (request.json !== undefined) {
        headers['Content-Type'] = 'application/json';
        body = JSON.stringify(request.json);
      }
      return await sendWithin(url, { method: request.method, headers, body }, agents, request.timeoutMs ?? timeoutMs, request.signal);
    } catch (error) {
      options.logger?.warn({ path: request.path, cause: (error as Error).name }, 'backend unreachable');
      throw transportFailure(error);
    }
  }

  /** Sends one authenticated call; the answer's JSON on success, an AppError otherwise. */
  async function call<T>(caller: Caller, request: BackendRequest): Promise<T> {
    let force = Boolean(request.forceNewToken || request.stream);
    for (let attempt = 0; ; attempt += 1) {
      const token = await authorizationToken(caller, force);
      if (!token) throw new AppError(401, ERROR_CODES.signedOut, 'You are not signed in');
      const response = await send(request, token);
      if (response.ok) return (await readJson(response)) as T;
      const error = await answeredError(response);
      if (error.code === 'token_expired') {
        if (caller.sessionId) tokens.forget(caller.sessionId);
        if (attempt < TOKEN_EXPIRED_RETRIES && !request.stream) {
          force = true;
          continue;
        }
      }
      throw error;
    }
  }

  /** A call that needs no token (invitation look-up and sign-up). */
  async function anonymous<T>(request: BackendRequest): Promise<T> {
    const response = await send(request, null);
    if (response.ok) return (await readJson(response)) as T;
    throw await answeredError(response);
  }

  /** Calls after which the session (and so its token) is over: sign-out, force log-out, deletion. */
  async function ending<T>(caller: Caller, request: BackendRequest): Promise<T> {
    const result = await call<T>(caller, request);
    if (caller.sessionId) tokens.forget(caller.sessionId);
    return result;
  }

  return {
    authorizationToken,
    call,
    /** Drops a session's stored token (sign-out, or the session changed). */
    forgetSession(sessionId: string): void {
      tokens.forget(sessionId);
    },
    /** How many sessions hold a stored token (for tests and metrics). */
    get storedTokens(): number {
      return tokens.size;
    },

    getCurrentUser: (caller: Caller) => call<CurrentUser>(caller, { method: 'GET', path: 'user/get-current-user' }),
    getOrganizationTeamOwner: (caller: Caller) => call<unknown>(caller, { method: 'GET', path: 'user/get-organization-team-owner' }),
    uploadAvatar: (caller: Caller, stream: NonNullable<BackendRequest['stream']>, signal?: AbortSignal) =>
      call<AvatarUploaded & { user: CurrentUser }>(caller, { method: 'PATCH', path: 'user/upload-avatar', stream, forceNewToken: true, signal }),
    removeAvatar: (caller: Caller) =>
      call<{ avatarRemoteId: null; user: CurrentUser }>(caller, { method: 'PATCH', path: 'user/remove-avatar', json: {}, forceNewToken: true }),
    deleteAccount: (caller: Caller, reason?: string) =>
      ending<AccountDeleted>(caller, { method: 'POST', path: 'user/delete-account', json: reason ? { reason } : {} }),
    reactivateAccount: (caller: Caller) => call<{ user: CurrentUser }>(caller, { method: 'PATCH', path: 'user/reactivate-account', json: {} }),
    confirmLinkAccount: (caller: Caller, body: { provider: string; email: string }) =>
      call<unknown>(caller, { method: 'POST', path: 'user/confirm-link-account', json: body }),
    updateIdentityId: (caller: Caller, identityId: string) => call<unknown>(caller, { method: 'POST', path: 'user/update-identityId', json: { identityId } }),
    signUp: (caller: Caller, body: { name?: string; loginService?: string } = {}) =>
      call<{ created: boolean; user: CurrentUser }>(caller, { method: 'POST', path: 'auth/sign-up', json: body }),
    signOut: (caller: Caller, body: { loginService?: string } = {}) => ending<unknown>(caller, { method: 'POST', path: 'auth/sign-out', json: body }),
    forceLogOut: (caller: Caller) => ending<unknown>(caller, { method: 'POST', path: 'auth/force-log-out', json: {} }),
    getCannyRedirectUrl: (caller: Caller, redirect?: string) =>
      call<{ redirectUrl: string }>(caller, {
        method: 'GET',
        path: 'auth/get-canny-redirect-url',
        query: { redirect },
        forceNewToken: true,
      }),
    forgetLastAccessAccount: (caller: Caller) => call<unknown>(caller, { method: 'POST', path: 'auth/forget-last-access-account', json: {} }),
    /** The sign-in page's "forget this account" chip, for a signed-out browser: by the remembered e-mail. */
    forgetLastAccessAccountByEmail: (email: string) => anonymous<unknown>({ method: 'POST', path: 'auth/forget-last-access-account', json: { email } }),
    forgotPassword: (email: string) => anonymous<unknown>({ method: 'POST', path: 'auth/forgot-password', json: { email } }),
    getInvitation: (token: string) => anonymous<Invitation>({ method: 'GET', path: 'auth/invitation', query: { token } }),
    signUpInvitation: (body: { token: string; password: string; name?: string }) =>
      anonymous<{ identityId: string; email: string }>({ method: 'POST', path: 'auth/sign-up-invitation', json: body }),
  };
}

/** A failed exchange with the backend as the error to answer: the deadline, a cancel, or no answer. */
function transportFailure(error: unknown): AppError {
  const name = (error as Error | undefined)?.name;
  if (name === 'TimeoutError') return new AppError(504, 'backend_timeout', 'The user service took too long to answer');
  if (name === 'AbortError') return new AppError(499, 'request_aborted', 'The request was cancelled');
  return new AppError(503, 'backend_unavailable', 'The user service could not be reached');
}

/**
 * The avatar upload stays on fetch: its body is the browser's stream, sent once (sendWithin's retry could not apply), once per
 * avatar change (fetch's per-call cost does not matter). Its deadline covers the answer's body too: readJson reads it under the same signal.
 */
function sendStream(
  url: URL,
  method: string,
  headers: Record<string, string>,
  stream: NonNullable<BackendRequest['stream']>,
  limit: number,
  signal?: AbortSignal,
) {
  headers['Content-Type'] = stream.contentType;
  if (stream.contentLength !== undefined) headers['Content-Length'] = String(stream.contentLength);
  const signals = [AbortSignal.timeout(limit), ...(signal ? [signal] : [])];
  return fetch(url, { method, headers, body: stream.body, signal: AbortSignal.any(signals), redirect: 'manual', duplex: 'half' } as RequestInit);
}

async function readJson(response: BackendAnswer): Promise<unknown> {
  // The call's deadline also covers the body: a body still arriving when it passes fails here.
  const text = await response.text().catch((error: unknown) => {
    throw transportFailure(error);
  });
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError(502, 'bad_gateway', 'The user service sent an unreadable answer');
  }
}

/** Any non-2xx answer as an AppError: the backend's own { code, message, meta } when it sent one. */
export async function answeredError(response: BackendAnswer): Promise<AppError> {
  let body: unknown;
  try {
    body = JSON.parse(await response.text());
  } catch {
    body = undefined;
  }
  const status = response.status >= 400 ? response.status : 502;
  if (body && typeof body === 'object' && typeof (body as AnsweredError).code === 'string') {
    const { code, message, meta } = body as AnsweredError;
    return new AppError(status, code, typeof message === 'string' ? message : code, meta && typeof meta === 'object' ? (meta as ErrorMeta) : {});
  }
  return new AppError(status, status >= 500 ? 'unknown_error' : 'bad_request', `The user service answered ${response.status}`);
}

const clients = new WeakMap<object, BackendClient>();
const clocks = new WeakMap<object, () => number>();

/**
 * The time the app's client judges its stored tokens' expiry by (default Date.now). Tests that run the
 * stand-ins on a test clock pass that clock here, so the tokens and the check of their expiry agree;
 * a client already made is replaced.
 */
export function setBackendClientClock(app: { locals: Record<string, unknown> }, now: () => number): void {
  clocks.set(app, now);
  clients.delete(app);
}

/** The app's single client, created on first use from the app's configuration. */
export function backendClientForApp(app: { locals: Record<string, unknown> }): BackendClient {
  let client = clients.get(app);
  if (!client) {
    const locals = app.locals as unknown as AppLocals;
    client = createBackendClient({
      backendUrl: locals.config.BACKEND_URL,
      kratosPublicUrl: locals.config.KRATOS_PUBLIC_URL,
      // The app's shared SDK client: its keep-alive agents serve the tokenizer calls too.
      frontend: oryClients(locals.config).frontend,
      timeoutMs: locals.config.BACKEND_TIMEOUT_MS,
      uploadTimeoutMs: locals.config.BACKEND_UPLOAD_TIMEOUT_MS,
      cacheSize: locals.config.BACKEND_TOKEN_CACHE_SIZE,
      maxSockets: locals.config.BACKEND_MAX_SOCKETS,
      now: clocks.get(app),
      logger: locals.logger,
    });
    clients.set(app, client);
  }
  return client;
}

export function backendClientFor(req: Request): BackendClient {
  return backendClientForApp(req.app);
}

/**
 * The Caller of a request: the cookies as Kratos last left them in this request (a settings save
 * issues a fresh session cookie), and the session id when the login guard already read the session.
 */
export function callerOf(req: Request, res: Response): Caller {
  const session = res.locals.kratosSession as KratosSession | null | undefined;
  return { cookie: cookieJar(req, res).header() ?? '', sessionId: session?.id };
}
