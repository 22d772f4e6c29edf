import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { accountLinkOf } from '../../../core/kratos/account-link.ts';
import type { KratosFlow, UiNode } from '../../../core/kratos/types.ts';
import { FlowForm } from '../../../views/components/flow/FlowForm.tsx';
import { AccountLinkPanel } from '../../../views/components/flow/AccountLinkPanel.tsx';
import { SignInForm, AccountLinkedPage } from '../../../views/pages/SignInPage.tsx';
import { SignUpForm } from '../../../views/pages/SignUpPage.tsx';
import { render, translate } from '../components/render.tsx';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../../fixtures/flows/${name}.json`, import.meta.url), 'utf8')) as KratosFlow;

function providerNode(value: string, labelId = 1010002, provider = value.charAt(0).toUpperCase() + value.slice(1)): UiNode {
  return {
    type: 'input',
    group: 'oidc',
    attributes: { name: 'provider', type: 'submit', value, node_type: 'input' },
    messages: [],
    meta: { label: { id: labelId, text: `Sign in with ${provider}`, type: 'info', context: { provider, provider_id: value } } },
  };
}

const flowWith = (nodes: UiNode[]): KratosFlow => ({ id: 'f', ui: { action: '', method: 'POST', nodes, messages: [] } });
const button = (html: string, provider: string) => new RegExp(`<button[^>]*data-provider="${provider}"[^>]*>.*?</button>`).exec(html)?.[0] ?? '';

describe('provider buttons', () => {
  const flow = flowWith(['google', 'microsoft', 'dropbox', 'apple', 'github'].map((id) => providerNode(id)));

  it('each known provider: its own mark, its brand class, our "Continue with …" in every language', () => {
    for (const lng of ['en', 'vi', 'fr', 'pt', 'es']) {
      const html = render(<FlowForm id="f" action="/sign-in?flow=f" ui={flow.ui} />, { lang: lng });
      for (const id of ['google', 'microsoft', 'dropbox', 'apple']) {
        const markup = button(html, id);
        expect(markup, `${lng} ${id}`).toContain(`btn--social-${id}`);
        expect(markup).toContain(`data-mark="${id}"`);
        expect(markup).toContain('<svg');
        expect(markup).toContain(translate('authPage.continueWith', lng, { provider: translate(`authPage.providers.${id}`, lng) }));
      }
    }
  });

  it('follow each brand: the Google G in four colours, Microsoft’s four squares, Apple in the text colour, Dropbox blue', () => {
    const html = render(<FlowForm id="f" action="/x" ui={flow.ui} />);
    const google = button(html, 'google');
    for (const colour of ['#EA4335', '#4285F4', '#FBBC05', '#34A853']) expect(google).toContain(colour);
    const microsoft = button(html, 'microsoft');
    for (const colour of ['#F25022', '#7FBA00', '#00A4EF', '#FFB900']) expect(microsoft).toContain(colour);
    expect(button(html, 'apple')).toContain('fill="currentColor"');
    expect(button(html, 'dropbox')).toContain('#0061FF');
  });

  it('an unknown provider: the neutral mark and Kratos’s label (translated), never an empty button', () => {
    const html = render(<FlowForm id="f" action="/x" ui={flow.ui} />, { lang: 'fr' });
    const github = button(html, 'github');
    expect(github).toContain('btn--social-other');
    expect(github).toContain('data-mark="other"');
    expect(github).toContain(translate('kratos.1010002', 'fr', { provider: 'Github' }));
  });

  it('are accessible: the mark is hidden from assistive technology, the text names the provider, a real submit button', () => {
    const html = render(<FlowForm id="f" action="/x" ui={flow.ui} />);
    const google = button(html, 'google');
    expect(google).toMatch(/^<button[^>]*type="submit"/);
    expect(google).toMatch(/name="provider"[^>]*|value="google"/);
    expect(google).toMatch(/<span class="provider-mark" aria-hidden="true"/);
  });
});

describe('the account-link sequence on the sign-in form', () => {
  const flow = fixture('login-account-link');
  const props = (state = accountLinkOf(flow)) => ({
    form: { action: '/sign-in?flow=x', ui: flow.ui },
    forgotPasswordHref: '/forgot-password',
    accountLink: { link: state, cancelHref: '/sign-in?account_link=cancelled' },
  });

  it('PROMPT_SELECT_ACCOUNT: already signed up with …, a link to sign in that way, the hidden e-mail, "Sign in and link", "Confirm with Microsoft", Cancel', () => {
    const html = render(<SignInForm {...props()} />);
    expect(html).toContain('data-link-state="PROMPT_SELECT_ACCOUNT"');
    expect(html).toContain('Link your Google account');
    expect(html).toContain('This email is already signed up with email and password or Microsoft.');
    expect(html).toContain('<a class="alert__link" href="#field-password">Sign in with email and password</a>');
    expect(html).toContain('<input type="hidden" name="identifier" value="ada@example.com"/>');
    expect(html).toContain('>Sign in and link<');
    expect(button(html, 'microsoft')).toContain('Confirm with Microsoft');
    expect(html).toContain('href="/sign-in?account_link=cancelled"');
    expect(html).toMatch(/<li aria-current="step">Choose your account<\/li>/);
  });

  it('a social-only account: "signs in with Microsoft", in Vietnamese too', () => {
    const onlyMicrosoft = { ...accountLinkOf(flow), existing: ['microsoft'] };
    expect(render(<AccountLinkPanel link={onlyMicrosoft} cancelHref="/c" />)).toContain(
      'This account signs in with Microsoft. Please continue with Microsoft.',
    );
    const vi = render(<AccountLinkPanel link={onlyMicrosoft} cancelHref="/c" />, { lang: 'vi' });
    expect(vi).toContain(translate('errorMessage.alreadySignedInAnotherMethod', 'vi', { provider: 'Microsoft' }));
  });

  it('WRONG_ACCOUNT_SELECTED, FAILED, CANCELLED and LINKING_ACCOUNT each say so', () => {
    const base = accountLinkOf(flow);
    const wrong = render(<AccountLinkPanel link={{ ...base, state: 'WRONG_ACCOUNT_SELECTED', step: 3 }} cancelHref="/c" />);
    expect(wrong).toContain(translate('accountLink.wrongAccount', 'en', { email: 'ada@example.com' }));
    expect(render(<AccountLinkPanel link={{ ...base, state: 'FAILED', step: 4 }} cancelHref="/c" />)).toContain(translate('accountLink.failed'));
    expect(render(<AccountLinkPanel link={{ ...base, state: 'CANCELLED', step: 6 }} cancelHref="/c" />)).toContain(translate('accountLink.cancelled'));
    expect(render(<AccountLinkPanel link={{ ...base, state: 'LINKING_ACCOUNT', step: 2 }} cancelHref="/c" />)).toContain('Taking you to Google to confirm…');
    // Our own Cancel: only the notice, on a fresh form.
    const cancelled = render(<AccountLinkPanel link={accountLinkOf(undefined, { cancelled: true })} cancelHref="/c" />);
    expect(cancelled).toContain(translate('accountLink.cancelled'));
    expect(cancelled).not.toContain('account-link__steps');
  });

  it('SUCCESS: the notice, all steps done, Continue to where the user was going', () => {
    const html = render(<AccountLinkedPage provider="google" continueHref="/profile-settings" />, { lang: 'es' });
    expect(html).toContain(translate('accountLink.success', 'es', { provider: 'Google' }));
    expect(html).toMatch(/href="\/profile-settings"[^>]*data-link="continue"|data-link="continue"[^>]*href="\/profile-settings"/);
  });
});

describe('the Continue screen of a social sign-up missing traits', () => {
  it('says why, shows the traits with their messages, asks for the terms, and posts the provider as the main button', () => {
    const flow = fixture('registration-oidc-complete');
    const html = render(
      <SignUpForm
        form={{ action: '/sign-up?flow=x', ui: flow.ui, omit: ['traits.avatarRemoteId', 'traits.loginService'] }}
        terms="ask"
        termsSummary={{ title: 'T', intro: 'I', sections: [] }}
        completeWith="Apple"
      />,
    );
    expect(html).toContain(translate('social.completeText', 'en', { provider: 'Apple' }));
    expect(html).toContain('name="traits.email"');
    expect(html).toContain('value="Augusta Ada King, Countess of Lovelace"');
    expect(html).not.toContain('traits.loginService');
    expect(html).toContain('name="terms"');
    const main = /<div class="flow-form__actions">.*?<\/div>/.exec(html)?.[0] ?? '';
    expect(main).toContain('name="provider"');
    expect(main).toContain('value="apple"');
    expect(main).toContain('btn--PRIMARY');
    expect(main).toContain(translate('social.completeSubmit'));
    expect(html).not.toContain('flow-form__social'); // not a second provider button at the top
  });
});
