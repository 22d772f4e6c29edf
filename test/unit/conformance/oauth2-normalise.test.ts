// The OAuth2 conformance suite's normaliser (test/conformance/oauth2/normalise.ts): what two correct
// providers may differ in (challenges, tokens, ids, times, ports, cookie hashes) is replaced, and what
// the suite is meant to catch (values, error texts, which earlier value a value repeats) survives.
import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../conformance/client.ts';
import { Masker, maskUrl, normaliseOAuth2Exchange, normaliseOAuth2Recording, valueOf } from '../../conformance/oauth2/normalise.ts';

const A = { public: 'http://127.0.0.1:4444', admin: 'http://127.0.0.1:4445', app: 'http://app.test:3000' };
const B = { public: 'http://127.0.0.1:5544', admin: 'http://127.0.0.1:5545', app: 'http://app.test:3000' };

const exchange = (over: Partial<Exchange>): Exchange => ({
  method: 'GET',
  url: `${A.public}/x`,
  variant: 'json',
  status: 200,
  setCookies: [],
  body: '',
  ...over,
});
const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const jwt = (header: object, claims: object) => `${b64(header)}.${b64(claims)}.c2ln`;

describe('maskUrl', () => {
  it('replaces challenges and verifiers, also inside URL-valued parameters, and leaves the rest as written', () => {
    const masker = new Masker();
    const inner = `${A.public}/oauth2/auth?login_verifier=v1&scope=openid`;
    const url = maskUrl(`${A.app}/sign-in?login_challenge=c1&return_to=${encodeURIComponent(inner)}`, masker);
    const params = new URL(url).searchParams;
    expect(params.get('login_challenge')).toBe('{login_challenge}');
    expect(params.get('return_to')).toBe(`${A.public}/oauth2/auth?login_verifier=%7Blogin_verifier%7D&scope=openid`);
    expect(maskUrl(`${A.public}/`, masker)).toBe(`${A.public}/`);
  });

  it('names a value seen before by where it first appeared', () => {
    const masker = new Masker();
    masker.step = 0;
    maskUrl(`${A.app}/sign-in?login_challenge=c1`, masker);
    masker.step = 3;
    expect(new URL(maskUrl(`${A.admin}/r?login_challenge=c1`, masker)).searchParams.get('login_challenge')).toBe('{login_challenge = #0 login_challenge}');
    expect(new URL(maskUrl(`${A.admin}/r?login_challenge=c2`, masker)).searchParams.get('login_challenge')).toBe('{login_challenge}');
  });
});

describe('valueOf', () => {
  it('keeps values (scope, errors, booleans, subjects) and replaces random ones, ids and times', () => {
    const body = {
      scope: 'openid offline_access',
      error: 'invalid_grant',
      error_description: 'The code was used.',
      skip: true,
      subject: 'user-1',
      access_token: 'ory_at_abc.def',
      client_id: '6a3f9a34-5a4e-4c9f-8d7e-1f2a3b4c5d6e',
      created_at: '2026-11-26T10:00:00.123Z',
      exp: 1795708400,
      expires_in: 3599,
      redirect_to: `${A.public}/oauth2/auth?consent_verifier=v&state=s`,
    };
    expect(valueOf(body, A, new Masker())).toEqual({
      access_token: 'ory_at_{access_token}',
      client_id: '{id}',
      created_at: '{time}',
      error: 'invalid_grant',
      error_description: 'The code was used.',
      exp: '{epoch}',
      expires_in: '{about 60 min}',
      redirect_to: '{public}/oauth2/auth?consent_verifier={consent_verifier}&state={token}',
      scope: 'openid offline_access',
      skip: true,
      subject: 'user-1',
    });
  });

  it('opens a JWT into its header and claims, under the same rules', () => {
    const token = jwt({ alg: 'RS256', kid: 'k1', typ: 'JWT' }, { iss: `${B.public}/`, sub: 'user-1', aud: ['c'], nonce: 'n-1', iat: 1, sid: 's' });
    expect(valueOf({ id_token: token }, B, new Masker())).toEqual({
      id_token: {
        jwt_header: { alg: 'RS256', kid: '{kid}', typ: 'JWT' },
        jwt_claims: { aud: ['c'], iat: '{epoch}', iss: '{public}/', nonce: 'n-1', sid: '{sid}', sub: 'user-1' },
      },
    });
  });

  it('still tells a different value, a missing claim and a relation that does not hold', () => {
    expect(valueOf({ scope: 'openid' }, A, new Masker())).not.toEqual(valueOf({ scope: 'openid offline_access' }, A, new Masker()));
    const withNonce = jwt({ alg: 'RS256' }, { nonce: 'n' });
    expect(valueOf(withNonce, A, new Masker())).not.toEqual(valueOf(jwt({ alg: 'RS256' }, {}), A, new Masker()));
    const same = normaliseOAuth2Recording([exchange({ body: { session_id: 's1' } }), exchange({ body: { sid: 's1' } })], A);
    const other = normaliseOAuth2Recording([exchange({ body: { session_id: 's1' } }), exchange({ body: { sid: 's2' } })], A);
    expect(same[1]!.body).toEqual({ sid: '{sid = #0 session_id}' });
    expect(other[1]!.body).toEqual({ sid: '{sid}' });
  });
});

