/**
 * A lean axios adapter for the Ory SDK: the SDK still builds every request (paths, query, JSON body,
 * headers), this only moves the bytes over a keep-alive `http.Agent`.
 *
 * Why: every page of a flow makes at least one Kratos call, and axios's stock Node adapter (streams,
 * follow-redirects, proxy detection, decompression) cost about as much CPU as rendering the page.
 *
 * Behaviour callers rely on (contract §1.7):
 * - axios semantics: a status outside `validateStatus` (2xx by default) rejects with an error carrying
 *   `response` (status, data, headers), as the stock adapter does; kratosCall turns it back into a value;
 * - `set-cookie` comes back as an array, other headers lower-cased;
 * - 302/303/307 answers to the SAME origin are followed (max 3), keeping the Cookie header: Kratos's
 *   JSON answers to expired/replaced recovery and verification flows are such redirects. As a browser
 *   would, the next hop carries the cookies a hop set (Kratos renews the anti-CSRF cookie on the
 *   expired-flow redirect, and the new flow only opens with the new one), and the answer returns every
 *   hop's `set-cookie`, so the browser gets them too;
 * - a request that went out on a kept-alive socket the server had closed for idleness (ECONNRESET
 *   before any answer) is sent once more on a fresh socket;
 * - `config.timeout` is a TOTAL deadline for the call (connect, headers, body, and any followed
 *   redirect), not an idle timeout: a service trickling one byte at a time cannot hold a request past
 *   it. `config.signal` (the caller cancelling) aborts too, and rejects with the signal's reason.
 * - Kratos unreachable, or past the deadline, rejects with an AppError 503 `identity_unavailable`
 *   (translated `httpError.identityUnavailable`), which the error handler answers as such. The outcome
 *   of every call is remembered per origin (`upstreamState`): readiness reads it, and for a moment
 *   after a failure further calls fail at once instead of each waiting for the deadline again.
 */
import http from 'node:http';
import https from 'node:https';
import { AppError, ERROR_CODES } from '../../core/errors.ts';
import { CookieJar } from './cookies.ts';

/** The code of every answer given because the identity service could not be reached in time. */
export const IDENTITY_UNAVAILABLE = ERROR_CODES.identityUnavailable;

/** After a failed call, further calls to that origin fail at once for this long (then one tries again). */
export const FAIL_FAST_MS = 1_000;

type UpstreamState = { up: boolean; at: number };
const states = new Map<string, UpstreamState>();

/** The last known state of an upstream origin (undefined: never called). */
export function upstreamState(origin: string): UpstreamState | undefined {
  return states.get(origin);
}

function record(origin: string, up: boolean): void {
  states.set(origin, { up, at: Date.now() });
}

function unavailable(reason: 'timeout' | 'unreachable', message: string): AppError {
  return new AppError(503, IDENTITY_UNAVAILABLE, message, { reason }, 'httpError.identityUnavailable');
}

export type AdapterConfig = {
  url?: string;
  method?: string;
  headers?: { toJSON?: () => Record<string, unknown> } | Record<string, unknown>;
  data?: unknown;
  timeout?: number;
  signal?: AbortSignal;
  /** A readiness probe: skips the fail-fast window (it is what ends it). */
  probe?: boolean;
  httpAgent?: http.Agent;
  httpsAgent?: https.Agent;
  validateStatus?: ((status: number) => boolean) | null;
};

export type AdapterResponse = {
  data: string;
  status: number;
  statusText: string;
  headers: Record<string, string | string[]>;
  config: AdapterConfig;
  request: unknown;
};

const MAX_REDIRECTS = 3;
const FOLLOWED = new Set([301, 302, 303, 307, 308]);

function plainHeaders(headers: AdapterConfig['headers']): Record<string, string> {
  const source =
    headers && typeof (headers as { toJSON?: unknown }).toJSON === 'function'
      ? (headers as { toJSON: () => Record<string, unknown> }).toJSON()
      : (headers ?? {});
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(source as Record<string, unknown>)) {
    if (value === undefined || value === null || value === false) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return out;
}

type Answer = { status: number; statusText: string; headers: Record<string, string | string[]>; data: string };

/** One request and its whole body; `signal` ends it (request and response) with the signal's reason. */
function once(
  config: AdapterConfig,
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | Buffer | undefined,
  signal: AbortSignal | undefined,
) {
  const secure = url.protocol === 'https:';
  const transport = secure ? https : http;
  return new Promise<Answer>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    let response: http.IncomingMessage | undefined;
    const onAbort = () => {
      reject(signal!.reason);
      request.destroy();
      response?.destroy();
    };
    const done = () => signal?.removeEventListener('abort', onAbort);
    const request = transport.request(url, { method, headers, agent: secure ? config.httpsAgent : config.httpAgent }, (incoming) => {
      response = incoming;
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        done();
        resolve({
          status: incoming.statusCode ?? 0,
          statusText: incoming.statusMessage ?? '',
          headers: incoming.headers as Record<string, string | string[]>,
          data: Buffer.concat(chunks).toString('utf8'),
        });
      });
      incoming.on('error', (error) => {
        done();
        reject(error);
      });
    });
    request.on('error', (error) => {
      done();
      // A kept-alive socket the server closed while it was idle fails before any answer: say so.
      if (!response && request.reusedSocket && (error as NodeJS.ErrnoException).code === 'ECONNRESET') (error as StaleSocketError).staleSocket = true;
      reject(error);
    });
    signal?.addEventListener('abort', onAbort, { once: true });
    request.end(body);
  });
}

