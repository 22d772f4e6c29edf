// Bad input never crashes a form endpoint: malformed and hostile bodies, posted with a valid flow and
// CSRF token so they get past the first checks, are answered with a 4xx that carries a translated
// message (a Vietnamese page, or the spec's `{ code, message }` in JSON), never with a 5xx.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureRateLimits, resetRateLimitSettings } from '../../../server/security/rate-limit.ts';
import { configureUniformTiming } from '../../../server/security/uniform-timing.ts';
import { Browser, csrfFrom } from '../../support/http.ts';
import { startStack, type Stack } from '../../support/stack.ts';

let stack: Stack;

beforeAll(async () => {
  configureRateLimits('off'); // every variant must reach validation and Kratos, not the limiter
  configureUniformTiming(0);
  stack = await startStack();
});
afterAll(async () => {
  resetRateLimitSettings();
  await stack?.close();
});

/** Each screen with its text fields, so the hostile values land in the fields the handler reads. */
const SCREENS = [
  { path: '/sign-in', fields: ['identifier', 'password'], method: 'password' },
  { path: '/sign-up', fields: ['traits.email', 'traits.name'], method: 'profile' },
  { path: '/forgot-password', fields: ['email', 'code'], method: 'code' },
  { path: '/sign-up/verification', fields: ['email', 'code'], method: 'code' },
  { path: '/sign-up/resend-verification-email', fields: ['email'], method: 'code' },
];

type Variant = { label: string; contentType: string; body: (csrf: string, fields: string[], method: string) => string };

const form = (entries: [string, string][]) => entries.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
const each = (fields: string[], value: string): [string, string][] => fields.map((field) => [field, value]);

const VARIANTS: Variant[] = [
  { label: 'JSON cut short', contentType: 'application/json', body: (csrf) => `{"csrf_token":"${csrf}","email": [` },
  {
    label: 'JSON arrays and objects where strings belong',
    contentType: 'application/json',
    body: (csrf, fields, method) =>
      JSON.stringify({ csrf_token: csrf, method, ...Object.fromEntries(fields.map((f, i) => [f, i % 2 ? { $gt: '' } : ['a', 'b']])) }),
  },
  {
    label: 'JSON prototype keys',
    contentType: 'application/json',
    body: (csrf, _fields, method) => `{"csrf_token":"${csrf}","method":"${method}","__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}`,
  },
  {
    label: 'JSON method unknown',
    contentType: 'application/json',
    body: (csrf, fields) => JSON.stringify({ csrf_token: csrf, method: 'telepathy', ...Object.fromEntries(each(fields, 'x')) }),
  },
  { label: 'JSON top level array', contentType: 'application/json', body: () => '[1,2,3]' },
  {
    label: 'a body over the size limit',
    contentType: 'application/x-www-form-urlencoded',
    body: (csrf, fields, method) => form([['csrf_token', csrf], ['method', method], ...each(fields, 'x'.repeat(100_000))]),
  },
  {
    label: 'broken percent-encoding',
    contentType: 'application/x-www-form-urlencoded',
    body: (csrf, fields) => `csrf_token=${encodeURIComponent(csrf)}&${fields.map((f) => `${f}=%E0%A4%A`).join('&')}&method=%`,
  },
  {
    label: 'every field twice',
    contentType: 'application/x-www-form-urlencoded',
    body: (csrf, fields, method) => form([['csrf_token', csrf], ['method', method], ['method', 'password'], ...each(fields, 'a'), ...each(fields, 'b')]),
  },
  {
    label: 'over-long text and emoji',
    contentType: 'application/x-www-form-urlencoded',
    body: (csrf, fields, method) => form([['csrf_token', csrf], ['method', method], ...each(fields, '🙂é'.repeat(200))]),
  },
  {
    label: 'NUL and control characters',
    contentType: 'application/x-www-form-urlencoded',
    body: (csrf, fields, method) => form([['csrf_token', csrf], ['method', method], ...each(fields, '\u0000\u0007\u001b[31m')]),
  },
  { label: 'a content type no endpoint reads', contentType: 'text/plain', body: (csrf) => `csrf_token=${csrf}` },
];

const MODES: { label: string; headers: Record<string, string> }[] = [
  { label: 'page', headers: { accept: 'text/html' } },
  { label: 'enhanced', headers: { accept: 'text/html', 'x-enhance': '1' } },
  { label: 'JSON', headers: { accept: 'application/json' } },
];

describe.each(SCREENS)('$path under hostile input', ({ path, fields, method }) => {
  it.each(VARIANTS)('$label: a translated 4xx in every mode, never a 5xx', async (variant) => {
    const browser = new Browser(stack.appUrl);
    const page = await browser.follow(`${path}?lng=vi`);
    expect(page.status).toBe(200);
    const csrf = csrfFrom(page.text);
    for (const mode of MODES) {
      const response = await fetch(new URL(page.url, stack.appUrl), {
        method: 'POST',
        headers: { ...mode.headers, 'content-type': variant.contentType, 'accept-language': 'vi', cookie: browser.cookieHeader() },
        body: variant.body(csrf, fields, method),
        redirect: 'manual',
      });
      const text = await response.text();
      const where = `${mode.label}: ${response.status} ${text.slice(0, 200)}`;
      expect(response.status, where).toBeGreaterThanOrEqual(400);
      expect(response.status, where).toBeLessThan(500);
      if (mode.label === 'JSON') {
        const answer = JSON.parse(text) as { code?: unknown; message?: unknown };
        expect(typeof answer.code, where).toBe('string');
        // Vietnamese, not an English fallback: every Vietnamese message carries letters outside ASCII.
        expect(typeof answer.message === 'string' && /[^\p{ASCII}]/u.test(answer.message), where).toBe(true);
      } else if (mode.label === 'page') {
        expect(text, where).toContain('<html lang="vi"');
        // The message is on the page: under a field or as a form-level alert.
        expect(text, where).toMatch(/class="field__error|role="alert"/);
      }
    }
  });
});
