import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../server/config.ts';
import { MAX_RETURN_TO_LENGTH, readFromReturnTo, safeReturnTo } from '../../../server/security/return-to.ts';
import { NOT_STRINGS, hostileReturnTos } from './return-to-cases.ts';

const config = loadConfig({
  NODE_ENV: 'test',
  PUBLIC_URL: 'https://accounts.example.com',
  ALLOWED_RETURN_URLS: 'https://docs.example.com/app,http://localhost:5173',
});

const hostileWithVariants = hostileReturnTos();

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
