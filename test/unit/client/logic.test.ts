import { describe, expect, it } from 'vitest';
import { asSentences } from '../../../client/lib/dom.ts';
import { buildRequest, decideOutcome } from '../../../client/lib/enhance.ts';
import { nextProgress, PROGRESS_CEILING } from '../../../client/lib/progress.ts';
import { parseTheme, resolveTheme } from '../../../client/lib/theme.ts';
import { isVisible, overLimit, requireMessage, TOAST_DURATION_MS, TOAST_LIMIT } from '../../../client/lib/toast-queue.ts';
import { toast } from '../../../client/islands/toasts.ts';

describe('toast helper', () => {
  it('throws without a message, before touching the page', () => {
    expect(() => toast()).toThrow(TypeError);
    expect(() => toast('')).toThrow(TypeError);
    expect(() => toast('   ')).toThrow(TypeError);
    expect(() => requireMessage(undefined)).toThrow(TypeError);
    expect(requireMessage('Saved')).toBe('Saved');
  });

  it('keeps at most three visible toasts, dismissing the oldest first', () => {
    expect([TOAST_LIMIT, TOAST_DURATION_MS]).toEqual([3, 5000]);
    const items = [
      { id: 1, phase: 'entered' },
      { id: 2, phase: 'closing' },
      { id: 3, phase: 'entered' },
      { id: 4, phase: 'shown' },
      { id: 5, phase: 'queued' },
    ];
    expect(overLimit(items, (item) => item.phase).map((item) => item.id)).toEqual([1]);
    items.push({ id: 6, phase: 'queued' });
    expect(overLimit(items, (item) => item.phase).map((item) => item.id)).toEqual([1, 3]);
    expect(overLimit(items.slice(0, 3), (item) => item.phase)).toEqual([]);
  });

  it('counts queued, shown and entered toasts as visible', () => {
    expect(['queued', 'shown', 'entered', 'closing', 'removed'].map(isVisible)).toEqual([true, true, true, false, false]);
  });
});

describe('progress curve', () => {
  it('moves fast, slows at 60, 80 and 90 %, and never reaches 100 % on its own', () => {
    const steps: number[] = [];
    let percent = 0;
    for (let i = 0; i < 200; i += 1) {
      const next = nextProgress(percent);
      steps.push(next - percent);
      percent = next;
    }
    const stepAt = (value: number) => nextProgress(value) - value;
    expect(stepAt(10)).toBeGreaterThan(stepAt(65));
    expect(stepAt(65)).toBeGreaterThan(stepAt(85));
    expect(stepAt(85)).toBeGreaterThan(stepAt(95));
    expect(percent).toBe(PROGRESS_CEILING);
    expect(percent).toBeLessThan(100);
    expect(steps.every((step) => step >= 0)).toBe(true);
    // Fast start: past 60 % within the first second (5 ticks of 200 ms).
    let early = 0;
    for (let i = 0; i < 5; i += 1) early = nextProgress(early);
    expect(early).toBeGreaterThanOrEqual(60);
  });
});

describe('theme', () => {
  it('reads the stored choice safely, light by default', () => {
    expect(parseTheme('dark')).toBe('dark');
    expect(parseTheme('auto')).toBe('auto');
    expect(parseTheme('light')).toBe('light');
    expect(parseTheme(null)).toBe('light');
    expect(parseTheme('purple')).toBe('light');
  });

  it('follows the system only for auto', () => {
    expect(resolveTheme('auto', true)).toBe('dark');
    expect(resolveTheme('auto', false)).toBe('light');
    expect(resolveTheme('light', true)).toBe('light');
    expect(resolveTheme('dark', false)).toBe('dark');
  });
});

describe('form enhancement decisions', () => {
  const base = { status: 200, redirectTo: null, redirected: false, url: 'http://app/x', hasFragment: false };

  it('navigates on 200 + X-Redirect-To, or where a followed redirect led', () => {
    expect(decideOutcome({ ...base, redirectTo: '/profile-settings' })).toEqual({ kind: 'navigate', url: '/profile-settings' });
    expect(decideOutcome({ ...base, redirected: true, url: 'http://app/done' })).toEqual({ kind: 'navigate', url: 'http://app/done' });
  });

  it('swaps the fragment on a 4xx that carries the form', () => {
    expect(decideOutcome({ ...base, status: 400, hasFragment: true })).toEqual({ kind: 'swap' });
    expect(decideOutcome({ ...base, status: 422, hasFragment: true })).toEqual({ kind: 'swap' });
  });

  it('fails (toast, form untouched) on 5xx or a 4xx without the form', () => {
    expect(decideOutcome({ ...base, status: 500, hasFragment: true })).toEqual({ kind: 'failed', reason: 'server' });
    expect(decideOutcome({ ...base, status: 503 })).toEqual({ kind: 'failed', reason: 'server' });
    expect(decideOutcome({ ...base, status: 403 })).toEqual({ kind: 'failed', reason: 'client' });
    // A 200 without a redirect is not a contract answer either.
    expect(decideOutcome(base)).toEqual({ kind: 'failed', reason: 'server' });
  });

  it('posts form-encoded by default, multipart when the form says so, GET in the query', () => {
    const data = new FormData();
    data.append('email', 'a@b.c');
    data.append('_csrf', 't0k');
    const post = buildRequest({ method: 'post', action: 'http://app/sign-in?flow=1', enctype: 'application/x-www-form-urlencoded' }, data);
    expect(post.method).toBe('POST');
    expect(post.url).toBe('http://app/sign-in?flow=1');
    expect(post.body).toBeInstanceOf(URLSearchParams);
    expect(String(post.body)).toBe('email=a%40b.c&_csrf=t0k');
    const multipart = buildRequest({ method: 'POST', action: 'http://app/avatar', enctype: 'multipart/form-data' }, data);
    expect(multipart.body).toBe(data);
    const get = buildRequest({ method: 'get', action: 'http://app/search?old=1', enctype: '' }, data);
    expect(get).toEqual({ method: 'GET', url: 'http://app/search?email=a%40b.c&_csrf=t0k' });
  });
});

describe('announcing several messages', () => {
  it('reads them as sentences: a full stop only where a message has no closing mark', () => {
    expect(asSentences(['Enter a valid email address.', 'The password must be at least 8 characters'])).toBe(
      'Enter a valid email address. The password must be at least 8 characters.',
    );
    expect(asSentences(['Địa chỉ email không hợp lệ.', 'Sai mật khẩu!', 'Réessayer ?'])).toBe('Địa chỉ email không hợp lệ. Sai mật khẩu! Réessayer ?');
    expect(asSentences(['One'])).toBe('One.');
  });
});
