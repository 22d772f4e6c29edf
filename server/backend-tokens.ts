// The bearer tokens of the user backend (spec §7, §9): minted by Kratos's tokenizer
// (whoami?tokenize_as=authorization), stored server-side per Kratos session until shortly before they
// expire, least recently used dropped first; concurrent requests of one session share one mint.
import type { FrontendApi } from '@ory/client';
import { decodeJwt } from 'jose';
import type { Logger } from 'pino';
import { AppError, ERROR_CODES } from '../core/errors.ts';

/** Spec §9: a stored authorization token lives 1,680,000 ms, or 120,000 ms when the token names no expiry. */
export const TOKEN_LIFETIME_MS = 1_680_000;
export const TOKEN_FALLBACK_LIFETIME_MS = 120_000;
/** A token this close to its expiry is treated as expired, so it cannot lapse on its way to the backend. */
const EXPIRY_MARGIN_MS = 10_000;
const TOKEN_TEMPLATE = 'authorization';

/** Who a call is made for: the browser's Cookie header, and the Kratos session id when already known. */
export type Caller = { cookie: string; sessionId?: string };

type CachedToken = { token: string; expiresAt: number };

export type TokenStoreOptions = {
  frontend: Pick<FrontendApi, 'toSession'>;
  now: () => number;
  timeoutMs: number;
  cacheSize: number;
  logger?: Pick<Logger, 'warn' | 'debug'>;
};

export function createTokenStore(options: TokenStoreOptions) {
  const { frontend, now, timeoutMs, cacheSize } = options;
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
      throw new AppError(503, ERROR_CODES.identityUnavailable, 'The identity service could not be reached');
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

  return {
    authorizationToken,
    /** Drops a session's stored token. */
    forget(sessionId: string): void {
      tokens.delete(sessionId);
    },
    get size(): number {
      return tokens.size;
    },
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
