import express, { type Request } from 'express';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_RATE_LIMITS,
  RATE_LIMIT_SCOPES,
  authRateLimit,
  countAgainstEmail,
  configureRateLimits,
  currentRateLimits,
  emailFromBody,
  emailKey,
  ipKey,
  normaliseEmail,
  resetRateLimitSettings,
} from '../../../server/security/rate-limit.ts';

afterEach(() => resetRateLimitSettings());

describe('normaliseEmail', () => {
  it.each([
    ['Ada@Example.COM', 'ada@example.com'],
    ['  ada@example.com\t', 'ada@example.com'],
    ['ＡＤＡ@example.com', 'ada@example.com'], // full-width letters fold under NFKC
    ['a.d.a@gmail.com', 'a.d.a@gmail.com'], // dots are kept: different mailboxes elsewhere
    ['ada+news@gmail.com', 'ada+news@gmail.com'], // plus tags are kept too
  ])('%s → %s', (input, expected) => {
    expect(normaliseEmail(input)).toBe(expected);
  });

  it('bounds the length of what is hashed', () => {
    expect(normaliseEmail(`${'a'.repeat(1000)}@x.com`)).toHaveLength(320);
  });
});

describe('emailFromBody', () => {
  it.each<[string, unknown, string | undefined]>([
    ['sign-in identifier', { identifier: ' Ada@Example.com ' }, 'ada@example.com'],
    ['recovery email', { email: 'ADA@example.com' }, 'ada@example.com'],
    ['urlencoded traits.email', { 'traits.email': 'Ada@example.com' }, 'ada@example.com'],
    ['JSON traits.email', { traits: { email: 'Ada@example.com' } }, 'ada@example.com'],
    ['identifier wins over email', { identifier: 'a@x.com', email: 'b@x.com' }, 'a@x.com'],
    ['blank identifier falls through', { identifier: '   ', email: 'b@x.com' }, 'b@x.com'],
    ['no email at all', { password: 'x' }, undefined],
    ['non-string values', { identifier: ['a@x.com'], email: 42, traits: 'x' }, undefined],
    ['no body', undefined, undefined],
    ['string body', 'identifier=a@x.com', undefined],
  ])('%s', (_label, body, expected) => {
    expect(emailFromBody(body)).toBe(expected);
  });
});

describe('keys', () => {
  it('hashes the email so the store never holds the address', () => {
    const key = emailKey({ body: { email: 'Ada@Example.com' } } as Request);
    expect(key).toBeDefined();
    expect(key).not.toContain('ada');
    expect(key).toBe(emailKey({ body: { identifier: 'ada@example.com ' } } as Request));
    expect(key).not.toBe(emailKey({ body: { identifier: 'ad.a@example.com' } } as Request));
  });

  it('groups IPv6 clients by /56 and keeps IPv4 addresses apart', () => {
    expect(ipKey({ ip: '2001:db8:1:100::1' } as Request)).toBe(ipKey({ ip: '2001:db8:1:1ff::2' } as Request));
    expect(ipKey({ ip: '2001:db8:1:100::1' } as Request)).not.toBe(ipKey({ ip: '2001:db8:1:200::1' } as Request));
    expect(ipKey({ ip: '203.0.113.1' } as Request)).not.toBe(ipKey({ ip: '203.0.113.2' } as Request));
  });
});

describe('configureRateLimits', () => {
  it('has a setting for every scope with sensible bounds', () => {
    expect(RATE_LIMIT_SCOPES.sort()).toEqual(['recovery', 'resend', 'sign-in', 'sign-up', 'verification']);
    for (const scope of RATE_LIMIT_SCOPES) {
      const setting = DEFAULT_RATE_LIMITS[scope];
      expect(setting.perEmail).toBeGreaterThan(1);
      expect(setting.perEmail).toBeLessThanOrEqual(setting.perIp);
      expect(setting.windowMs).toBeGreaterThanOrEqual(60_000);
    }
  });

  it('merges overrides and resets to the defaults', () => {
    configureRateLimits({ recovery: { perIp: 2 } });
    expect(currentRateLimits('recovery')).toMatchObject({ perIp: 2, perEmail: DEFAULT_RATE_LIMITS.recovery.perEmail });
    resetRateLimitSettings();
    expect(currentRateLimits('recovery')).toEqual(DEFAULT_RATE_LIMITS.recovery);
  });
});

