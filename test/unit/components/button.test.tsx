import { describe, expect, it } from 'vitest';
import { Button } from '../../../views/components/Button.tsx';
import { BUTTON_SIZES, BUTTON_VARIANTS } from '../../../views/components/constants.ts';
import { render, tagWith } from './render.tsx';

describe('Button', () => {
  it('uses the spec vocabulary and heights', () => {
    expect(BUTTON_VARIANTS).toEqual(['PRIMARY', 'PRIMARY_DARK', 'SECONDARY', 'SECONDARY_DARK', 'TERTIARY', 'HYPERLINK', 'PRIMARY_DIM', 'GHOST', 'DANGER']);
    expect(BUTTON_SIZES).toEqual({ XXS: 28, XS: 32, SM: 36, MD: 40, LG: 44, XL: 48, XXL: 56 });
  });

  it('defaults to a PRIMARY LG submit button', () => {
    const tag = tagWith(render(<Button>Save</Button>), '<button');
    expect(tag).toContain('type="submit"');
    expect(tag).toContain('class="btn btn--PRIMARY btn--LG"');
    expect(tag).not.toContain('disabled');
  });

  it('renders every variant and size as classes', () => {
    for (const variant of BUTTON_VARIANTS) {
      for (const size of Object.keys(BUTTON_SIZES) as (keyof typeof BUTTON_SIZES)[]) {
        const tag = tagWith(
          render(
            <Button variant={variant} size={size} type="button">
              x
            </Button>,
          ),
          '<button',
        );
        expect(tag).toContain(`btn--${variant} btn--${size}`);
      }
    }
  });

  it('is disabled with a spinner while loading', () => {
    const html = render(<Button loading>Save</Button>);
    const tag = tagWith(html, '<button');
    expect(tag).toContain('disabled=""');
    expect(tag).toContain('aria-busy="true"');
    expect(tag).toContain('btn--loading');
    expect(html).toContain('<span class="btn__spinner" aria-hidden="true">');
    expect(html).toContain('<span class="btn__label">Save</span>');
  });

  it('passes name, value, type and fullWidth', () => {
    const tag = tagWith(
      render(
        <Button name="intent" value="save" type="button" fullWidth>
          Go
        </Button>,
      ),
      '<button',
    );
    expect(tag).toMatch(/name="intent"/);
    expect(tag).toMatch(/value="save"/);
    expect(tag).toMatch(/type="button"/);
    expect(tag).toContain('btn--full');
  });

  it('renders href as a link styled as a button, without href when disabled', () => {
    expect(
      tagWith(
        render(
          <Button href="/sign-up" variant="HYPERLINK">
            Join
          </Button>,
        ),
        '<a',
      ),
    ).toBe('<a class="btn btn--HYPERLINK btn--LG" href="/sign-up">');
    const disabled = tagWith(
      render(
        <Button href="/sign-up" disabled>
          Join
        </Button>,
      ),
      '<a',
    );
    expect(disabled).not.toContain('href');
    expect(disabled).toContain('aria-disabled="true"');
  });
});
