// The conformance suite's normaliser (test/conformance/normalise.ts): what two correct services may
// differ in is replaced, and every difference the suite is meant to catch survives normalisation.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../conformance/client.ts';
import {
  jwtShape,
  normaliseExchange,
  normaliseSetCookie,
  normaliseUrl,
  shapeOf,
  sortHiddenTraitRuns,
  type NormalisedNode,
} from '../../conformance/normalise.ts';

const A = { public: 'http://127.0.0.1:4433', admin: 'http://127.0.0.1:4434', app: 'http://app.test:3000' };
const B = { public: 'http://127.0.0.1:5533', admin: 'http://127.0.0.1:5534', app: 'http://app.test:3000' };
const ID_A = '6a3f9a34-5a4e-4c9f-8d7e-1f2a3b4c5d6e';
const ID_B = '0b1c2d3e-4f50-4a6b-9c8d-7e6f5a4b3c2d';

const exchange = (over: Partial<Exchange>): Exchange => ({
  method: 'GET',
  url: `${A.public}/x`,
  variant: 'json',
  status: 200,
  setCookies: [],
  body: '',
  ...over,
});
const csrfName = (base: string) => `csrf_token_${createHash('sha256').update(base).digest('hex')}`;
const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const jwt = (header: object, claims: object) => `${b64(header)}.${b64(claims)}.c2ln`;

describe('normaliseUrl', () => {
  it('maps each service to its placeholder, ids to {id}, secrets to {token}, and sorts the query', () => {
    const a = normaliseUrl(`${A.public}/self-service/recovery?token=abc&flow=${ID_A}`, A);
    const b = normaliseUrl(`${B.public}/self-service/recovery?flow=${ID_B}&token=xyz`, B);
    expect(a).toBe('{public}/self-service/recovery?flow={id}&token={token}');
    expect(b).toBe(a);
    expect(normaliseUrl(`${A.admin}/identities/${ID_A}`, A)).toBe('{admin}/identities/{id}');
  });

  it('normalises URL-valued parameters too, and keeps what differs', () => {
    const nested = normaliseUrl(
      `${A.public}/self-service/login/browser?refresh=true&return_to=${encodeURIComponent(`${A.public}/self-service/settings?flow=${ID_A}`)}`,
      A,
    );
    expect(nested).toBe('{public}/self-service/login/browser?refresh=true&return_to={public}/self-service/settings?flow={id}');
    expect(normaliseUrl(`${A.app}/sign-in?flow=${ID_A}`, A)).not.toBe(normaliseUrl(`${A.app}/sign-up?flow=${ID_A}`, A));
    expect(normaliseUrl(`${A.public}/x?refresh=true`, A)).not.toBe(normaliseUrl(`${A.public}/x?refresh=false`, A));
  });

  it('tells a base URL with a trailing slash from one without (a JWT issuer does)', () => {
    expect(normaliseUrl(`${A.public}/`, A)).toBe('{public}/');
    expect(normaliseUrl(A.public, A)).toBe('{public}');
  });

  it('leaves a host that is none of the services as it is', () => {
    expect(normaliseUrl('https://evil.example/x', A)).toBe('https://evil.example/x');
  });
});

describe('normaliseSetCookie', () => {
  it('names the CSRF cookie after what it hashes and drops the value', () => {
    const [nameA, attrsA] = normaliseSetCookie(`${csrfName(`${A.public}/`)}=abc; Path=/; Max-Age=31536000; HttpOnly; SameSite=Lax`, A);
    const [nameB, attrsB] = normaliseSetCookie(`${csrfName(`${B.public}/`)}=xyz; HttpOnly; SameSite=Lax; Path=/; Max-Age=31536000`, B);
    expect(nameA).toBe('csrf_token_{sha256(public/)}');
    expect([nameB, attrsB]).toEqual([nameA, attrsA]);
    expect(normaliseSetCookie(`${csrfName(A.public)}=abc`, A)[0]).toBe('csrf_token_{sha256(public)}');
  });

  it('keeps the attributes: a missing HttpOnly, another SameSite or path is a difference', () => {
    const base = normaliseSetCookie('ory_kratos_session=a; Path=/; HttpOnly; SameSite=Lax', A)[1];
    expect(normaliseSetCookie('ory_kratos_session=a; Path=/; SameSite=Lax', A)[1]).not.toBe(base);
    expect(normaliseSetCookie('ory_kratos_session=a; Path=/; HttpOnly; SameSite=Strict', A)[1]).not.toBe(base);
    expect(normaliseSetCookie('ory_kratos_session=a; Path=/x; HttpOnly; SameSite=Lax', A)[1]).not.toBe(base);
  });

  it('rounds Max-Age to the minute and tells a removal from a cookie that stays', () => {
    expect(normaliseSetCookie('s=a; Max-Age=1295999', A)[1]).toBe(normaliseSetCookie('s=b; Max-Age=1296000', A)[1]);
    expect(normaliseSetCookie('s=a; Max-Age=0', A)[1]).toBe(normaliseSetCookie('s=; Max-Age=-1', A)[1]);
    expect(normaliseSetCookie('s=a; Max-Age=0', A)[1]).not.toBe(normaliseSetCookie('s=a; Max-Age=900', A)[1]);
    expect(normaliseSetCookie('s=a; Expires=Thu, 01 Jan 1970 00:00:00 GMT', A)[1]).toBe('Expires={past}');
  });
});

