// The conformance suite's comparer (test/conformance/compare.ts): a comparer that cannot fail is a
// defect, so each kind of difference is shown to be reported, with its exchange and path, and the
// allow-list to set aside only what it names.
import { describe, expect, it } from 'vitest';
import { allowedDifferences } from '../../conformance/allowed-differences.ts';
import { allowanceFor, compareRecordings, formatDifferences, judge, type AllowedDifference } from '../../conformance/compare.ts';
import type { NormalisedExchange, NormalisedNode } from '../../conformance/normalise.ts';

const node = (key: string, over: Partial<NormalisedNode> = {}): NormalisedNode => ({
  node: key,
  node_type: 'input',
  type: 'text',
  messages: [],
  shape: { attributes: { name: 'string' } },
  ...over,
});

const exchange = (over: Partial<NormalisedExchange> = {}): NormalisedExchange => ({
  request: 'POST {public}/self-service/login?flow={id} [json]',
  status: 400,
  cookies: { 'csrf_token_{sha256(public/)}': 'HttpOnly; Max-Age=31536000; Path=/; SameSite=Lax' },
  contentType: 'application/json',
  body: { id: 'string', state: 'string:choose_method', ui: '(see ui)' },
  ui: { action: '{public}/self-service/login?flow={id}', method: 'POST', messages: [4000006], nodes: [node('default/csrf_token'), node('password/password')] },
  ...over,
});

const paths = (a: NormalisedExchange[], b: NormalisedExchange[]) => compareRecordings('s', a, b).map((d) => d.path);

describe('compareRecordings', () => {
  it('finds nothing between equal recordings', () => {
    expect(compareRecordings('s', [exchange(), exchange()], [exchange(), exchange()])).toEqual([]);
  });

  it('reports status, Location, a cookie, a cookie attribute and the content type', () => {
    expect(paths([exchange()], [exchange({ status: 410 })])).toEqual(['status']);
    expect(paths([exchange({ location: '{app}/a' })], [exchange({ location: '{app}/b' })])).toEqual(['location']);
    expect(paths([exchange()], [exchange({ cookies: {} })])).toEqual(['cookies.csrf_token_{sha256(public/)}']);
    expect(paths([exchange()], [exchange({ cookies: { 'csrf_token_{sha256(public/)}': 'Max-Age=31536000; Path=/; SameSite=Lax' } })])).toEqual([
      'cookies.csrf_token_{sha256(public/)}',
    ]);
    expect(paths([exchange()], [exchange({ contentType: 'text/html' })])).toEqual(['contentType']);
  });

  it('reports a body key that is missing, extra or of another type, at its path', () => {
    expect(paths([exchange()], [exchange({ body: { id: 'string', ui: '(see ui)' } })])).toEqual(['body.state']);
    expect(paths([exchange()], [exchange({ body: { id: 'number', state: 'string:choose_method', ui: '(see ui)' } })])).toEqual(['body.id']);
    expect(paths([exchange({ body: [{ a: 'string' }] })], [exchange({ body: [{ a: 'string', b: 'null' }] })])).toEqual(['body[0].b']);
  });

  it('aligns nodes by group and name: one missing node is one difference, and the order is compared', () => {
    const three = [node('default/csrf_token'), node('default/identifier'), node('password/password')];
    const missing = [node('default/csrf_token'), node('password/password')];
    expect(paths([exchange({ ui: { messages: [], nodes: three } })], [exchange({ ui: { messages: [], nodes: missing } })])).toEqual([
      'ui.nodes[default/identifier]',
    ]);
    const reordered = [node('default/identifier'), node('default/csrf_token'), node('password/password')];
    expect(paths([exchange({ ui: { messages: [], nodes: three } })], [exchange({ ui: { messages: [], nodes: reordered } })])).toEqual(['ui.nodes(order)']);
  });

  it('reports node group, type, required, label and message ids, and ui messages', () => {
    const base = exchange();
    const variants: [Partial<NormalisedNode>, string][] = [
      [{ node: 'default/password' }, 'ui.nodes[password/password]'],
      [{ type: 'password' }, 'ui.nodes[password/password].type'],
      [{ required: true }, 'ui.nodes[password/password].required'],
      [{ label: 1070001 }, 'ui.nodes[password/password].label'],
      [{ messages: [4000002] }, 'ui.nodes[password/password].messages'],
    ];
    for (const [over, path] of variants) {
      const other = exchange({ ui: { ...base.ui!, nodes: [node('default/csrf_token'), node('password/password', over)] } });
      expect(paths([base], [other])).toContain(path);
    }
    expect(paths([base], [exchange({ ui: { ...base.ui!, messages: [4000010] } })])).toEqual(['ui.messages[0]']);
  });

  it('reports an exchange only one side made, and says which step', () => {
    const differences = compareRecordings('s', [exchange(), exchange({ request: 'GET {public}/sessions/whoami [json]' })], [exchange()]);
    expect(differences).toEqual([
      {
        scenario: 's',
        step: 1,
        request: 'GET {public}/sessions/whoami [json]',
        path: 'exchange',
        standIn: 'GET {public}/sessions/whoami [json]',
        kratos: '(none)',
      },
    ]);
    expect(formatDifferences(differences)).toContain('#1 GET {public}/sessions/whoami [json]');
  });
});

describe('the allow-list', () => {
  const difference = compareRecordings('login: wrong password', [exchange()], [exchange({ status: 401 })])[0]!;
  const entry = (over: Partial<AllowedDifference>): AllowedDifference => ({ scenario: 'login: wrong password', path: 'status', reason: 'because', ...over });

  it('sets aside only the difference its entry names (scenario, path, request)', () => {
    expect(allowanceFor(difference, [entry({})])).toBeDefined();
    expect(allowanceFor(difference, [entry({ scenario: '*' })])).toBeDefined();
    expect(allowanceFor(difference, [entry({ scenario: 'login: right password' })])).toBeUndefined();
    expect(allowanceFor(difference, [entry({ path: 'location' })])).toBeUndefined();
    expect(allowanceFor(difference, [entry({ path: 'stat' })])).toBeUndefined();
    expect(allowanceFor(difference, [entry({ request: /registration/ })])).toBeUndefined();
    expect(allowanceFor(difference, [entry({ request: /login/ })])).toBeDefined();
  });

  it('matches a path prefix only at a boundary', () => {
    const nested = { ...difference, path: 'body.error.reason' };
    expect(allowanceFor(nested, [entry({ path: 'body.error' })])).toBeDefined();
    expect(allowanceFor(nested, [entry({ path: 'body.err' })])).toBeUndefined();
  });

  it('fails whatever it does not cover', () => {
    const { failing, allowed } = judge([difference, { ...difference, path: 'location' }], [entry({})]);
    expect(allowed.map((d) => d.path)).toEqual(['status']);
    expect(failing.map((d) => d.path)).toEqual(['location']);
  });

  it('gives every entry of allowed-differences.ts a written reason and a narrow target', () => {
    for (const e of allowedDifferences) {
      expect(e.reason.length, JSON.stringify(e)).toBeGreaterThan(30);
      expect(e.path === '' || e.path === '*', JSON.stringify(e)).toBe(false);
    }
  });
});
