import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, REDACTED, redactDeep, redactLine } from '../../../server/logger.ts';

function capture() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: createLogger('trace', sink), lines, entries: () => lines.map((line) => JSON.parse(line)) };
}

const SECRETS = {
  cookie: 'ory_kratos_session=MTY5session-secret-cookie; csrf_token_abc=csrf-cookie-value',
  authorization: 'Bearer eyJhbGciOiJFUzI1NiJ9.jwt-body.signature',
  setCookie: '__Host-accounts.sid=s%3Aour-session-id.sig; Path=/; HttpOnly',
  password: 'correct horse battery staple',
  csrf: 'f00dfacef00dfacef00dfacef00dface',
  flowToken: 'ory_st_logout_token_value',
  recoveryCode: '492817',
  apiKey: 'ory_pat_admin_api_key_value',
};

describe('log redaction', () => {
  it('hides secrets by key at any depth, in objects and arrays', () => {
    const { logger, lines } = capture();
    logger.info(
      {
        headers: { cookie: SECRETS.cookie, authorization: SECRETS.authorization, 'set-cookie': [SECRETS.setCookie] },
        body: {
          password: SECRETS.password,
          _csrf: SECRETS.csrf,
          csrf_token: SECRETS.csrf,
          traits: { email: 'ann@example.com' },
          deep: { deeper: { deepest: { password: SECRETS.password, nested: [{ token: SECRETS.flowToken }] } } },
        },
        logout: { logout_token: SECRETS.flowToken, session_token: SECRETS.flowToken },
        recovery: { code: SECRETS.recoveryCode },
        admin: { KRATOS_ADMIN_API_KEY: SECRETS.apiKey, apiKey: SECRETS.apiKey },
        'x-csrf-token': SECRETS.csrf,
      },
      'a request with everything',
    );
    const text = lines.join('\n');
    for (const [name, secret] of Object.entries(SECRETS)) expect(text, name).not.toContain(secret);
    expect(text).toContain(REDACTED);
    // What is not secret stays readable.
    expect(text).toContain('ann@example.com');
    expect(text).toContain('a request with everything');
  });

  it('hides cookie and bearer values whatever their key', () => {
    const { logger, lines } = capture();
    logger.warn({ upstream: { raw: SECRETS.cookie, line: SECRETS.setCookie, header: SECRETS.authorization } }, 'odd keys');
    const text = lines.join('\n');
    expect(text).not.toContain('session-secret-cookie');
    expect(text).not.toContain('our-session-id');
    expect(text).not.toContain('jwt-body');
  });

  it('hides secrets carried by an HTTP client error (request config headers, response headers)', () => {
    const { logger, entries } = capture();
    const error = Object.assign(new Error('Request failed with status code 401'), {
      code: 'ERR_BAD_REQUEST',
      config: { url: 'http://kratos/sessions/whoami', headers: { Cookie: SECRETS.cookie, Authorization: SECRETS.authorization } },
      response: { status: 401, headers: { 'set-cookie': [SECRETS.setCookie] }, data: { error: { reason: 'no session' } } },
      request: { socket: 'huge object' },
    });
    logger.error({ err: error }, 'kratos call failed');
    const [entry] = entries();
    const text = JSON.stringify(entry);
    for (const secret of [SECRETS.cookie, SECRETS.authorization, SECRETS.setCookie]) expect(text).not.toContain(secret);
    expect(entry.err.message).toBe('Request failed with status code 401');
    expect(entry.err.code).toBe('ERR_BAD_REQUEST');
    expect(entry.err.stack).toContain('Error: Request failed');
    expect(entry.err.response.status).toBe(401);
    expect(text).not.toContain('huge object');
  });

  it('child logger bindings are redacted too', () => {
    const { logger, lines } = capture();
    logger.child({ flow: { csrf_token: SECRETS.csrf, id: 'flow-1' } }).info('in a flow');
    expect(lines.join('\n')).not.toContain(SECRETS.csrf);
    expect(lines.join('\n')).toContain('flow-1');
  });

  it('requests are logged as id, method and path: no headers, no query string', () => {
    const { logger, entries } = capture();
    const req = {
      id: 'r1',
      method: 'GET',
      url: '/verify-account?token=one-time-token-value&flow=abc',
      headers: { cookie: SECRETS.cookie },
    };
    logger.info({ req }, 'request');
    const [entry] = entries();
    expect(entry.req).toEqual({ id: 'r1', method: 'GET', path: '/verify-account' });
  });

  it('keeps error codes but hides one-time codes', () => {
    expect(redactDeep({ code: 'csrf_invalid' })).toEqual({ code: 'csrf_invalid' });
    expect(redactDeep({ code: 'ECONNREFUSED' })).toEqual({ code: 'ECONNREFUSED' });
    expect(redactDeep({ code: '123456' })).toEqual({ code: REDACTED });
    expect(redactDeep({ code: 'oauth2AuthorizationCodeValue1234' })).toEqual({ code: REDACTED });
  });

  it('survives cycles and very deep structures', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    expect(redactDeep(cyclic)).toEqual({ name: 'loop', self: '[circular]' });
    let deep: Record<string, unknown> = { password: 'bottom-secret' };
    for (let i = 0; i < 50; i += 1) deep = { next: deep };
    expect(JSON.stringify(redactDeep(deep))).not.toContain('bottom-secret');
  });

  describe('the quick pre-check on finished lines', () => {
    // Spaces pino never writes: a line that went through parse + stringify comes back without them,
    // so these tests tell the quick path (line unchanged) from the full one.
    const spaced = (key: string, value: string) => `{"level" : 30, ${JSON.stringify(key)} : ${JSON.stringify(value)}}\n`;

    it('writes a line with nothing secret-looking exactly as it came', () => {
      const line = '{"level" : 30, "req" : {"id":"r1","method":"GET","path":"/sign-in"}, "res":{"statusCode":200}, "msg":"request completed"}\n';
      expect(redactLine(line)).toBe(line);
    });

    it.each([
      'cookie',
      'Set-Cookie',
      'authorization',
      'Proxy-Authorization',
      'X-CSRF-Token',
      'x-session-token',
      '_csrf',
      'csrf_token',
      'PASSWORD',
      'new_password',
      'passwd',
      'secret',
      'client_secret',
      'apiKey',
      'KRATOS_ADMIN_API_KEY',
      'token',
      'logout_token',
      'tokenized',
      'recovery_link',
      'credential',
      'ory_kratos_session',
      'sessionSecret',
    ])('still redacts the key %s', (key) => {
      expect(JSON.parse(redactLine(spaced(key, 'the-secret-value')))[key]).toBe(REDACTED);
    });

    it.each(['ory_kratos_session=abc', 'csrf_token_x1=abc', '__Host-accounts.sid=abc', 'accounts.sid=abc', 'bearer abc.def', ' Bearer\tabc'])(
      'still redacts the value %j under a harmless key',
      (value) => {
        expect(JSON.parse(redactLine(spaced('note', value))).note).toBe(REDACTED);
      },
    );

    it('still redacts a one-time code', () => {
      expect(JSON.parse(redactLine(spaced('code', '492817'))).code).toBe(REDACTED);
    });
  });
});
