import express from 'express';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { boundedReturnTo, MAX_RETURN_TO_LENGTH } from '../../../server/security/return-to.ts';
import { authRateLimit, configureRateLimits, EMAIL_FIELD, resetRateLimitSettings, scopeEmail } from '../../../server/security/rate-limit.ts';

afterEach(() => resetRateLimitSettings());

describe('boundedReturnTo (issue 10 #12)', () => {
  it('keeps what fits, drops the query of what does not, and drops what is too long anyway', () => {
    expect(boundedReturnTo('https://app.example/p?q=1')).toBe('https://app.example/p?q=1');
    expect(boundedReturnTo(`https://app.example/p?q=${'x'.repeat(MAX_RETURN_TO_LENGTH)}#f`)).toBe('https://app.example/p');
    expect(boundedReturnTo(`https://app.example/${'x'.repeat(MAX_RETURN_TO_LENGTH)}`)).toBeUndefined();
  });
});

describe('per-email keys follow the field each scope acts on (issue 10 #4)', () => {
  it.each([
    ['recovery', { identifier: 'decoy@x.com', email: 'Victim@X.com' }, 'victim@x.com'],
    ['resend', { identifier: 'decoy@x.com', email: 'victim@x.com' }, 'victim@x.com'],
    ['verification', { identifier: 'decoy@x.com', email: 'victim@x.com' }, 'victim@x.com'],
    ['sign-in', { identifier: 'owner@x.com', email: 'decoy@x.com' }, 'owner@x.com'],
    ['sign-up', { identifier: 'decoy@x.com', 'traits.email': 'new@x.com' }, 'new@x.com'],
    ['sign-up', { identifier: 'decoy@x.com', traits: { email: 'new@x.com' } }, 'new@x.com'],
    ['recovery', { identifier: 'decoy@x.com' }, undefined],
  ] as const)('%s reads %j', (scope, body, expected) => {
    expect(scopeEmail(body, scope)).toBe(expected);
  });

  it('names one field per scope', () => {
    expect(EMAIL_FIELD).toEqual({ 'sign-in': 'identifier', 'sign-up': 'traits.email', recovery: 'email', verification: 'email', resend: 'email' });
  });

  it('a changing decoy identifier does not reset the recovery count of the mailed address', async () => {
    configureRateLimits({ recovery: { perIp: 100, perEmail: 2 } });
    const app = express();
    app.use(express.json());
    app.use((req, _res, next) => {
      req.t = ((key: string) => key) as never;
      next();
    });
    app.post('/form', ...authRateLimit('recovery'), (_req, res) => void res.status(303).location('/').end());
    const post = (i: number) =>
      request(app)
        .post('/form')
        .set('Accept', 'application/json')
        .send({ identifier: `decoy${i}@x.com`, email: 'victim@x.com' });
    expect((await post(1)).status).toBe(303);
    expect((await post(2)).status).toBe(303);
    expect((await post(3)).status).toBe(429);
  });
});
