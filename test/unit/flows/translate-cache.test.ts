import { expect, test } from 'vitest';
import { cachedTranslate } from '../../../core/translate.ts';

test('param-less keys are looked up once per language; calls with params always go through', () => {
  const calls: string[] = [];
  const t = (lang: string) => (key: string, params?: Record<string, unknown>) => {
    calls.push(`${lang}:${key}`);
    return params ? `${lang}:${key}:${JSON.stringify(params)}` : `${lang}:${key}`;
  };
  const en = cachedTranslate('en-cache-test', t('en'));
  const vi = cachedTranslate('vi-cache-test', t('vi'));
  expect(en('a.b')).toBe('en:a.b');
  expect(en('a.b')).toBe('en:a.b');
  expect(vi('a.b')).toBe('vi:a.b');
  expect(en('a.c', { n: 1 })).toBe('en:a.c:{"n":1}');
  expect(en('a.c', { n: 2 })).toBe('en:a.c:{"n":2}');
  expect(calls).toEqual(['en:a.b', 'vi:a.b', 'en:a.c', 'en:a.c']);
});
