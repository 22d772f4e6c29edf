/**
 * Property-based fuzzing of the running app (issue 10): random requests to every form endpoint and the
 * main pages, each checked for "never a 5xx, never slower than the bound". Shared by the bounded suite
 * in `npm test` (test/integration/security/fuzz.test.ts) and the long run (scripts/fuzz.ts).
 *
 *   fuzzRequest                  → a fast-check arbitrary of one request (method, path, query, body)
 *   sendFuzzRequest(base, r, jar) → its answer's status and duration; a real flow id and CSRF token
 *                                   are fetched first for half of the posts, so bodies reach validation
 */
import fc from 'fast-check';

export const SLOW_MS = 5_000;

/** Where forms post (and the GET that shows them, which hands out the flow and the token). */
const FORMS = [
  { path: '/sign-in', fields: ['identifier', 'password', 'provider', 'method'] },
  { path: '/sign-up', fields: ['traits.email', 'traits.name', 'password', 'terms', 'screen', 'method', 'provider'] },
  { path: '/forgot-password', fields: ['email', 'code', 'method'] },
  { path: '/forgot-password/reset', fields: ['password', 'method'] },
  { path: '/sign-up/verification', fields: ['email', 'code', 'method'] },
  { path: '/verify-account', fields: ['email', 'code', 'method'] },
  { path: '/sign-up/resend-verification-email', fields: ['email', 'method'] },
  { path: '/sign-up/invitation', fields: ['token', 'name', 'password', 'terms', '_csrf'] },
  { path: '/sign-in/forget-account', fields: ['_csrf'] },
  { path: '/sign-in/google-one-tap', fields: ['credential', 'g_csrf_token', 'handed_over'] },
  { path: '/logout', fields: ['_csrf'] },
  { path: '/profile-settings', fields: ['traits.name', 'password', 'method', 'link', 'unlink'] },
  { path: '/profile-settings/avatar/remove', fields: ['_csrf'] },
  { path: '/profile-settings/delete-account', fields: ['_csrf', 'confirm'] },
  { path: '/profile-settings/reactivate', fields: ['_csrf'] },
] as const;

const PAGES = ['/', '/error', '/language', '/healthz', '/readyz', '/swagger/ui', '/swagger/openapi.json', '/profile-settings/account-deleted', '/nowhere'];

const QUERY_KEYS = ['flow', 'return_to', 'lng', 'email', 'loginHint', 'highlight', 'refresh', 'code', 'token', 'id', 'logged_out', 'platform'];

/** Strings that break naive code: unicode, control characters, encodings, URLs, numbers, huge ones. */
const nastyString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '%',
    '%E0%A4%A',
    '\u0000',
    '../../etc/passwd',
    '//evil.example/x',
    '/\\evil.example',
    'javascript:alert(1)',
    'a@b',
    '__proto__',
    'toString',
    'NaN',
    '-1',
    '1e309',
  ),
  fc.uuid(),
  fc.emailAddress(),
  fc.webUrl(),
  fc.string({ minLength: 2_000, maxLength: 12_000 }),
);

/** JSON values of any shape where a string is expected. */
const jsonValue: fc.Arbitrary<unknown> = fc.oneof(
  nastyString,
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(nastyString, { maxLength: 3 }),
  fc.dictionary(nastyString, nastyString, { maxKeys: 3 }),
);

const bodyKind = fc.constantFrom('form', 'json', 'raw-json', 'multipart', 'text', 'none');

export type FuzzRequest = {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  query: [string, string][];
  kind: 'form' | 'json' | 'raw-json' | 'multipart' | 'text' | 'none';
  fields: [string, unknown][];
  raw: string;
  realFlow: boolean;
  accept: 'html' | 'json' | 'enhanced';
};

