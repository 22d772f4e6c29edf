import { readFileSync } from 'node:fs';
import type { i18n as I18n } from 'i18next';
import { renderToString } from 'react-dom/server';
import { beforeAll, describe, expect, test } from 'vitest';
import { createI18n } from '../../../server/i18n.ts';
import type { KratosFlow } from '../../../core/kratos/types.ts';
import { FlowForm, type FlowFormProps } from '../../../views/components/flow/FlowForm.tsx';
import { ViewContextReact, type ViewContext } from '../../../views/context.ts';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../../fixtures/flows/${name}.json`, import.meta.url), 'utf8')) as KratosFlow;

let i18n: I18n;
beforeAll(async () => {
  i18n = await createI18n(['en', 'vi', 'fr', 'pt', 'es'], 'en');
});

function render(flow: KratosFlow, props: Partial<FlowFormProps> = {}, lang = 'en'): string {
  const fixed = i18n.getFixedT(lang);
  const ctx: ViewContext = {
    lang,
    languages: ['en'],
    t: (key, options) => String(fixed(key, options as never)),
    nonce: 'n',
    url: '/',
    brand: { name: 'Accounts', logoUrl: '/logo.svg' },
  };
  return renderToString(
    <ViewContextReact.Provider value={ctx}>
      <FlowForm id="test-form" action="/sign-in?flow=x" ui={flow.ui} {...props} />
    </ViewContextReact.Provider>,
  );
}

const tag = (html: string, pattern: RegExp) => pattern.exec(html)?.[0] ?? '';

describe('FlowForm renders Kratos nodes generically', () => {
  test('fresh login: csrf as hidden input, fields by type, provider button from the oidc node, our action', () => {
    const html = render(fixture('login-fresh'), { socialDivider: 'or' });
    expect(html).toMatch(/<form id="test-form"[^>]*action="\/sign-in\?flow=x"[^>]*method="post"/);
    expect(html).toContain(
      '<input type="hidden" name="csrf_token" value="FU98fBtgxnXS0/r0KR94OCaMkVjDozJxJzo/lMOQuc57oDPu7pHj3bpkXMOkJVC0gxeLDXKyVt3z0gUWYODUkw=="/>',
    );
    const identifier = tag(html, /<input[^>]*name="identifier"[^>]*>/);
    expect(identifier).toContain('type="text"');
    expect(identifier).toContain('required');
    expect(html).toMatch(/<label class="field__label" for="field-identifier">Email<\/label>/);
    const password = tag(html, /<input[^>]*name="password"[^>]*>/);
    expect(password).toContain('type="password"');
    expect(password.toLowerCase()).toContain('autocomplete="current-password"');
    const google = tag(html, /<button[^>]*data-provider="google"[^>]*>/);
    expect(google).toContain('name="provider"');
    expect(google).toContain('value="google"');
    expect(google).toContain('btn--social-google');
    expect(google.toLowerCase()).toContain('formnovalidate');
    expect(html).toContain('Continue with Google'); // our text for a known provider (Kratos's 1010002 is the fallback)
    expect(html).toContain('class="flow-form__divider"');
    expect(tag(html, /<button[^>]*name="method"[^>]*>/)).toContain('value="password"');
  });

  test('form-level message as an alert, the typed identifier kept, no password value', () => {
    const html = render(fixture('login-wrong-password'));
    expect(html).toMatch(/role="alert"[^>]*data-message-id="4000006"/);
    expect(html).toContain('Incorrect email or password.');
    expect(tag(html, /<input[^>]*name="identifier"[^>]*>/)).toContain('value="ada@example.com"');
    expect(tag(html, /<input[^>]*name="password"[^>]*>/)).not.toContain('value=');
  });

  test('a node message sits under its field', () => {
    const html = render(fixture('login-missing-password'));
    expect(html).toMatch(/<p class="field__error" id="field-password-error">[^<]*password[^<]*<\/p>/i);
    expect(tag(html, /<input[^>]*name="password"[^>]*>/)).toContain('aria-invalid="true"');
  });

  test('email_exists sits under the e-mail field in a one-step registration', () => {
    const html = render(fixture('registration-unified-email-exists'));
    expect(html).toContain('<p class="field__error" id="field-traits-email-error">An account with this email already exists.</p>');
    expect(html).not.toMatch(/role="alert"/);
  });

  test('registration step 1: `omit` hides internal traits; email input type and autocomplete come from the node', () => {
    const html = render(fixture('registration-step1'), { omit: ['traits.avatarRemoteId', 'traits.loginService'] });
    expect(html).not.toContain('traits.avatarRemoteId');
    expect(html).not.toContain('traits.loginService');
    const email = tag(html, /<input[^>]*name="traits\.email"[^>]*>/);
    expect(email).toContain('type="email"');
    expect(email.toLowerCase()).toContain('autocomplete="email"');
    expect(html).toContain('Continue with Google');
  });

  test('fields with a spec limit stop there in the browser (Kratos sends no maxlength for traits); a password never does', () => {
    const registration = render(fixture('registration-step1'));
    expect(tag(registration, /<input[^>]*name="traits\.name"[^>]*>/).toLowerCase()).toContain('maxlength="32"');
    expect(tag(registration, /<input[^>]*name="traits\.email"[^>]*>/).toLowerCase()).toContain('maxlength="255"');
    const login = render(fixture('login-fresh'));
    expect(tag(login, /<input[^>]*name="identifier"[^>]*>/).toLowerCase()).toContain('maxlength="255"');
    expect(tag(login, /<input[^>]*name="password"[^>]*>/).toLowerCase()).not.toContain('maxlength');
  });

  test('with provider buttons first, Enter presses the main button: its hidden copy (an input, not a button) opens the form', () => {
    const firstInForm = (html: string) => /<form[^>]*>(<[^>]+>)/.exec(html)?.[1] ?? '';
    const login = render(fixture('login-fresh'));
    const copy = firstInForm(login);
    for (const attribute of ['type="submit"', 'name="method"', 'value="password"', 'tabindex="-1"', 'aria-hidden="true"', 'data-default-submit=""'])
      expect(copy.toLowerCase()).toContain(attribute);
    expect(copy).toMatch(/^<input /);
    expect(login.match(/<button[^>]*name="method"[^>]*>/g)).toHaveLength(1);
    // The credential step of a sign-up: the password, not "Back" (screen=previous), after the provider buttons.
    expect(firstInForm(render(fixture('registration-step2')))).toContain('value="password"');
    // The main button first already (a code form; a social sign-up's own "Continue"): nothing added.
    expect(render(fixture('login-unknown-method'))).not.toContain('data-default-submit');
    expect(render(fixture('registration-oidc-complete'))).not.toContain('data-default-submit');
  });

  test('registration step 2: traits as hidden inputs, "Back" skips browser validation, submit labels overridable', () => {
    const html = render(fixture('registration-step2'), { submitLabels: { 'method:password': 'Create account' } });
    expect(html).toContain('<input type="hidden" name="traits.email" value="ada@example.com"/>');
    expect(html).toContain('<input type="hidden" name="traits.name" value="Ada"/>');
    const back = tag(html, /<button[^>]*name="screen"[^>]*>/);
    expect(back).toContain('value="previous"');
    expect(back.toLowerCase()).toContain('formnovalidate');
    expect(html).toContain('Create account');
    expect(html).toMatch(/role="status"[^>]*data-message-id="1040009"/);
  });

  test('a method the app never saw still renders: checkbox, code input with pattern/maxlength, text node; scripts never', () => {
    const html = render(fixture('login-unknown-method'));
    const checkbox = tag(html, /<input[^>]*name="traits\.newsletter"[^>]*>/);
    expect(checkbox).toContain('type="checkbox"');
    expect(checkbox).toContain('checked');
    const code = tag(html, /<input[^>]*name="code"[^>]*>/);
    expect(code).toContain('pattern="[0-9]+"');
    expect(code.toLowerCase()).toContain('maxlength="6"');
    expect(html).toContain('<p class="flow-form__text" id="lookup_secret_codes">');
    expect(html).not.toContain('evil.example');
    expect(html).not.toContain('<script');
    expect(tag(html, /<button[^>]*name="method"[^>]*>/)).toContain('value="code"');
  });

  test('a link node (verification passed) becomes a link button; success message as status', () => {
    const html = render(fixture('verification-passed'));
    expect(html).toMatch(/<a[^>]*href="http:\/\/127\.0\.0\.1:3000\/"[^>]*>/);
    expect(html).toMatch(/role="status"[^>]*data-message-id="1080002"/);
  });

  test('prefill only fills empty visible inputs; extra errors are shown', () => {
    const html = render(fixture('login-fresh'), {
      values: { identifier: 'hint@example.com', csrf_token: 'evil' },
      fieldErrors: { identifier: ['Enter a valid email address.'] },
      formErrors: ['Some fields need your attention.'],
    });
    expect(tag(html, /<input[^>]*name="identifier"[^>]*>/)).toContain('value="hint@example.com"');
    expect(html).not.toContain('value="evil"');
    expect(html).toContain('<p class="field__error" id="field-identifier-error">Enter a valid email address.</p>');
    expect(html).toContain('Some fields need your attention.');
  });

  test('labels and messages are translated (Vietnamese)', () => {
    const english = render(fixture('login-wrong-password'));
    const vietnamese = render(fixture('login-wrong-password'), {}, 'vi');
    expect(vietnamese).not.toContain('Incorrect email or password.');
    expect(vietnamese).not.toContain('>Password</label>');
    expect(vietnamese).not.toBe(english);
  });
});
