import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { KratosFlow } from '../../../core/kratos/types.ts';
import { showsNothingEntered } from '../../../server/flows/flow-screen-show.ts';

// Which flow pages may be sent from a kept template (decision 241): only those showing nothing anyone entered.
const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../../fixtures/flows/${name}.json`, import.meta.url), 'utf8')) as KratosFlow;

describe('showsNothingEntered', () => {
  it.each(['login-fresh', 'registration-step1'])('%s: a new flow on its own address', (name) => {
    expect(showsNothingEntered({ flow: 'x' }, fixture(name))).toBe(true);
    expect(showsNothingEntered({}, fixture(name))).toBe(true);
  });

  it.each(['login-wrong-password', 'login-account-link', 'login-unverified', 'registration-step2', 'registration-invalid-email', 'verification-passed'])(
    '%s: what someone typed, or a message about it',
    (name) => expect(showsNothingEntered({ flow: 'x' }, fixture(name))).toBe(false),
  );

  it('any query beyond the flow id (return_to, a challenge, a hint) could be shown: not templated', () => {
    expect(showsNothingEntered({ flow: 'x', return_to: '/doc/1' }, fixture('login-fresh'))).toBe(false);
    expect(showsNothingEntered({ login_challenge: 'abc' }, fixture('login-fresh'))).toBe(false);
  });

  it('one input with a value, a node message or a node that is not an input is enough to refuse', () => {
    const fresh = fixture('login-fresh');
    const withValue = (value: unknown): KratosFlow => ({
      ...fresh,
      ui: {
        ...fresh.ui,
        nodes: fresh.ui.nodes.map((node) => (node.attributes.name === 'identifier' ? { ...node, attributes: { ...node.attributes, value } } : node)),
      },
    });
    expect(fresh.ui.nodes.some((node) => node.attributes.name === 'identifier')).toBe(true);
    expect(showsNothingEntered({}, withValue('grace@example.com'))).toBe(false);
    expect(showsNothingEntered({}, withValue(''))).toBe(true);
    const [first, ...others] = fresh.ui.nodes;
    const message = { id: 4000002, text: 'Property identifier is missing.', type: 'error' };
    expect(showsNothingEntered({}, { ...fresh, ui: { ...fresh.ui, nodes: [{ ...first!, messages: [message] }, ...others] } })).toBe(false);
    const script = { type: 'script', group: 'webauthn', attributes: { node_type: 'script', src: '/webauthn.js' }, messages: [], meta: {} };
    expect(showsNothingEntered({}, { ...fresh, ui: { ...fresh.ui, nodes: [...fresh.ui.nodes, script] } })).toBe(false);
    const hiddenIdentifier = {
      type: 'input',
      group: 'identifier_first',
      attributes: { node_type: 'input', type: 'hidden', name: 'identifier', value: 'a@b.c' },
      messages: [],
      meta: {},
    };
    expect(showsNothingEntered({}, { ...fresh, ui: { ...fresh.ui, nodes: [...fresh.ui.nodes, hiddenIdentifier] } })).toBe(false);
  });
});
