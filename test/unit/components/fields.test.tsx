import { describe, expect, it } from 'vitest';
import { Checkbox } from '../../../views/components/Checkbox.tsx';
import { showsClearButton } from '../../../views/components/Field.tsx';
import { PasswordInput } from '../../../views/components/PasswordInput.tsx';
import { TextInput } from '../../../views/components/TextInput.tsx';
import { render, tagWith, translate } from './render.tsx';

describe('TextInput', () => {
  it('labels a text input', () => {
    const html = render(<TextInput id="email" name="email" label="Email" autoComplete="email" required maxLength={255} />);
    expect(html).toContain('<label class="field__label" for="email">Email</label>');
    const input = tagWith(html, '<input');
    expect(input).toContain('type="text"');
    expect(input).toContain('name="email"');
    expect(input).toContain('autoComplete="email"');
    expect(input).toContain('required=""');
    expect(input).toContain('maxLength="255"');
    expect(input).not.toContain('aria-invalid');
    expect(html).not.toContain('field--error');
  });

  it('shows the error below the field, tied with aria-describedby and aria-invalid', () => {
    const html = render(<TextInput id="email" name="email" label="Email" error="Enter an email." hint="We never share it." />);
    const input = tagWith(html, '<input');
    expect(input).toContain('aria-invalid="true"');
    expect(input).toContain('aria-describedby="email-error email-hint"');
    expect(html).toContain('<p class="field__error" id="email-error">Enter an email.</p>');
    expect(html).toContain('class="field field--error"');
    expect(html.indexOf('<input')).toBeLessThan(html.indexOf('field__error'));
  });

  it('renders the clear button only when clearable, editable and non-empty', () => {
    const cases = [
      { clearable: true, readOnly: false, defaultValue: 'ada', shown: true },
      { clearable: true, readOnly: true, defaultValue: 'ada', shown: false },
      { clearable: true, readOnly: false, defaultValue: '', shown: false },
      { clearable: false, readOnly: false, defaultValue: 'ada', shown: false },
    ];
    for (const { shown, ...props } of cases) {
      expect(showsClearButton(props)).toBe(shown);
      const html = render(<TextInput id="n" name="n" label="Name" {...props} />);
      expect(html.includes('data-clear=""')).toBe(shown);
    }
    const html = render(<TextInput id="n" name="n" label="Name" clearable defaultValue="ada" />);
    const button = tagWith(html, 'data-clear=""');
    expect(button).toContain(`aria-label="${translate('ui.clear')}"`);
    expect(button).toContain('aria-controls="n"');
    expect(button).toContain('type="button"');
  });

  it('marks editable clearable fields for the island, never read-only ones', () => {
    expect(render(<TextInput id="n" name="n" label="Name" clearable />)).toContain('data-clearable=""');
    expect(render(<TextInput id="n" name="n" label="Name" clearable readOnly />)).not.toContain('data-clearable');
  });
});

describe('PasswordInput', () => {
  it('is a password field with a toggle labelled from authPage keys, shown only with JavaScript', () => {
    const html = render(<PasswordInput id="pw" name="password" label="Password" autoComplete="current-password" />);
    expect(tagWith(html, '<input')).toContain('type="password"');
    const toggle = tagWith(html, 'data-password-toggle');
    expect(toggle).toContain(`aria-label="${translate('authPage.showPassword')}"`);
    expect(toggle).toContain(`data-label-show="${translate('authPage.showPassword')}"`);
    expect(toggle).toContain(`data-label-hide="${translate('authPage.hidePassword')}"`);
    expect(toggle).toContain('aria-pressed="false"');
    expect(toggle).toContain('aria-controls="pw"');
    // Shown by the stylesheet once the head script has marked the page (decision 244), never by unhiding.
    expect(toggle).toContain('data-js-only=""');
    expect(toggle).not.toContain('hidden');
    expect(html).toContain('data-island="password"');
  });

  it('uses the page language for the toggle', () => {
    const html = render(<PasswordInput id="pw" name="password" label="Mot de passe" />, { lang: 'fr' });
    expect(tagWith(html, 'data-password-toggle')).toContain(`aria-label="${translate('authPage.showPassword', 'fr')}"`);
    expect(translate('authPage.showPassword', 'fr')).not.toBe(translate('authPage.showPassword', 'en'));
  });
});

describe('Checkbox', () => {
  it('renders unchecked, checked and indeterminate', () => {
    expect(tagWith(render(<Checkbox id="a" name="a" label="A" />), '<input')).not.toContain('checked');
    expect(tagWith(render(<Checkbox id="a" name="a" label="A" checked />), '<input')).toContain('checked=""');
    const mixed = render(<Checkbox id="a" name="a" label="A" indeterminate />);
    expect(mixed).toContain('checkbox--indeterminate');
    expect(tagWith(mixed, '<input')).toContain('data-indeterminate=""');
  });

  it('ties its error to the box', () => {
    const html = render(<Checkbox id="terms" name="terms" label="I agree" error="Accept the terms." required />);
    const input = tagWith(html, '<input');
    expect(input).toContain('aria-invalid="true"');
    expect(input).toContain('aria-describedby="terms-error"');
    expect(html).toContain('id="terms-error">Accept the terms.</p>');
  });
});