/** A tiny app: the limiters in front of a handler that fails when the password is "wrong". */
function appWith(scope: Parameters<typeof authRateLimit>[0]) {
  const app = express();
  app.set('trust proxy', 'loopback');
  app.use(express.urlencoded({ extended: false }));
  app.use(express.json());
  app.use((req, _res, next) => {
    req.t = ((key: string, options?: { minutes?: number }) => `${key}:${options?.minutes ?? ''}`) as never;
    next();
  });
  app.get('/form', ...authRateLimit(scope), (_req, res) => void res.send('form'));
  app.post('/form', ...authRateLimit(scope), (req, res) => {
    if (req.body.password === 'wrong') return void res.status(400).json({ ok: false });
    if (req.query.complete) countAgainstEmail(res); // as sign-up marks a completed sign-up
    res.status(303).location('/').end();
  });
  return app;
}

const json = { Accept: 'application/json' };

describe('authRateLimit', () => {
  it('limits one IP, answers 429 with Retry-After and the error shape, and lets another IP through', async () => {
    configureRateLimits({ recovery: { perIp: 3, perEmail: 100 } });
    const app = appWith('recovery');
    for (let i = 0; i < 3; i += 1) {
      await request(app)
        .post('/form')
        .set(json)
        .set('X-Forwarded-For', '198.51.100.1')
        .send({ email: `u${i}@x.com` })
        .expect(303);
    }
    const limited = await request(app).post('/form').set(json).set('X-Forwarded-For', '198.51.100.1').send({ email: 'u9@x.com' });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.body).toMatchObject({ code: 'too_many_requests', message: expect.stringContaining('rateLimit.message:') });
    expect(limited.body.meta.retryAfterSeconds).toBe(Number(limited.headers['retry-after']));
    await request(app).post('/form').set(json).set('X-Forwarded-For', '198.51.100.2').send({ email: 'u9@x.com' }).expect(303);
  });

  it('limits one email hammered from many IPs, whatever its spelling case', async () => {
    configureRateLimits({ resend: { perIp: 100, perEmail: 2 } });
    const app = appWith('resend');
    await request(app).post('/form').set('X-Forwarded-For', '203.0.113.1').type('form').send({ email: 'victim@x.com' }).expect(303);
    await request(app).post('/form').set('X-Forwarded-For', '203.0.113.2').type('form').send({ email: 'VICTIM@x.com ' }).expect(303);
    await request(app).post('/form').set(json).set('X-Forwarded-For', '203.0.113.3').send({ email: 'Victim@X.com' }).expect(429);
    // Another address from the same IPs is unaffected.
    await request(app).post('/form').set('X-Forwarded-For', '203.0.113.3').type('form').send({ email: 'other@x.com' }).expect(303);
  });

  it('counts only failed sign-ins against an email, so a user who signs in fine is never locked out', async () => {
    configureRateLimits({ 'sign-in': { perIp: 100, perEmail: 2 } });
    const app = appWith('sign-in');
    for (let i = 0; i < 5; i += 1) {
      await request(app).post('/form').set(json).send({ identifier: 'ada@x.com', password: 'right' }).expect(303);
    }
    await request(app).post('/form').set(json).send({ identifier: 'ada@x.com', password: 'wrong' }).expect(400);
    await request(app).post('/form').set(json).send({ identifier: 'ada@x.com', password: 'wrong' }).expect(400);
    await request(app).post('/form').set(json).send({ identifier: 'ada@x.com', password: 'right' }).expect(429);
  });

  it('never counts GET requests and can be switched off', async () => {
    configureRateLimits({ verification: { perIp: 1, perEmail: 1 } });
    const app = appWith('verification');
    for (let i = 0; i < 4; i += 1) await request(app).get('/form').expect(200);
    await request(app).post('/form').set(json).send({}).expect(303);
    await request(app).post('/form').set(json).send({}).expect(429);
    configureRateLimits('off');
    await request(app).post('/form').set(json).send({}).expect(303);
  });

  it('reads a lowered limit at request time', async () => {
    // Recovery counts every post per address (sign-up counts only completed sign-ups: the next test).
    const app = appWith('recovery');
    await request(app).post('/form').set(json).send({ email: 'a@x.com' }).expect(303);
    configureRateLimits({ recovery: { perEmail: 1 } });
    await request(app).post('/form').set(json).send({ email: 'a@x.com' }).expect(429);
  });

  it('counts against a sign-up address only the posts its handler marked (a completed sign-up)', async () => {
    configureRateLimits({ 'sign-up': { perEmail: 1 } });
    const app = appWith('sign-up');
    // Unmarked posts (steps, typos, retries) never use the address's quota.
    for (let i = 0; i < 3; i += 1) await request(app).post('/form').set(json).send({ 'traits.email': 'b@x.com' }).expect(303);
    await request(app).post('/form?complete=1').set(json).send({ 'traits.email': 'b@x.com' }).expect(303);
    await request(app).post('/form').set(json).send({ 'traits.email': 'b@x.com' }).expect(429);
  });
});