describe('shapeOf', () => {
  it('keeps keys and types, not data', () => {
    expect(shapeOf({ id: ID_A, expires_at: '2026-01-01T00:00:00Z', n: 3 }, A)).toEqual(shapeOf({ id: ID_B, expires_at: '2027-02-02T00:00:00.123Z', n: 9 }, B));
  });

  it('catches a missing key, an extra key, another type and null for an object', () => {
    const base = shapeOf({ a: 'x', b: { c: 1 } }, A);
    expect(shapeOf({ a: 'x' }, A)).not.toEqual(base);
    expect(shapeOf({ a: 'x', b: { c: 1 }, d: null }, A)).not.toEqual(base);
    expect(shapeOf({ a: 1, b: { c: 1 } }, A)).not.toEqual(base);
    expect(shapeOf({ a: 'x', b: null }, A)).not.toEqual(base);
  });

  it('keeps the contract’s values: enumerations, booleans, error ids and codes, uiText ids, URLs', () => {
    expect(shapeOf({ state: 'sent_email' }, A)).not.toEqual(shapeOf({ state: 'choose_method' }, A));
    expect(shapeOf({ active: true }, A)).not.toEqual(shapeOf({ active: false }, A));
    expect(shapeOf({ error: { id: 'session_inactive', code: 401 } }, A)).not.toEqual(shapeOf({ error: { id: 'security_csrf_violation', code: 401 } }, A));
    expect(shapeOf({ error: { code: 401 } }, A)).not.toEqual(shapeOf({ error: { code: 403 } }, A));
    expect(shapeOf({ messages: [{ id: 4000006 }] }, A)).not.toEqual(shapeOf({ messages: [{ id: 4000010 }] }, A));
    expect(shapeOf({ request_url: `${A.public}/self-service/login/browser` }, A)).toEqual(
      shapeOf({ request_url: `${B.public}/self-service/login/browser` }, B),
    );
    expect(shapeOf({ request_url: `${A.public}/self-service/login/browser` }, A)).not.toEqual(
      shapeOf({ request_url: `${A.public}/self-service/login/api` }, A),
    );
  });

  it('describes arrays by their element shapes', () => {
    expect(shapeOf([{ a: 1 }, { a: 2 }], A)).toEqual([{ a: 'number' }]);
    expect(shapeOf([{ a: 1 }, { b: 2 }], A)).toEqual([{ a: 'number' }, { b: 'number' }]);
    expect(shapeOf([], A)).not.toEqual(shapeOf([{ a: 1 }], A));
  });

  it('reads a JWT as header and claim keys and the shape of iss', () => {
    const a = jwt({ alg: 'ES256', kid: 'k1', typ: 'JWT' }, { iss: `${A.public}/`, sub: ID_A, exp: 1 });
    const b = jwt({ alg: 'ES256', kid: 'k2', typ: 'JWT' }, { iss: `${B.public}/`, sub: ID_B, exp: 2 });
    expect(shapeOf({ tokenized: a }, A)).toEqual(shapeOf({ tokenized: b }, B));
    expect(jwtShape(jwt({ alg: 'ES256' }, { iss: A.public }), A)).not.toEqual(jwtShape(jwt({ alg: 'ES256' }, { iss: `${A.public}/` }), A));
    expect(jwtShape(jwt({ alg: 'ES256' }, { iss: `${A.public}/` }), A)).not.toEqual(jwtShape(jwt({ alg: 'ES256' }, { iss: `${A.public}/`, aud: 'x' }), A));
  });
});

