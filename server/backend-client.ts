// The one client of the user backend (spec §7). Every backend call of the app goes through here:
// it obtains the bearer token from Kratos's tokenizer, keeps it server-side per Kratos session,
// retries a `token_expired` answer with a fresh token, and turns every failure into a BackendError
// carrying the spec's error shape { code, message, meta }.
import { Configuration, FrontendApi } from '@ory/client';
import type { Request, Response } from 'express';
import { decodeJwt } from 'jose';
import type { Logger } from 'pino';
import { cookieJar } from './flows/cookies.ts';
import type { KratosSession } from '../core/kratos/types.ts';
import type { AppLocals } from './locals.ts';
import { oryClients } from './ory.ts';

/** Spec §9: a stored authorization token lives 1,680,000 ms, or 120,000 ms when the token names no expiry. */
export const TOKEN_LIFETIME_MS = 1_680_000;
export const TOKEN_FALLBACK_LIFETIME_MS = 120_000;
/** Spec §4: a `token_expired` answer is retried with a fresh token at most twice. */
export const TOKEN_EXPIRED_RETRIES = 2;
/** A token this close to its expiry is treated as expired, so it cannot lapse on its way to the backend. */
const EXPIRY_MARGIN_MS = 10_000;
const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_UPLOAD_TIMEOUT_MS = 60_000;
const DEFAULT_CACHE_SIZE = 10_000;
const TOKEN_TEMPLATE = 'authorization';

/** The spec's error shape (§3): code, message, meta. */
export type BackendErrorBody = { code: string; message: string; meta?: Record<string, unknown> };

export class BackendError extends Error {
  readonly status: number;
  readonly code: string;
  readonly meta: Record<string, unknown> | undefined;

  constructor(status: number, code: string, message: string, meta?: Record<string, unknown>) {
    super(message);
    this.name = 'BackendError';
    this.status = status;
    this.code = code;
    this.meta = meta;
  }

  toJSON(): BackendErrorBody {
    return this.meta ? { code: this.code, message: this.message, meta: this.meta } : { code: this.code, message: this.message };
  }
}

/** The code of a call made without a (usable) Kratos session: the user must sign in again. */
export const SIGNED_OUT = 'session_inactive';

/**
 * True when the browser has no usable session. A 401 from the backend itself (a token it refused) is a
 * service fault instead: sending the user to sign in would bring them straight back here.
 */
export function isSignedOut(error: unknown): boolean {
  return error instanceof BackendError && error.code === SIGNED_OUT;
}

/** Who a call is made for: the browser's Cookie header, and the Kratos session id when already known. */
export type Caller = { cookie: string; sessionId?: string };

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
  now?: () => number;
  logger?: Pick<Logger, 'warn' | 'debug'>;
};

