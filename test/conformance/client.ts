// The conformance suite's HTTP client: one cookie jar per simulated browser (or server-side SDK
// caller), redirects never followed, every exchange recorded raw for the normaliser. A scenario makes
// as many clients as it needs (a second browser for a CSRF mismatch, an admin caller without cookies);
// they all record into the scenario's one Recording, in call order.

/** Where a scenario runs: the three base URLs, without a trailing slash. */
export type Target = { name: 'stand-in' | 'kratos'; publicUrl: string; adminUrl: string; appUrl: string };

/** One request and its answer, as seen on the wire (before normalisation). */
export type Exchange = {
  method: string;
  url: string;
  /** How the request was made: `json` (SDK-style, Accept: application/json), `form` (a browser form post, no Accept), `browser` (a navigation, Accept: text/html), `plain` (no Accept, no body). */
  variant: Variant;
  status: number;
  location?: string;
  contentType?: string;
  setCookies: string[];
  /** Parsed JSON when the answer is JSON, else the text ('' for none). */
  body: unknown;
  /** The response headers the client was asked to record (lower-case names), when present. */
  headers?: Record<string, string>;
};

export type Variant = 'json' | 'form' | 'browser' | 'plain';

export type Recording = { exchanges: Exchange[] };

export type Answer = { status: number; location?: string; body: unknown; setCookies: string[]; text: string };

export type RequestOptions = {
  /** A JSON body (sent with Content-Type: application/json). */
  json?: unknown;
  /** A form body (application/x-www-form-urlencoded), fields in the given order; blank values are sent as blank. */
  form?: Record<string, string> | [string, string][];
  /** A body sent exactly as given (a malformed one), with the Content-Type from `headers`. */
  raw?: string;
  /** Default: `json` when a JSON body is given or the caller is SDK-style, else as the method implies. */
  variant?: Variant;
  headers?: Record<string, string>;
  /** false: not recorded (set-up and waiting requests that are not part of the comparison). */
  record?: boolean;
};

const ACCEPT: Record<Variant, string | undefined> = {
  json: 'application/json',
  browser: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  form: undefined,
  plain: undefined,
};

/** A cookie jar that keeps what the services set and sends it back, like a browser on one host. */
export class CookieJar {
  readonly cookies = new Map<string, string>();

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  absorb(setCookies: string[]): void {
    for (const line of setCookies) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq < 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const attr = (key: string) =>
        attributes
          .map((a) => a.trim())
          .find((a) => a.toLowerCase().startsWith(`${key}=`))
          ?.slice(key.length + 1);
      const maxAge = attr('max-age');
      const expires = attr('expires');
      const gone = value === '' || (maxAge !== undefined && Number(maxAge) <= 0) || (expires !== undefined && Date.parse(expires) < Date.now());
      if (gone) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  /** The first cookie whose name starts with `prefix`. */
  find(prefix: string): [string, string] | undefined {
    for (const entry of this.cookies) if (entry[0].startsWith(prefix)) return entry;
    return undefined;
  }
}

function parseBody(text: string, contentType: string | undefined): unknown {
  if (!text) return '';
  if (contentType?.includes('json')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

/** One browser (or SDK caller): its own cookie jar, recording into the scenario's recording. */
export class Client {
  readonly jar = new CookieJar();
  private readonly recording: Recording;
  /** false: an admin or API caller that keeps no cookies. */
  private readonly keepCookies: boolean;
  /** Response headers recorded with each exchange (lower-case names), e.g. Cache-Control of a token answer. */
  private readonly recordHeaders: readonly string[];

  constructor(recording: Recording, keepCookies = true, recordHeaders: readonly string[] = []) {
    this.recording = recording;
    this.keepCookies = keepCookies;
    this.recordHeaders = recordHeaders;
  }

  async request(method: string, url: string, options: RequestOptions = {}): Promise<Answer> {
    const variant: Variant = options.variant ?? (options.json !== undefined ? 'json' : options.form ? 'form' : 'plain');
    const headers: Record<string, string> = { ...options.headers };
    const accept = ACCEPT[variant];
    if (accept) headers.accept = accept;
    let body: string | undefined;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(options.form).toString();
    } else if (options.raw !== undefined) {
      body = options.raw;
    }
    const cookie = this.jar.header();
    if (cookie && this.keepCookies) headers.cookie = cookie;
    const response = await fetch(url, { method, headers, body, redirect: 'manual', signal: AbortSignal.timeout(15_000) });
    const text = await response.text();
    const contentType = response.headers.get('content-type') ?? undefined;
    const setCookies = response.headers.getSetCookie();
    if (this.keepCookies) this.jar.absorb(setCookies);
    const location = response.headers.get('location') ?? undefined;
    const parsed = parseBody(text, contentType);
    if (options.record !== false) {
      const exchange: Exchange = { method, url, variant, status: response.status, location, contentType, setCookies, body: parsed };
      const headers = Object.fromEntries(this.recordHeaders.flatMap((name) => (response.headers.has(name) ? [[name, response.headers.get(name)!]] : [])));
      if (this.recordHeaders.length > 0) exchange.headers = headers;
      this.recording.exchanges.push(exchange);
    }
    return { status: response.status, location, body: parsed, setCookies, text };
  }

  get(url: string, options: RequestOptions = {}): Promise<Answer> {
    return this.request('GET', url, options);
  }

  /** GET as the app's SDK calls do (Accept: application/json, the browser's cookies). */
  getJson(url: string, options: RequestOptions = {}): Promise<Answer> {
    return this.request('GET', url, { variant: 'json', ...options });
  }

  postJson(url: string, json: unknown, options: RequestOptions = {}): Promise<Answer> {
    return this.request('POST', url, { ...options, json });
  }

  /** A browser posting Kratos's own form: urlencoded, no Accept header. */
  postForm(url: string, form: Record<string, string> | [string, string][], options: RequestOptions = {}): Promise<Answer> {
    return this.request('POST', url, { ...options, form, variant: 'form' });
  }
}

/**
 * A scenario's failure with what explains it: the last answer recorded before it stopped (a missing
 * redirect says little alone) and the error lines the service logged meanwhile.
 */
export function explainFailure(message: string, recording: Recording, logged: string[]): string {
  const last = recording.exchanges.at(-1);
  const body = last && (typeof last.body === 'string' ? last.body : JSON.stringify(last.body)).slice(0, 600);
  const lines = [message];
  if (last) lines.push(`last answer: ${last.method} ${last.url} (${last.variant}) → ${last.status}${last.location ? ` ${last.location}` : ''} ${body}`);
  for (const line of logged.slice(-5)) lines.push(`logged: ${line}`);
  return lines.join('\n');
}
