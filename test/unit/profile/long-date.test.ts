import { expect, test } from 'vitest';
import { longDate } from '../../../views/components/profile/long-date.ts';

test('writes the date as toLocaleDateString does, per language, and an invalid one as before', () => {
  const iso = '2026-01-02T12:00:00.000Z';
  for (const lang of ['en', 'vi', 'fr', 'en', 'fr']) {
    expect(longDate(lang, iso)).toBe(new Date(iso).toLocaleDateString(lang, { dateStyle: 'long' }));
  }
  expect(longDate('en', 'not a date')).toBe('Invalid Date');
});
