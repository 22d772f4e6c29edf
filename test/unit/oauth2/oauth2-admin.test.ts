// The one mapper of Hydra's admin answers (server/oauth2.ts), the consent facts and the per-page CSP
// additions (decision 130): what the pages rely on without a Hydra running.
import { describe, expect, it } from 'vitest';
import type { Response } from 'express';
import { AppError } from '../../../core/errors.ts';
import { isChallenge, oauth2Failure, redirectOrigins } from '../../../server/oauth2.ts';
import { logoOrigin, scopeLabels } from '../../../server/routes/oauth2-consent-facts.ts';
import { allowOnThisPage } from '../../../server/security/headers.ts';

const answered = (status: number, data: unknown) => Object.assign(new Error('axios'), { response: { status, data } });

describe('oauth2Failure', () => {
  it('maps each Hydra answer to our code, status and locale section, never Hydra’s text', () => {
    const cases: [number, unknown, number, string, string][] = [
      [410, { redirect_to: 'http://hydra/oauth2/auth?x=1' }, 410, 'oauth2_request_handled', 'oauth2.error.handled'],
      [404, { error: 'Not Found', error_description: 'Unable to locate the requested resource' }, 404, 'oauth2_request_unknown', 'oauth2.error.unknown'],
      [401, '{"error":"request_unauthorized"}', 410, 'oauth2_request_expired', 'oauth2.error.expired'],
      [400, { error: 'invalid_request' }, 400, 'oauth2_bad_request', 'oauth2.error.badRequest'],
      [409, {}, 400, 'oauth2_bad_request', 'oauth2.error.badRequest'],
      [500, { error: 'server_error' }, 503, 'oauth2_unavailable', 'oauth2.error.unavailable'],
    ];
    for (const [status, data, ours, code, section] of cases) {
      const failure = oauth2Failure(answered(status, data));
      expect([failure.status, failure.code, failure.messageKey], `${status}`).toEqual([ours, code, section]);
      expect(failure.message).not.toMatch(/Unable to locate|request_unauthorized/);
    }
    expect(oauth2Failure(answered(410, { redirect_to: 'http://hydra/x' })).meta.redirect_to).toBe('http://hydra/x');
  });

  it('no answer at all is the provider unavailable; our own AppErrors pass through', () => {
    expect(oauth2Failure(new Error('ECONNREFUSED')).code).toBe('oauth2_unavailable');
    const own = new AppError(503, 'identity_unavailable', 'x');
    expect(oauth2Failure(own)).toBe(own);
  });
});

describe('challenges, origins, scopes, logos', () => {
  it('a challenge is an opaque URL-safe string of bounded length', () => {
    expect(isChallenge('c3f2e1d0-aaaa-bbbb-cccc-0123456789ab')).toBe(true);
    expect(isChallenge('a'.repeat(4096))).toBe(true);
    for (const bad of ['', 'a b', '<script>', '"x"', 'a'.repeat(4097), undefined, ['a']]) expect(isChallenge(bad)).toBe(false);
  });

  it('redirect origins: http(s) only, each once', () => {
    expect(redirectOrigins(['https://a.example/cb', 'https://a.example/other', 'http://127.0.0.1:9/x', 'javascript:alert(1)', 'nonsense'])).toEqual([
      'https://a.example',
      'http://127.0.0.1:9',
    ]);
  });

  it('scopes in words; offline as offline_access; any other named', () => {
    const t = (key: string, params?: Record<string, unknown>) => (params ? `${key}(${String(params.scope)})` : key);
    expect(scopeLabels(t, ['openid', 'offline', 'photos.read']).map((scope) => scope.label)).toEqual([
      'oauth2.scope.openid',
      'oauth2.scope.offline_access',
      'oauth2.scope.other(photos.read)',
    ]);
  });

  it('a logo: https anywhere, http only outside production, nothing else', () => {
    expect(logoOrigin('https://cdn.example/logo.png', { isProduction: true })).toBe('https://cdn.example');
    expect(logoOrigin('http://cdn.example/logo.png', { isProduction: true })).toBeUndefined();
    expect(logoOrigin('http://cdn.example/logo.png', { isProduction: false })).toBe('http://cdn.example');
    expect(logoOrigin('data:image/png;base64,xx', { isProduction: false })).toBeUndefined();
    expect(logoOrigin('/relative.png', { isProduction: false })).toBeUndefined();
  });
});

describe('allowOnThisPage', () => {
  const response = (policy: string) => {
    const headers = new Map<string, string>([['Content-Security-Policy', policy]]);
    return {
      res: { getHeader: (name: string) => headers.get(name), setHeader: (name: string, value: string) => headers.set(name, value) } as unknown as Response,
      policy: () => headers.get('Content-Security-Policy'),
    };
  };

  it('adds origins to form-action and img-src of this response only', () => {
    const { res, policy } = response("default-src 'self';img-src 'self' data:;form-action 'self' http://kratos");
    allowOnThisPage(res, { formAction: ['https://client.example'], imgSrc: ['https://cdn.example'] });
    expect(policy()).toBe("default-src 'self';img-src 'self' data: https://cdn.example;form-action 'self' http://kratos https://client.example");
  });

  it('refuses anything that is not a bare origin (no new directive can be smuggled in)', () => {
    const { res, policy } = response("form-action 'self'");
    allowOnThisPage(res, { formAction: ['https://a.example; script-src *', "'unsafe-inline'", 'https://a.example/path'] });
    expect(policy()).toBe("form-action 'self'");
  });
});
