import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../server/config.ts';
import { MAX_RETURN_TO_LENGTH, readFromReturnTo, safeReturnTo } from '../../../server/security/return-to.ts';

const config = loadConfig({
  NODE_ENV: 'test',
  PUBLIC_URL: 'https://accounts.example.com',
  ALLOWED_RETURN_URLS: 'https://docs.example.com/app,http://localhost:5173',
});

// ---- hostile inputs: generated so the table is large and systematic --------------------------------

const EVIL_HOSTS = ['evil.com', 'evil.example.com', 'accounts.example.com.evil.com', '127.0.0.1:6666', 'xn--ccounts-8ya.example.com'];

/** Shapes that point somewhere we do not own; `E` is replaced by an evil host. */
const HOSTILE_SHAPES = [
  '//E',
  '//E/path',
  '///E',
  '////E',
  '/\\E',
  '\\\\E',
  '\\/E',
  '/\\/E',
  'https://E',
  'https://E/',
  'http://E/sign-in',
  'https:E',
  'https:/E',
  'https:\\\\E',
  'https://accounts.example.com@E',
  'https://accounts.example.com:443@E',
  'https://accounts.example.com%40E',
  'https://user:pass@E',
  'https://E#https://accounts.example.com',
  'https://E?https://accounts.example.com/',
  'https://E\\@accounts.example.com',
  'https://E%2F@accounts.example.com',
  ' //E',
  '\t//E',
  '/\t/E',
  '/\n/E',
  '/\r\n/E',
  '/%09/E',
  '/%0a/E',
  '/%2F/E',
  '/%2f%2fE',
  '/%5CE',
  '/%5c%5cE',
  '%2F%2FE',
  '%2f%2fE',
  '/%252F/E',
  '/%25252F/E',
  'E',
  'E/sign-in',
  '.E',
  'hTtPs://E',
  'HTTPS://E/',
  '/\u3000/E',
  '/\u00a0/E',
  '/\u200b/E',
];

const DANGEROUS_SCHEMES = [
  'javascript:alert(1)',
  'JavaScript:alert(1)',
  'JAVASCRIPT:alert(document.cookie)',
  'javascript://accounts.example.com/%0aalert(1)',
  'javascript://%0aalert(1)',
  ' javascript:alert(1)',
  '\tjavascript:alert(1)',
  'java\tscript:alert(1)',
  'java\nscript:alert(1)',
  'java%09script:alert(1)',
  'javascript%3Aalert(1)',
  'javascript&colon;alert(1)',
  '\u0000javascript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'DATA:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
  'data:,hello',
  'vbscript:msgbox(1)',
  'file:///etc/passwd',
  'ftp://accounts.example.com/',
  'ws://accounts.example.com/',
  'blob:https://accounts.example.com/uuid',
  'about:blank',
  'mailto:someone@example.com',
  'intent://accounts.example.com#Intent;end',
  '%6A%61%76%61%73%63%72%69%70%74:alert(1)',
];

