import { describe, expect, it } from 'vitest';
import { createI18n, i18nRequest } from '../../../server/i18n.ts';

type FakeRequest = {
  query: Record<string, unknown>;
  cookies: Record<string, string>;
  headers: Record<string, string>;
  language?: string;
  t?: (key: string, options?: unknown) => string;
};

const i18n = await createI18n(['en', 'vi', 'fr', 'pt', 'es'], 'en');
const middleware = i18nRequest(i18n);

function detect(request: Partial<FakeRequest>): FakeRequest & { contentLanguage?: string } {
  const req: FakeRequest = { query: {}, cookies: {}, headers: {}, ...request };
  const headers: Record<string, string> = {};
  const res = { setHeader: (name: string, value: string) => (headers[name] = value) };
  middleware(req as never, res as never, () => undefined);
  return Object.assign(req, { contentLanguage: headers['Content-Language'] });
}

describe('i18nRequest', () => {
  it('remembers detection per (query, cookie, Accept-Language), so each input still decides', () => {
    expect(detect({ headers: { 'accept-language': 'fr-FR,fr;q=0.9' } }).language).toBe('fr');
    expect(detect({ headers: { 'accept-language': 'vi' } }).language).toBe('vi');
    // Same header again, now with a cookie and then a query parameter that win over it.
    expect(detect({ headers: { 'accept-language': 'fr-FR,fr;q=0.9' }, cookies: { lng: 'pt' } }).language).toBe('pt');
    expect(detect({ headers: { 'accept-language': 'fr-FR,fr;q=0.9' }, cookies: { lng: 'pt' }, query: { lng: 'es' } }).language).toBe('es');
    expect(detect({ headers: { 'accept-language': 'fr-FR,fr;q=0.9' } }).language).toBe('fr');
    // A repeated ?lng= arrives as an array: still honoured, never confused with "no lng".
    expect(detect({ headers: { 'accept-language': 'fr-FR,fr;q=0.9' }, query: { lng: ['es', 'es'] } }).language).toBe('es');
    const unsupported = detect({ headers: { 'accept-language': 'de-DE' }, query: { lng: 'xx' } });
    expect(unsupported.language).toBe('en');
    expect(unsupported.contentLanguage).toBe('en');
  });

  it('translates plain keys from memory and still interpolates keys with options', () => {
    const req = detect({ query: { lng: 'vi' } });
    const first = req.t!('crash.title');
    expect(first).toBe(i18n.getFixedT('vi')('crash.title'));
    expect(req.t!('crash.title')).toBe(first);
    expect(req.t!('crash.requestId', { id: 'abc' })).toContain('abc');
    expect(req.t!('crash.requestId', { id: 'xyz' })).toContain('xyz');
  });
});
