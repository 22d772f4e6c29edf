import { describe, expect, it } from 'vitest';
import { ACCOUNT_LINK_STATES, accountLinkOf, isLinkFlow } from '../../../core/kratos/account-link.ts';
import type { KratosFlow, UiNode, UiText } from '../../../core/kratos/types.ts';
import linkPrompt from '../../fixtures/flows/login-account-link.json' with { type: 'json' };

const flow = linkPrompt as unknown as KratosFlow;

function withMessages(messages: UiText[]): KratosFlow {
  return { ...flow, ui: { ...flow.ui, messages } };
}

const CANCELLED_AT_PROVIDER: UiText = {
  id: 4000001,
  type: 'error',
  text: 'Unable to complete OpenID Connect flow because the OpenID Provider returned error "access_denied": cancelled',
  context: { reason: 'Unable to complete OpenID Connect flow because the OpenID Provider returned error "access_denied": cancelled' },
};

describe('account-link state (spec §4)', () => {
  it('numbers the states 0–6 in the spec’s order', () => {
    expect(ACCOUNT_LINK_STATES.map((state, index) => `${index}:${state}`)).toEqual([
      '0:INITIAL',
      '1:PROMPT_SELECT_ACCOUNT',
      '2:LINKING_ACCOUNT',
      '3:WRONG_ACCOUNT_SELECTED',
      '4:FAILED',
      '5:SUCCESS',
      '6:CANCELLED',
    ]);
  });

  it('an ordinary sign-in flow is INITIAL', () => {
    const plain: KratosFlow = { id: 'f', ui: { action: '', method: 'POST', nodes: [], messages: [] } };
    expect(isLinkFlow(plain)).toBe(false);
    expect(accountLinkOf(plain)).toEqual({ state: 'INITIAL', step: 0, existing: [] });
    expect(accountLinkOf(undefined).state).toBe('INITIAL');
  });

  it('1010016 is PROMPT_SELECT_ACCOUNT, with the e-mail, the new provider and how the account signs in', () => {
    expect(accountLinkOf(flow)).toEqual({
      state: 'PROMPT_SELECT_ACCOUNT',
      step: 1,
      email: 'ada@example.com',
      provider: 'google',
      existing: ['password', 'microsoft'],
    });
  });

  it('after a failure the prompt is gone: the relabelled buttons still mark the flow, the hidden identifier gives the e-mail', () => {
    const wrongPassword = withMessages([{ id: 4000006, type: 'error', text: 'The provided credentials are invalid' }]);
    expect(isLinkFlow(wrongPassword)).toBe(true);
    const link = accountLinkOf(wrongPassword);
    expect(link.state).toBe('PROMPT_SELECT_ACCOUNT');
    expect(link.email).toBe('ada@example.com');
    // Without Kratos's context, the buttons on offer (login_hints off: every other provider) …
    expect(link.existing).toEqual(['password', 'microsoft', 'apple']);
    // … unless an earlier page of the sequence remembered them.
    expect(accountLinkOf(wrongPassword, { remembered: { provider: 'google', existing: ['password'] } })).toMatchObject({
      provider: 'google',
      existing: ['password'],
    });
  });

  it('4010009 is WRONG_ACCOUNT_SELECTED; a provider failure FAILED; a cancel at the provider CANCELLED', () => {
    expect(accountLinkOf(withMessages([{ id: 4010009, type: 'error', text: 'Linked credentials do not match.' }])).state).toBe('WRONG_ACCOUNT_SELECTED');
    const failed = accountLinkOf(
      withMessages([
        {
          id: 4000001,
          type: 'error',
          text: 'x',
          context: { reason: 'Unable to complete OpenID Connect flow because the OpenID Provider returned error "server_error": x' },
        },
      ]),
    );
    expect(failed).toMatchObject({ state: 'FAILED', step: 4, failure: 'providerError' });
    expect(accountLinkOf(withMessages([CANCELLED_AT_PROVIDER]))).toMatchObject({ state: 'CANCELLED', step: 6, failure: 'cancelled' });
  });

  it('signals: on the way to a provider LINKING_ACCOUNT, our Cancel link CANCELLED, a linking sign-in SUCCESS', () => {
    expect(accountLinkOf(flow, { submitting: true }).state).toBe('LINKING_ACCOUNT');
    expect(accountLinkOf(flow, { cancelled: true }).state).toBe('CANCELLED');
    expect(accountLinkOf(undefined, { cancelled: true }).state).toBe('CANCELLED');
    expect(accountLinkOf(undefined, { linked: true, remembered: { provider: 'Google' } })).toEqual({
      state: 'SUCCESS',
      step: 5,
      provider: 'google',
      existing: [],
    });
  });

  it('a node-level error counts too (Kratos may put 4010009 under the identifier)', () => {
    const nodes: UiNode[] = flow.ui.nodes.map((node) =>
      node.attributes.name === 'identifier' ? { ...node, messages: [{ id: 4010009, type: 'error', text: 'Linked credentials do not match.' }] } : node,
    );
    expect(accountLinkOf({ ...flow, ui: { ...flow.ui, nodes, messages: [] } }).state).toBe('WRONG_ACCOUNT_SELECTED');
  });
});
