/**
 * How the backend client (server/backend-client.ts) sends its JSON calls: `http.request` over keep-alive
 * agents, the whole answer read into a string.
 *
 * Why not global `fetch`: undici's per-call machinery (Request/Headers objects, a web stream for the body,
 * AbortSignal.timeout + AbortSignal.any) showed as ~9% of the CPU of a `/profile-settings` GET, which makes
 * one backend call. The same lean path as the Kratos calls (server/flows/transport.ts).
 *
 * Behaviour the client relies on (the same as its former `fetch` call):
 * - `timeoutMs` is a TOTAL deadline (connect, headers, body, and the one retry below): a backend trickling
 *   one byte at a time cannot hold a call past it. Past it the call rejects with an error named
 *   `TimeoutError`, as AbortSignal.timeout's does;
 * - `signal` (the caller giving up) rejects with the signal's reason, as fetch does;
 * - redirects are never followed (fetch's `redirect: 'manual'`): a 3xx is the answer;
 * - a call that went out on a kept-alive socket the backend had closed for idleness (ECONNRESET before
 *   any answer, Node's documented `reusedSocket` case) is sent once more on a fresh socket: the backend
 *   never read it, so sending it again is safe, POSTs included.
 */
import http from 'node:http';
import https from 'node:https';

/** What the client reads of an answer; a fetch Response (the streamed upload) has the same shape. */
export type BackendAnswer = { status: number; ok: boolean; text(): Promise<string> };

export type BackendAgents = { http: http.Agent; https: https.Agent };

/**
 * Keep-alive agents towards the backend. Past `maxSockets`, calls wait in the agent for a free socket:
 * BACKEND_MAX_SOCKETS (server/config.ts) bounds the sockets one process opens to the backend.
 */
export function backendAgents(maxSockets: number): BackendAgents {
  const options = { keepAlive: true, maxSockets, maxFreeSockets: Math.min(64, maxSockets), scheduling: 'lifo' as const };
  return { http: new http.Agent(options), https: new https.Agent(options) };
}

export type PlainRequest = { method: string; headers: Record<string, string>; body?: string };

function timeoutError(timeoutMs: number): Error {
  return new DOMException(`The user service did not answer within ${timeoutMs} ms`, 'TimeoutError');
}

function answerOf(status: number, body: string): BackendAnswer {
  return { status, ok: status >= 200 && status < 300, text: () => Promise.resolve(body) };
}

/** One call and its whole answer, within `timeoutMs` in all, unless `signal` ends it first. */
export function sendWithin(target: URL, request: PlainRequest, agents: BackendAgents, timeoutMs: number, signal?: AbortSignal): Promise<BackendAnswer> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const secure = target.protocol === 'https:';
    const transport = secure ? https : http;
    const agent = secure ? agents.https : agents.http;
    const headers = request.body === undefined ? request.headers : { ...request.headers, 'Content-Length': String(Buffer.byteLength(request.body)) };
    let live: http.ClientRequest | undefined;
    let settled = false;
    const finish = (error: unknown, answer?: BackendAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (answer) return resolve(answer);
      live?.destroy();
      reject(error);
    };
    const onAbort = () => finish(signal!.reason);
    const timer = setTimeout(() => finish(timeoutError(timeoutMs)), timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });

    const attempt = (mayRetry: boolean) => {
      let answered = false;
      const outgoing = transport.request(target, { method: request.method, headers, agent }, (incoming) => {
        answered = true;
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => finish(undefined, answerOf(incoming.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'))));
        incoming.on('error', (error) => finish(error));
        // An answer cut short (the backend closed mid-body) ends with 'close' and no 'end'.
        incoming.on('close', () => {
          if (!incoming.complete) finish(new Error('The user service closed the connection mid-answer'));
        });
      });
      live = outgoing;
      outgoing.on('error', (error: NodeJS.ErrnoException) => {
        if (mayRetry && !answered && !settled && outgoing.reusedSocket && error.code === 'ECONNRESET') return attempt(false);
        finish(error);
      });
      outgoing.end(request.body);
    };
    attempt(true);
  });
}
