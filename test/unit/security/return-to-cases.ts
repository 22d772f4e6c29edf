/**
 * The table of hostile `return_to` values, shared by the unit test of safeReturnTo and the integration
 * test that pushes them through the real sign-in, sign-up and recovery routes. `ours` is the app's
 * own host as written in the values (userinfo and look-alike tricks embed it).
 */
import { MAX_RETURN_TO_LENGTH } from '../../../server/security/return-to.ts';

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

function hostileStrings(): string[] {
  return [...EVIL_HOSTS.flatMap((host) => HOSTILE_SHAPES.map((shape) => shape.replaceAll('E', host))), ...DANGEROUS_SCHEMES, ...NEAR_MISSES];
}

// Encoded and case-flipped variants of every hostile string: none of them may turn into a pass.
const variants = (value: string) => [encodeURIComponent(value), encodeURIComponent(encodeURIComponent(value)), value.toUpperCase()];

/** Every hostile value with its encoded and case-flipped variants; `ours` replaces accounts.example.com. */
export function hostileReturnTos(ours = 'accounts.example.com'): string[] {
  const base = hostileStrings().map((value) => value.replaceAll('accounts.example.com', ours).replaceAll('ACCOUNTS.example.com', ours.toUpperCase()));
  return [...new Set([...base, ...base.flatMap(variants)])];
}

export const NOT_STRINGS: unknown[] = [undefined, null, 0, 42, true, {}, [], ['/profile-settings'], ['/a', '/b'], { href: '/x' }];
