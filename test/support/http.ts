// Shared helpers of the auth integration tests: a browser-like cookie jar over fetch (redirects are
// NOT followed, so every status and Location can be asserted), HTML scraping of our forms, and direct
// admin calls to the embedded identity service for test fixtures.

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

  async request(method: string, path: string, options: { form?: Record<string, string>; json?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
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
  value.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#x27;/g, "'").replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>');

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

/** Texts of the `field__error` paragraphs under the field `id`. */
export function fieldError(html: string, fieldId: string): string | undefined {
  const match = new RegExp(`<p class="field__error[^"]*" id="${fieldId}-error">([^<]*)</p>`).exec(html);
  return match ? decode(match[1]!) : undefined;
}

/** Texts of the form-level alerts. */
export function alerts(html: string): string[] {
  return [...html.matchAll(/<div role="(?:alert|status)"[^>]*class="alert[^"]*"[^>]*>[\s\S]*?<p>([^<]*)<\/p>/g)].map((m) => decode(m[1]!));
}

let counter = 0;
export function uniqueEmail(prefix = 'user'): string {
  counter += 1;
  return `${prefix}.${Date.now().toString(36)}.${counter}@example.com`;
}

/** A strong password no breach list holds and unlike any e-mail we generate. */
export const STRONG_PASSWORD = 'Violet-Harbour-Quartz-93';

/** Creates a verified identity with a password through the admin API (a fixture, not the flow under test). */
export async function createIdentity(adminUrl: string, email: string, password = STRONG_PASSWORD, name = 'Ada'): Promise<string> {
  const response = await fetch(`${adminUrl}/admin/identities`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({
      schema_id: 'default',
      traits: { email, name },
      credentials: { password: { config: { password } } },
      verifiable_addresses: [{ value: email, verified: true, via: 'email', status: 'completed' }],
    }),
  });
  if (response.status !== 201) throw new Error(`createIdentity: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { id: string }).id;
}

export async function patchIdentityState(adminUrl: string, id: string, state: 'active' | 'inactive'): Promise<void> {
  const response = await fetch(`${adminUrl}/admin/identities/${id}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify([{ op: 'replace', path: '/state', value: state }]),
  });
  if (response.status !== 200) throw new Error(`patchIdentityState: ${response.status} ${await response.text()}`);
}

/** The last verification/recovery code e-mailed to `email` by the embedded courier. */
export async function lastCode(adminUrl: string, email: string): Promise<string> {
  const response = await fetch(`${adminUrl}/admin/courier/messages?recipient=${encodeURIComponent(email)}`, { headers: { accept: 'application/json' } });
  const messages = (await response.json()) as { body: string; created_at: string }[];
  const sorted = [...messages].sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));
  for (const message of sorted) {
    const code = /\b(\d{6})\b/.exec(message.body)?.[1];
    if (code) return code;
  }
  throw new Error(`no code mailed to ${email}`);
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

/** Signs in through our form; returns the final answer of the POST. */
export async function signIn(browser: Browser, email: string, password = STRONG_PASSWORD, query = '') {
  const { action, csrf } = await openSignIn(browser, query);
  return browser.post(action, { csrf_token: csrf, identifier: email, password, method: 'password' });
}
