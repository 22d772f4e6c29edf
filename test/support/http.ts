// The HTTP side of the tests: a browser-like cookie jar over fetch (redirects are NOT followed, so every
// status and Location can be asserted) and readers of our HTML. Test data (identities, codes) comes from
// ./fixtures.ts; Playwright from ./browser.ts.
import { get } from 'node:http';

export type Answer = { status: number; headers: Headers; text: string; location?: string; setCookies: string[] };

/** A tiny browser: keeps cookies per test (one host), sends them, applies Set-Cookie like a browser. */
export class Browser {
  readonly cookies = new Map<string, string>();
  readonly baseUrl: string;

  constructor(baseUrl: string) {
    this.baseUrl = baseUrl;
  }

  cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  private absorb(setCookies: string[]): void {
    for (const line of setCookies) {
      const [pair = '', ...attributes] = line.split(';');
      const index = pair.indexOf('=');
      const name = pair.slice(0, index).trim();
      const value = pair.slice(index + 1).trim();
      const expired = attributes.some((attribute) => {
        const [key = '', raw = ''] = attribute.split('=');
        const lower = key.trim().toLowerCase();
        return (lower === 'max-age' && Number(raw) <= 0) || (lower === 'expires' && Date.parse(raw) < Date.now());
      });
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async request(
    method: string,
    path: string,
    options: { form?: Record<string, string>; json?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { accept: 'text/html', ...options.headers };
    const cookie = this.cookieHeader();
    if (cookie) headers.cookie = cookie;
    let body: string | undefined;
    if (options.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(options.form).toString();
    } else if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    }
    const response = await fetch(new URL(path, this.baseUrl), { method, headers, body, redirect: 'manual' });
    const setCookies = response.headers.getSetCookie();
    this.absorb(setCookies);
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, location: response.headers.get('location') ?? undefined, setCookies };
  }

  get(path: string, headers?: Record<string, string>) {
    return this.request('GET', path, { headers });
  }

  post(path: string, form: Record<string, string>, headers?: Record<string, string>) {
    return this.request('POST', path, { form, headers });
  }

  postJson(path: string, json: unknown, headers?: Record<string, string>) {
    return this.request('POST', path, { json, headers: { accept: 'application/json', ...headers } });
  }

  /** GET, following our own redirects (same origin only), up to `max` hops. */
  async follow(path: string, max = 5): Promise<Answer & { url: string }> {
    let url = path;
    for (let hop = 0; hop <= max; hop += 1) {
      const answer = await this.get(url);
      if (answer.status < 300 || answer.status >= 400 || !answer.location) return { ...answer, url };
      const next = new URL(answer.location, new URL(url, this.baseUrl));
      if (next.origin !== new URL(this.baseUrl).origin) return { ...answer, url };
      url = next.pathname + next.search;
    }
    throw new Error(`too many redirects from ${path}`);
  }
}

const decode = (value: string) =>
  value
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');

/** The `value` of the hidden input `name` in the HTML. */
export function hiddenValue(html: string, name: string): string | undefined {
  const match = new RegExp(`<input type="hidden" name="${name.replace('.', '\\.')}" value="([^"]*)"`).exec(html);
  return match ? decode(match[1]!) : undefined;
}

/** The `action` of the form with `id`. */
export function formAction(html: string, id: string): string | undefined {
  const match = new RegExp(`<form id="${id}"[^>]*action="([^"]*)"`).exec(html);
  return match ? decode(match[1]!) : undefined;
}

/**
 * The action of the page's first form that posts to a flow (`?flow=`). A first visit shows its new flow at
 * once (decision 190): its id is read here, no longer from a 303's Location.
 */
export function flowFormAction(html: string): string {
  for (const match of html.matchAll(/<form\b[^>]*\baction="([^"]*)"/g)) {
    const action = decode(match[1]!);
    if (/[?&]flow=/.test(action)) return action;
  }
  throw new Error(`no form posting to a flow in the page: ${html.slice(0, 200)}`);
}

/** The address a page showing a new flow asks the browser to put in its address bar (`<body data-address>`). */
export function barAddress(html: string): string | undefined {
  const match = /<body[^>]*\bdata-address="([^"]*)"/.exec(html);
  return match ? decode(match[1]!) : undefined;
}

/** Texts of the `field__error` paragraphs under the field `id`. */
export function fieldError(html: string, fieldId: string): string | undefined {
  const match = new RegExp(`<p class="field__error[^"]*" id="${fieldId}-error">([^<]*)</p>`).exec(html);
  return match ? decode(match[1]!) : undefined;
}