/** Addresses on hosts we own, but bent in ways the rule refuses (wrong scheme, port, path, userinfo). */
const NEAR_MISSES = [
  'http://accounts.example.com/', // wrong scheme
  'https://accounts.example.com:444/',
  'https://accounts.example.com:443/', // default port written out: refused as text
  'https://accounts.example.com./',
  'https://ACCOUNTS.example.com.evil.com/',
  'https://sub.accounts.example.com/',
  'https://example.com/',
  'https://docs.example.com/', // outside the /app prefix
  'https://docs.example.com/application',
  'https://docs.example.com/ap',
  'https://docs.example.com/app/../admin',
  'https://docs.example.com/app/%2e%2e/admin',
  'https://docs.example.com/app/..%2Fadmin/%2e%2e/%2e%2e/x',
  'http://docs.example.com/app',
  'https://localhost:5173/',
  'http://localhost:5174/',
  'http://localhost/',
  'http://127.0.0.1:5173/',
  'https://user@accounts.example.com/',
  'https://:@accounts.example.com/',
  'https://accounts.example.com\\@evil.com/',
  'https://accounts.example.com%2eevil.com/',
  'https://accounts%2Eexample.com/',
  'https://%61ccounts.example.com/',
  'https://accounts.example.com\u3002evil.com/',
  'https://accounts.example.com%E3%80%82evil.com/',
  'https://ａccounts.example.com/',
  'https://accounts.example.com／evil.com',
  'https://[::1]/',
  'https://0x7f000001/',
  'https://accounts.example.com:/x',
  'https://accounts.example.com:0443/',
  '/%',
  '/%zz',
  '/%E0%A4%A',
  '',
  '?return_to=https://evil.com',
  '#https://evil.com',
  './sign-in',
  '../sign-in',
  'sign-in',
  '/sign-in\u0000',
  '/\u202e/moc.live',
  '/\ufeff',
  '/x'.repeat(MAX_RETURN_TO_LENGTH),
  `/${'a'.repeat(MAX_RETURN_TO_LENGTH)}`,
];

const NOT_STRINGS: unknown[] = [undefined, null, 0, 42, true, {}, [], ['/profile-settings'], ['/a', '/b'], { href: '/x' }];

const hostileStrings = [
  ...EVIL_HOSTS.flatMap((host) => HOSTILE_SHAPES.map((shape) => shape.replaceAll('E', host))),
  ...DANGEROUS_SCHEMES,
  ...NEAR_MISSES,
];
// Encoded and case-flipped variants of every hostile string: none of them may turn into a pass.
const variants = (value: string) => [encodeURIComponent(value), encodeURIComponent(encodeURIComponent(value)), value.toUpperCase()];
const hostileWithVariants = [...new Set([...hostileStrings, ...hostileStrings.flatMap(variants)])];

// ---- good inputs ----------------------------------------------------------------------------------

const GOOD: [input: string, expected: string][] = [
  ['/', 'https://accounts.example.com/'],
  ['/profile-settings', 'https://accounts.example.com/profile-settings'],
  ['/profile-settings?tab=password', 'https://accounts.example.com/profile-settings?tab=password'],
  ['/sign-in?return_to=%2Fprofile-settings', 'https://accounts.example.com/sign-in?return_to=%2Fprofile-settings'],
  ['/authentication/gateway?from=desktop&action=open', 'https://accounts.example.com/authentication/gateway?from=desktop&action=open'],
  ['/search?q=a%20b', 'https://accounts.example.com/search?q=a%20b'],
  ['/x?email=ada%40example.com', 'https://accounts.example.com/x?email=ada%40example.com'],
  ['/#section', 'https://accounts.example.com/#section'],
  ['/tài-liệu', 'https://accounts.example.com/t%C3%A0i-li%E1%BB%87u'],
  ['/a/b/../c', 'https://accounts.example.com/a/c'],
  ['https://accounts.example.com', 'https://accounts.example.com/'],
  ['https://accounts.example.com/', 'https://accounts.example.com/'],
  ['https://accounts.example.com/profile-settings', 'https://accounts.example.com/profile-settings'],
  ['https://accounts.example.com?x=1', 'https://accounts.example.com/?x=1'],
  ['https://accounts.example.com#top', 'https://accounts.example.com/#top'],
  ['HTTPS://ACCOUNTS.EXAMPLE.COM/Profile', 'https://accounts.example.com/Profile'],
  ['https://Accounts.Example.Com/x', 'https://accounts.example.com/x'],
  ['https://docs.example.com/app', 'https://docs.example.com/app'],
  ['https://docs.example.com/app/', 'https://docs.example.com/app/'],
  ['https://docs.example.com/app/document/42', 'https://docs.example.com/app/document/42'],
  ['https://docs.example.com/app?open=1', 'https://docs.example.com/app?open=1'],
  ['https://docs.example.com/app/x?next=https://evil.com', 'https://docs.example.com/app/x?next=https://evil.com'],
  ['http://localhost:5173', 'http://localhost:5173/'],
  ['http://localhost:5173/anything/at/all', 'http://localhost:5173/anything/at/all'],
  ['http://LOCALHOST:5173/x', 'http://localhost:5173/x'],
];