describe('normaliseOAuth2Exchange', () => {
  it('gives the same result for two providers on other ports with other random values', () => {
    const make = (ph: typeof A, challenge: string, hash: string) =>
      normaliseOAuth2Exchange(
        exchange({
          url: `${ph.public}/oauth2/auth?client_id=c&state=abcdefgh`,
          variant: 'browser',
          status: 302,
          location: `${ph.app}/sign-in?login_challenge=${challenge}`,
          setCookies: [`ory_hydra_login_csrf_dev_${hash}=v; Path=/; Max-Age=1800; HttpOnly; SameSite=Lax`],
        }),
        ph,
      );
    const a = make(A, 'aaa', '123');
    expect(a).toEqual(make(B, 'bbb', '456'));
    expect(a.location).toBe('{app}/sign-in?login_challenge={login_challenge}');
    expect(Object.keys(a.cookies)).toEqual(['ory_hydra_login_csrf_dev_{n}']);
  });

  it('keeps a relative URL’s path and masks its query (Hydra’s logout request_url)', () => {
    const out = normaliseOAuth2Exchange(exchange({ body: { request_url: '/oauth2/sessions/logout?id_token_hint=x.y.z&state=abcdefgh' } }), A);
    expect(out.body).toEqual({ request_url: '/oauth2/sessions/logout?id_token_hint={id_token_hint}&state={token}' });
  });

  it('puts a list of consent sessions in one order (Hydra lists them in none), and no other list', () => {
    const sessions = (order: string[]) =>
      normaliseOAuth2Exchange(
        exchange({ url: `${A.admin}/admin/oauth2/auth/sessions/consent?subject=s`, body: order.map((scope) => ({ grant_scope: [scope] })) }),
        A,
      );
    expect(sessions(['openid', 'email']).body).toEqual(sessions(['email', 'openid']).body);
    const keys = (order: string[]) => normaliseOAuth2Exchange(exchange({ url: `${A.public}/.well-known/jwks.json`, body: order }), A);
    expect(keys(['a', 'b']).body).not.toEqual(keys(['b', 'a']).body);
  });

  it('compares recorded headers and plain-text bodies, not HTML', () => {
    const out = normaliseOAuth2Exchange(exchange({ status: 405, contentType: 'text/plain', body: 'Method Not Allowed\n', headers: { pragma: 'no-cache' } }), A);
    expect(out).toMatchObject({ status: 405, contentType: 'text/plain', body: 'Method Not Allowed', headers: { pragma: 'no-cache' } });
    expect(normaliseOAuth2Exchange(exchange({ contentType: 'text/html', body: '<p>hi</p>' }), A).body).toBe('text');
  });
});
