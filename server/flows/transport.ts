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
 *   JSON answers to expired/replaced recovery and verification flows are such redirects;
 * - `config.timeout` aborts the request.
 * Network errors reject with the error (the app's error handler answers 500).
 */
import http from 'node:http';
import https from 'node:https';

export type AdapterConfig = {
  url?: string;
  method?: string;
  headers?: { toJSON?: () => Record<string, unknown> } | Record<string, unknown>;
  data?: unknown;
  timeout?: number;
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
  const source = headers && typeof (headers as { toJSON?: unknown }).toJSON === 'function' ? (headers as { toJSON: () => Record<string, unknown> }).toJSON() : (headers ?? {});
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(source as Record<string, unknown>)) {
    if (value === undefined || value === null || value === false) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return out;
}

function once(config: AdapterConfig, url: URL, method: string, headers: Record<string, string>, body: string | Buffer | undefined) {
  const secure = url.protocol === 'https:';
  const transport = secure ? https : http;
  return new Promise<{ status: number; statusText: string; headers: Record<string, string | string[]>; data: string }>((resolve, reject) => {
    const request = transport.request(
      url,
      { method, headers, agent: secure ? config.httpsAgent : config.httpAgent },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            statusText: response.statusMessage ?? '',
            headers: response.headers as Record<string, string | string[]>,
            data: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    if (config.timeout) {
      request.setTimeout(config.timeout, () => request.destroy(new Error(`Kratos did not answer within ${config.timeout} ms`)));
    }
    request.end(body);
  });
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
  let url = new URL(String(config.url));
  let method = (config.method ?? 'get').toUpperCase();
  const headers = plainHeaders(config.headers);
  let body = typeof config.data === 'string' || Buffer.isBuffer(config.data) ? config.data : config.data === undefined ? undefined : JSON.stringify(config.data);
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  for (let hop = 0; ; hop += 1) {
    const answer = await once(config, url, method, headers, body);
    const location = answer.headers.location;
    const final = !FOLLOWED.has(answer.status) || typeof location !== 'string' || hop >= MAX_REDIRECTS;
    const next = final ? undefined : new URL(location as string, url);
    // Never carry the browser's cookies to another origin: such a redirect is the answer.
    if (!next || next.origin !== url.origin) return settle({ ...answer, config, request: null });
    url = next;
    if (answer.status === 303 || ((answer.status === 301 || answer.status === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
      delete headers['content-type'];
      delete headers['content-length'];
    }
  }
}