describe('safeReturnTo', () => {
  it('has a table of at least 200 hostile inputs', () => {
    expect(hostileWithVariants.length + NOT_STRINGS.length).toBeGreaterThanOrEqual(200);
  });

  it.each(hostileWithVariants.map((value) => [JSON.stringify(value).slice(0, 120), value]))('refuses %s', (_label, value) => {
    expect(safeReturnTo(value, config)).toBeUndefined();
  });

  it.each(NOT_STRINGS.map((value) => [JSON.stringify(value), value]))('refuses the non-string %s', (_label, value) => {
    expect(safeReturnTo(value, config)).toBeUndefined();
  });

  it.each(GOOD)('allows %s', (input, expected) => {
    expect(safeReturnTo(input, config)).toBe(expected);
  });

  it('never returns an address outside the allow-list, whatever the input', () => {
    const allowed = config.allowedReturnUrls;
    for (const value of [...hostileWithVariants, ...GOOD.map(([input]) => input)]) {
      const result = safeReturnTo(value, config);
      if (result === undefined) continue;
      const url = new URL(result);
      expect(allowed.some((entry) => entry.origin === url.origin && url.pathname.startsWith(entry.pathname))).toBe(true);
    }
  });

  it('resolves relative paths against PUBLIC_URL, never against an allowed extra origin', () => {
    const other = loadConfig({ NODE_ENV: 'test', PUBLIC_URL: 'http://127.0.0.1:3000', ALLOWED_RETURN_URLS: 'https://docs.example.com' });
    expect(safeReturnTo('/x', other)).toBe('http://127.0.0.1:3000/x');
    expect(safeReturnTo('https://docs.example.com/y', other)).toBe('https://docs.example.com/y');
  });

  it('accepts the longest allowed value and refuses one character more', () => {
    const longest = `/${'a'.repeat(MAX_RETURN_TO_LENGTH - 1)}`;
    expect(safeReturnTo(longest, config)).toBe(`https://accounts.example.com${longest}`);
    expect(safeReturnTo(`${longest}a`, config)).toBeUndefined();
  });

  it('only allows the public URL when ALLOWED_RETURN_URLS is empty', () => {
    const bare = loadConfig({ NODE_ENV: 'test', PUBLIC_URL: 'https://accounts.example.com' });
    expect(safeReturnTo('https://docs.example.com/app', bare)).toBeUndefined();
    expect(safeReturnTo('/ok', bare)).toBe('https://accounts.example.com/ok');
  });
});

describe('readFromReturnTo', () => {
  it('reads from and action from the return address', () => {
    expect(readFromReturnTo('https://accounts.example.com/gateway?from=desktop&action=open-file')).toEqual({
      from: 'desktop',
      action: 'open-file',
    });
  });

  it('ignores missing, empty, oversized or odd values', () => {
    expect(readFromReturnTo(undefined)).toEqual({});
    expect(readFromReturnTo('not a url')).toEqual({});
    expect(readFromReturnTo('https://accounts.example.com/?from=')).toEqual({});
    expect(readFromReturnTo(`https://accounts.example.com/?from=${'a'.repeat(65)}`)).toEqual({});
    expect(readFromReturnTo('https://accounts.example.com/?from=%3Cscript%3E&action=a%20b')).toEqual({});
  });

  it('reads only one of the two when only one is present', () => {
    expect(readFromReturnTo('https://accounts.example.com/?action=share')).toEqual({ action: 'share' });
  });
});