type StaleSocketError = Error & { staleSocket?: boolean };

/**
 * `once`, tried a second time when it failed only because it went out on a kept-alive socket the
 * server had just closed for idleness (Node's documented retry for `reusedSocket` + ECONNRESET): the
 * server never read that request, so sending it again on a fresh socket is safe, POSTs included.
 */
async function onceOnLiveSocket(...args: Parameters<typeof once>): Promise<Answer> {
  try {
    return await once(...args);
  } catch (error) {
    if (!(error as StaleSocketError).staleSocket) throw error;
    return once(...args);
  }
}

/** Rejects like axios's `settle` when the status is not accepted. */
function settle(response: AdapterResponse): AdapterResponse {
  const accept = response.config.validateStatus ?? ((status: number) => status >= 200 && status < 300);
  if (accept(response.status)) return response;
  const error = new Error(`Request failed with status code ${response.status}`) as Error & { response: AdapterResponse; isAxiosError: boolean; status: number };
  error.name = 'AxiosError';
  error.response = response;
  error.status = response.status;
  error.isAxiosError = true;
  throw error;
}

export async function kratosAdapter(config: AdapterConfig): Promise<AdapterResponse> {
  const origin = new URL(String(config.url)).origin;
  const last = states.get(origin);
  if (!config.probe && last && !last.up && Date.now() - last.at < FAIL_FAST_MS) {
    throw unavailable('unreachable', 'Kratos failed a moment ago: not trying again yet');
  }
  const stop = callSignal(config);
  let answer: AdapterResponse;
  try {
    answer = await follow(config, stop?.signal);
  } catch (error) {
    // The caller gave up (its own signal): not the identity service's fault.
    if (config.signal?.aborted) throw config.signal.reason;
    record(origin, false);
    if (stop?.timedOut) throw unavailable('timeout', `Kratos did not answer within ${config.timeout} ms`);
    throw unavailable('unreachable', `Kratos could not be reached: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  } finally {
    stop?.end();
  }
  record(origin, true);
  return settle(answer);
}

type CallSignal = { signal: AbortSignal; readonly timedOut: boolean; end(): void };

/**
 * One signal for the call: aborted at the deadline or when the caller's own signal aborts, whichever
 * comes first; `end()` once the call is over. A timer cleared when the call ends, not
 * AbortSignal.timeout: that one's timer and its weak reference to the signal stay alive for the whole
 * deadline (5 s) after a call of a few milliseconds, so under load thousands of them lived on into the
 * old generation (a heap snapshot after 150 s of the soak: ~3,450 of each).
 */
function callSignal(config: AdapterConfig): CallSignal | undefined {
  const caller = config.signal;
  if (!config.timeout) return caller && { signal: caller, timedOut: false, end() {} };
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`Kratos did not answer within ${config.timeout} ms`, 'TimeoutError'));
  }, config.timeout);
  const forward = () => controller.abort(caller!.reason);
  if (caller?.aborted) forward();
  else caller?.addEventListener('abort', forward, { once: true });
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    end() {
      clearTimeout(timer);
      caller?.removeEventListener('abort', forward);
    },
  };
}

function setCookieList(value: string | string[] | undefined): string[] {
  if (!value) return [];
  return Array.isArray(value) ? value : [value];
}

/** The last answer with the cookies of the hops before it first (a later cookie of the same name wins). */
function withHopCookies(answer: Answer, hopCookies: readonly string[]): Answer {
  if (hopCookies.length === 0) return answer;
  return { ...answer, headers: { ...answer.headers, 'set-cookie': [...hopCookies, ...setCookieList(answer.headers['set-cookie'])] } };
}

/** The request, and the same-origin redirects it is answered with; the last answer, unsettled. */
async function follow(config: AdapterConfig, signal: AbortSignal | undefined): Promise<AdapterResponse> {
  let url = new URL(String(config.url));
  let method = (config.method ?? 'get').toUpperCase();
  const headers = plainHeaders(config.headers);
  let body =
    typeof config.data === 'string' || Buffer.isBuffer(config.data) ? config.data : config.data === undefined ? undefined : JSON.stringify(config.data);
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  // Cookies set by the hops followed so far: sent on with the next hop, and returned with the answer.
  const hopCookies: string[] = [];
  for (let hop = 0; ; hop += 1) {
    const answer = await onceOnLiveSocket(config, url, method, headers, body, signal);
    const location = answer.headers.location;
    const final = !FOLLOWED.has(answer.status) || typeof location !== 'string' || hop >= MAX_REDIRECTS;
    const next = final ? undefined : new URL(location as string, url);
    // Never carry the browser's cookies to another origin: such a redirect is the answer.
    if (!next || next.origin !== url.origin) return { ...withHopCookies(answer, hopCookies), config, request: null };
    const set = setCookieList(answer.headers['set-cookie']);
    if (set.length > 0) {
      hopCookies.push(...set);
      const jar = new CookieJar(headers.cookie);
      jar.apply(set);
      const cookie = jar.header();
      if (cookie) headers.cookie = cookie;
      else delete headers.cookie;
    }
    url = next;
    if (answer.status === 303 || ((answer.status === 301 || answer.status === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
      delete headers['content-type'];
      delete headers['content-length'];
    }
  }
}