describe('normaliseExchange', () => {
  const flow = (publicUrl: string, id: string, nodes: object[], messages: object[] = []) => ({
    id,
    state: 'choose_method',
    ui: { action: `${publicUrl}/self-service/login?flow=${id}`, method: 'POST', nodes, messages },
  });
  const node = (group: string, name: string, type: string, extra: object = {}) => ({
    type: 'input',
    group,
    attributes: { name, type, disabled: false, node_type: 'input', ...extra },
    messages: [],
    meta: {},
  });

  it('makes two equal answers of two services equal', () => {
    const a = normaliseExchange(
      exchange({ url: `${A.public}/self-service/login/browser`, body: flow(A.public, ID_A, [node('default', 'csrf_token', 'hidden', { value: 'aaa' })]) }),
      A,
    );
    const b = normaliseExchange(
      exchange({ url: `${B.public}/self-service/login/browser`, body: flow(B.public, ID_B, [node('default', 'csrf_token', 'hidden', { value: 'bbb' })]) }),
      B,
    );
    expect(b).toEqual(a);
    expect(a.ui?.action).toBe('{public}/self-service/login?flow={id}');
  });

  it('keeps node group, input type, required, submit values and message ids', () => {
    const base = normaliseExchange(
      exchange({ body: flow(A.public, ID_A, [node('password', 'method', 'submit', { value: 'password' })], [{ id: 4000006 }]) }),
      A,
    );
    const group = normaliseExchange(
      exchange({ body: flow(A.public, ID_A, [node('default', 'method', 'submit', { value: 'password' })], [{ id: 4000006 }]) }),
      A,
    );
    const value = normaliseExchange(
      exchange({ body: flow(A.public, ID_A, [node('password', 'method', 'submit', { value: 'profile' })], [{ id: 4000006 }]) }),
      A,
    );
    const message = normaliseExchange(
      exchange({ body: flow(A.public, ID_A, [node('password', 'method', 'submit', { value: 'password' })], [{ id: 4000010 }]) }),
      A,
    );
    const required = normaliseExchange(
      exchange({ body: flow(A.public, ID_A, [node('password', 'method', 'submit', { value: 'password', required: true })], [{ id: 4000006 }]) }),
      A,
    );
    for (const other of [group, value, message, required]) expect(other).not.toEqual(base);
  });

  it('keeps status, Location and content type; ignores the body of a redirect', () => {
    const base = normaliseExchange(exchange({ status: 303, location: `${A.app}/sign-in?flow=${ID_A}`, body: '<a href="x">See Other</a>.' }), A);
    expect(base.location).toBe('{app}/sign-in?flow={id}');
    expect(base.body).toBe('');
    expect(normaliseExchange(exchange({ status: 302, location: `${A.app}/sign-in?flow=${ID_A}` }), A)).not.toEqual(base);
    expect(normaliseExchange(exchange({ status: 303, location: `${A.app}/error?id=${ID_A}` }), A)).not.toEqual(base);
    const json = normaliseExchange(exchange({ contentType: 'application/json; charset=utf-8', body: {} }), A);
    expect(json.contentType).toBe('application/json');
    expect(normaliseExchange(exchange({ contentType: 'text/html', body: {} }), A)).not.toEqual(json);
  });
});

describe('sortHiddenTraitRuns', () => {
  const n = (node: string, type: string): NormalisedNode => ({ node, node_type: 'input', type, messages: [], shape: '' });

  it('puts a run of hidden trait nodes (Go map order in Kratos) in name order, nothing else', () => {
    const a = [n('password/password', 'password'), n('default/traits.name', 'hidden'), n('default/traits.email', 'hidden'), n('default/csrf_token', 'hidden')];
    const b = [n('password/password', 'password'), n('default/traits.email', 'hidden'), n('default/traits.name', 'hidden'), n('default/csrf_token', 'hidden')];
    expect(sortHiddenTraitRuns(a)).toEqual(sortHiddenTraitRuns(b));
    expect(sortHiddenTraitRuns(a).map((x) => x.node)).toEqual(['password/password', 'default/traits.email', 'default/traits.name', 'default/csrf_token']);
  });

  it('keeps where the run stands and leaves visible trait inputs in their order', () => {
    const before = [
      n('default/traits.name', 'hidden'),
      n('default/traits.email', 'hidden'),
      n('default/csrf_token', 'hidden'),
      n('password/password', 'password'),
    ];
    const after = [
      n('default/csrf_token', 'hidden'),
      n('default/traits.name', 'hidden'),
      n('default/traits.email', 'hidden'),
      n('password/password', 'password'),
    ];
    expect(sortHiddenTraitRuns(before).map((x) => x.node)).not.toEqual(sortHiddenTraitRuns(after).map((x) => x.node));
    const visible = [n('default/traits.name', 'text'), n('default/traits.email', 'email')];
    expect(sortHiddenTraitRuns(visible).map((x) => x.node)).toEqual(['default/traits.name', 'default/traits.email']);
  });
});