export const fuzzRequest: fc.Arbitrary<FuzzRequest> = fc
  .record({
    target: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...FORMS).map((form) => ({ path: form.path as string, fields: form.fields as readonly string[], post: true })) },
      { weight: 1, arbitrary: fc.constantFrom(...PAGES).map((path) => ({ path, fields: [] as readonly string[], post: false })) },
    ),
    method: fc.constantFrom('GET', 'POST', 'POST', 'POST', 'PUT', 'DELETE'),
    query: fc.array(fc.tuple(fc.constantFrom(...QUERY_KEYS), nastyString), { maxLength: 4 }),
    kind: bodyKind,
    values: fc.array(jsonValue, { minLength: 8, maxLength: 8 }),
    extra: fc.array(fc.tuple(nastyString, jsonValue), { maxLength: 3 }),
    raw: nastyString,
    realFlow: fc.boolean(),
    accept: fc.constantFrom('html', 'json', 'enhanced'),
  })
  .map(({ target, method, query, kind, values, extra, raw, realFlow, accept }) => ({
    method: (target.post ? method : 'GET') as FuzzRequest['method'],
    path: target.path,
    query,
    kind: kind as FuzzRequest['kind'],
    fields: [...target.fields.map((name, index): [string, unknown] => [name, values[index % values.length]]), ...extra],
    raw,
    realFlow,
    accept: accept as FuzzRequest['accept'],
  }));

/** Cookies of one visitor, kept across the requests of a run like a browser would. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      if (at > 0) this.cookies.set(pair!.slice(0, at).trim(), pair!.slice(at + 1));
    }
  }
}

const ACCEPT = { html: 'text/html', json: 'application/json', enhanced: 'text/html' } as const;

function text(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}

/** A real flow's action and token for the form at `path`, when its page offers one. */
async function realForm(base: string, path: string, jar: CookieJar): Promise<{ action: string; csrf: string } | undefined> {
  const page = await fetch(new URL(path, base), { headers: { cookie: jar.header(), accept: 'text/html' }, redirect: 'follow' });
  jar.take(page);
  const html = await page.text();
  const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1]?.replaceAll('&amp;', '&');
  const csrf = /name="(?:csrf_token|_csrf)"[^>]*value="([^"]*)"/.exec(html)?.[1];
  return action && csrf ? { action, csrf } : undefined;
}

export async function sendFuzzRequest(base: string, request: FuzzRequest, jar: CookieJar): Promise<{ status: number; ms: number; label: string }> {
  const started = Date.now();
  let target = new URL(request.path, base);
  const fields = [...request.fields];
  if (request.method === 'POST' && request.realFlow) {
    const form = await realForm(base, request.path, jar).catch(() => undefined);
    if (form) {
      target = new URL(form.action, base);
      fields.push(['csrf_token', form.csrf], ['_csrf', form.csrf]);
    }
  }
  for (const [key, value] of request.query) target.searchParams.append(key, value);
  const headers: Record<string, string> = { accept: ACCEPT[request.accept], cookie: jar.header() };
  if (request.accept === 'enhanced') headers['x-enhance'] = '1';
  let body: string | FormData | undefined;
  if (request.method !== 'GET') {
    switch (request.kind) {
      case 'form':
        headers['content-type'] = 'application/x-www-form-urlencoded';
        body = fields.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(text(value))}`).join('&');
        break;
      case 'json':
        headers['content-type'] = 'application/json';
        body = JSON.stringify(Object.fromEntries(fields));
        break;
      case 'raw-json':
        headers['content-type'] = 'application/json';
        body = `{"csrf_token": ${JSON.stringify(request.raw)}, ${request.raw}`;
        break;
      case 'multipart': {
        const data = new FormData();
        for (const [key, value] of fields) data.append(key, text(value));
        data.append('file', new Blob([request.raw]), 'x.png');
        body = data;
        break;
      }
      case 'text':
        headers['content-type'] = 'text/plain';
        body = request.raw;
        break;
      case 'none':
        break;
    }
  }
  const answer = await fetch(target, { method: request.method, headers, body, redirect: 'manual', signal: AbortSignal.timeout(SLOW_MS * 2) });
  jar.take(answer);
  await answer.arrayBuffer();
  return {
    status: answer.status,
    ms: Date.now() - started,
    label: `${request.method} ${target.pathname}${target.search.slice(0, 80)} (${request.kind}, ${request.accept})`,
  };
}