type CachedToken = { token: string; expiresAt: number };

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
  const frontend =
    options.frontend ?? new FrontendApi(new Configuration({ basePath: options.kratosPublicUrl.replace(/\/+$/, '') }));
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const uploadTimeoutMs = options.uploadTimeoutMs ?? DEFAULT_UPLOAD_TIMEOUT_MS;
  const cacheSize = options.cacheSize ?? DEFAULT_CACHE_SIZE;
  // Map iteration order is insertion order: re-inserting on use makes the first key the least recently used.
  const tokens = new Map<string, CachedToken>();
  const minting = new Map<string, Promise<{ sessionId: string; token: string } | null>>();

  function remember(sessionId: string, token: string): void {
    tokens.delete(sessionId);
    tokens.set(sessionId, { token, expiresAt: expiryOf(token, now()) });
    while (tokens.size > cacheSize) tokens.delete(tokens.keys().next().value as string);
  }

  function cached(sessionId: string | undefined): string | null {
    if (!sessionId) return null;
    const entry = tokens.get(sessionId);
    if (!entry) return null;
    if (entry.expiresAt - EXPIRY_MARGIN_MS <= now()) {
      tokens.delete(sessionId);
      return null;
    }
    tokens.delete(sessionId);
    tokens.set(sessionId, entry);
    return entry.token;
  }

  async function mint(caller: Caller): Promise<{ sessionId: string; token: string } | null> {
    try {
      const { data } = await frontend.toSession(
        { cookie: caller.cookie, tokenizeAs: TOKEN_TEMPLATE },
        { signal: AbortSignal.timeout(timeoutMs), timeout: timeoutMs },
      );
      if (!data?.tokenized || !data.id) return null;
      remember(data.id, data.tokenized);
      return { sessionId: data.id, token: data.tokenized };
    } catch (error) {
      const status = (error as { response?: { status?: number } }).response?.status;
      // 401/403: no (usable) session, which callers treat as "signed out" (spec §8: token retrieval failure → null).
      if (status === 401 || status === 403) return null;
      options.logger?.warn({ status, reason: (error as Error).name }, 'authorization token could not be obtained');
      throw new BackendError(503, 'identity_unavailable', 'The identity service could not be reached');
    }
  }

  /**
   * The caller's authorization token: the stored one while it is valid, else a new one from the
   * tokenizer. Concurrent requests of one session share a single tokenizer call. Null: signed out.
   */
  async function authorizationToken(caller: Caller, force = false): Promise<string | null> {
    if (!force) {
      const hit = cached(caller.sessionId);
      if (hit) return hit;
    } else if (caller.sessionId) {
      tokens.delete(caller.sessionId);
    }
    const key = caller.sessionId ?? `cookie:${caller.cookie}`;
    let pending = minting.get(key);
    if (!pending || force) {
      pending = mint(caller).finally(() => {
        if (minting.get(key) === pending) minting.delete(key);
      });
      minting.set(key, pending);
    }
    const result = await pending;
    // Later calls of the same request then find the stored token without asking the tokenizer again.
    if (result && !caller.sessionId) caller.sessionId = result.sessionId;
    return result?.token ?? null;
  }

  async function send(request: BackendRequest, token: string | null): Promise<globalThis.Response> {
    const url = new URL(request.path.replace(/^\/+/, ''), base);
    for (const [name, value] of Object.entries(request.query ?? {})) if (value !== undefined) url.searchParams.set(name, value);
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (token) headers.Authorization = `Bearer ${token}`;
    let body: BodyInit | undefined;
    if (request.stream) {
      headers['Content-Type'] = request.stream.contentType;
      if (request.stream.contentLength !== undefined) headers['Content-Length'] = String(request.stream.contentLength);
      body = request.stream.body;
    } else if (request.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(request.json);
    }
    const limit = request.timeoutMs ?? (request.stream ? uploadTimeoutMs : timeoutMs);
    const signals = [AbortSignal.timeout(limit), ...(request.signal ? [request.signal] : [])];
    try {
      return await fetch(url, {
        method: request.method,
        headers,
        body,
        signal: AbortSignal.any(signals),
        redirect: 'manual',
        ...(request.stream ? { duplex: 'half' } : {}),
      } as RequestInit);
    } catch (error) {
      const name = (error as Error).name;
      if (name === 'TimeoutError') throw new BackendError(504, 'backend_timeout', 'The user service took too long to answer');
      if (name === 'AbortError') throw new BackendError(499, 'request_aborted', 'The request was cancelled');
      options.logger?.warn({ path: request.path, reason: name }, 'backend unreachable');
      throw new BackendError(503, 'backend_unavailable', 'The user service could not be reached');
    }
  }

  /** Sends one authenticated call; the answer's JSON on success, a BackendError otherwise. */
  async function call<T>(caller: Caller, request: BackendRequest): Promise<T> {
    let force = Boolean(request.forceNewToken || request.stream);
    for (let attempt = 0; ; attempt += 1) {
      const token = await authorizationToken(caller, force);
      if (!token) throw new BackendError(401, SIGNED_OUT, 'You are not signed in');
      const response = await send(request, token);
      if (response.ok) return (await readJson(response)) as T;
      const error = await toBackendError(response);
      if (error.code === 'token_expired') {
        if (caller.sessionId) tokens.delete(caller.sessionId);
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
    throw await toBackendError(response);
  }

  /** Calls after which the session (and so its token) is over: sign-out, force log-out, deletion. */
  async function ending<T>(caller: Caller, request: BackendRequest): Promise<T> {
    const result = await call<T>(caller, request);
    if (caller.sessionId) tokens.delete(caller.sessionId);
    return result;
  }

  return {
    authorizationToken,
    call,
    /** Drops a session's stored token (sign-out, or the session changed). */
    forgetSession(sessionId: string): void {
      tokens.delete(sessionId);
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
    updateIdentityId: (caller: Caller, identityId: string) =>
      call<unknown>(caller, { method: 'POST', path: 'user/update-identityId', json: { identityId } }),
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
    forgetLastAccessAccount: (caller: Caller) =>
      call<unknown>(caller, { method: 'POST', path: 'auth/forget-last-access-account', json: {} }),
    /** The sign-in page's "forget this account" chip, for a signed-out browser: by the remembered e-mail. */
    forgetLastAccessAccountByEmail: (email: string) =>
      anonymous<unknown>({ method: 'POST', path: 'auth/forget-last-access-account', json: { email } }),
    forgotPassword: (email: string) => anonymous<unknown>({ method: 'POST', path: 'auth/forgot-password', json: { email } }),
    getInvitation: (token: string) => anonymous<Invitation>({ method: 'GET', path: 'auth/invitation', query: { token } }),
    signUpInvitation: (body: { token: string; password: string; name?: string }) =>
      anonymous<{ identityId: string; email: string }>({ method: 'POST', path: 'auth/sign-up-invitation', json: body }),
  };
}

/** When a stored token stops being used: its `exp`, capped by the spec's lifetime; the fallback when it has none. */
export function expiryOf(token: string, issuedAt: number): number {
  let exp: number | undefined;
  try {
    exp = decodeJwt(token).exp;
  } catch {
    exp = undefined;
  }
  if (typeof exp !== 'number' || !Number.isFinite(exp)) return issuedAt + TOKEN_FALLBACK_LIFETIME_MS;
  return Math.min(exp * 1000, issuedAt + TOKEN_LIFETIME_MS);
}

async function readJson(response: globalThis.Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new BackendError(502, 'bad_gateway', 'The user service sent an unreadable answer');
  }
}

/** Any non-2xx answer as a BackendError: the backend's own { code, message, meta } when it sent one. */
export async function toBackendError(response: globalThis.Response): Promise<BackendError> {
  let body: unknown;
  try {
    body = JSON.parse(await response.text());
  } catch {
    body = undefined;
  }
  const status = response.status >= 400 ? response.status : 502;
  if (body && typeof body === 'object' && typeof (body as BackendErrorBody).code === 'string') {
    const { code, message, meta } = body as BackendErrorBody;
    return new BackendError(status, code, typeof message === 'string' ? message : code, meta && typeof meta === 'object' ? meta : undefined);
  }
  return new BackendError(status, status >= 500 ? 'unknown_error' : 'bad_request', `The user service answered ${response.status}`);
}

const clients = new WeakMap<object, BackendClient>();

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
