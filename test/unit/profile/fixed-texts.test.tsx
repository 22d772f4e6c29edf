// Profile texts with app-constant params are interpolated once per language and key: the second render
// asks i18next for nothing, a new value or another language is a new text (never a stale one).
import { expect, test, vi } from 'vitest';
import { useFixedT } from '../../../views/components/profile/fixed-texts.ts';
import { render, translate } from '../components/render.tsx';

function Days(props: { days: number }) {
  return <p>{useFixedT()('profile.delete.description', { days: props.days })}</p>;
}

test('interpolates once per language, key and params', () => {
  const t = vi.fn((key: string, options?: Record<string, unknown>) => translate(key, 'en', options));
  const first = render(<Days days={417} />, { t });
  const again = render(<Days days={417} />, { t });
  expect(first).toBe(again);
  expect(first).toContain(translate('profile.delete.description', 'en', { days: 417 }));
  expect(t).toHaveBeenCalledTimes(1);
  expect(render(<Days days={418} />, { t })).toContain(translate('profile.delete.description', 'en', { days: 418 }));
  expect(t).toHaveBeenCalledTimes(2);
  const french = render(<Days days={417} />, { lang: 'fr', t: (key, options) => translate(key, 'fr', options) });
  expect(french).toContain(translate('profile.delete.description', 'fr', { days: 417 }));
  expect(french).not.toBe(first);
});