/** Texts of the form-level alerts. */
export function alerts(html: string): string[] {
  return [...html.matchAll(/<div role="(?:alert|status)"[^>]*class="alert[^"]*"[^>]*>[\s\S]*?<p>([^<]*)<\/p>/g)].map((m) => decode(m[1]!));
}

/** Opens /sign-in and returns the flow page with its form action and CSRF token. */
export async function openSignIn(browser: Browser, query = '') {
  const page = await browser.follow(`/sign-in${query}`);
  const action = formAction(page.text, 'sign-in-form');
  const csrf = hiddenValue(page.text, 'csrf_token');
  if (!action || !csrf) throw new Error(`no sign-in form (status ${page.status})`);
  return { page, action, csrf };
}

export async function openSignUp(browser: Browser, query = '') {
  const page = await browser.follow(`/sign-up${query}`);
  const action = formAction(page.text, 'sign-up-form');
  const csrf = hiddenValue(page.text, 'csrf_token');
  if (!action || !csrf) throw new Error(`no sign-up form (status ${page.status})`);
  return { page, action, csrf };
}

/** The csrf_token of a Kratos flow form, whatever the attribute order. */
export function csrfFrom(html: string): string {
  const token = /name="csrf_token"[^>]*value="([^"]+)"/.exec(html)?.[1] ?? /value="([^"]+)"[^>]*name="csrf_token"/.exec(html)?.[1];
  if (!token) throw new Error('no csrf_token in the page');
  return token.replaceAll('&amp;', '&').replaceAll('&#x2F;', '/').replaceAll('&#x3D;', '=');
}

/** The flow id in a Location (or any address). */
export function flowIdOf(location: string | undefined): string {
  const id = new URL(location ?? '', 'http://x').searchParams.get('flow');
  if (!id) throw new Error(`no flow in ${location}`);
  return id;
}

/** Visible text of a page: tags, scripts and styles removed, whitespace collapsed. */
export function visibleText(html: string): string {
  return html
    .replace(/<script[\s\S]*?<\/script>/g, ' ')
    .replace(/<style[\s\S]*?<\/style>/g, ' ')
    .replace(/<wbr\s*\/?>/g, '') // a line-break opportunity, no text
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/\s+/g, ' ')
    .trim();
}

// ── multipart uploads (the Browser sends forms and JSON only) ──────────────────────────────────────

export type MultipartPart = { name: string; value?: string; filename?: string; type?: string; data?: Buffer };

/** A multipart body with the given parts, in order (put our CSRF field first, like the pages' forms). */
export function multipart(parts: MultipartPart[]) {
  const boundary = `----testupload${Math.random().toString(16).slice(2)}`;
  const pieces: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.filename !== undefined) head += `; filename="${part.filename}"\r\nContent-Type: ${part.type ?? 'application/octet-stream'}`;
    pieces.push(Buffer.from(`${head}\r\n\r\n`), part.data ?? Buffer.from(part.value ?? ''), Buffer.from('\r\n'));
  }
  pieces.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(pieces), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Posts a multipart body with a browser's cookies (`cookie`: Browser.cookieHeader()); redirects are not followed. */
export async function postMultipart(
  baseUrl: string,
  cookie: string,
  path: string,
  parts: MultipartPart[],
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string; location?: string; json(): unknown }> {
  const { body, contentType } = multipart(parts);
  const response = await fetch(new URL(path, baseUrl), {
    method: 'POST',
    headers: { cookie, 'content-type': contentType, accept: 'text/html', ...headers },
    body,
    redirect: 'manual',
  });
  const text = await response.text();
  return { status: response.status, text, location: response.headers.get('location') ?? undefined, json: () => JSON.parse(text) };
}

// ── pages as they come over the wire ────────────────────────────────────────────────────────────────

export type RawPage = { status: number; body: Buffer; encoding?: string; nonce: string };

/**
 * GET a page asking for gzip, its body as sent (fetch would decode it): what the kept gzip templates are
 * seen by (decisions 241, 253). `nonce`: the CSP nonce its headers give.
 */
export function rawPage(baseUrl: string, address: string, cookie = ''): Promise<RawPage> {
  return new Promise((resolve, reject) => {
    const headers = { accept: 'text/html', 'accept-encoding': 'gzip', ...(cookie ? { cookie } : {}) };
    get(new URL(address, baseUrl), { headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        const nonce = /'nonce-([^']+)'/.exec(String(answer.headers['content-security-policy']))?.[1] ?? '';
        resolve({ status: answer.statusCode ?? 0, body: Buffer.concat(chunks), encoding: answer.headers['content-encoding'], nonce });
      });
    }).on('error', reject);
  });
}
