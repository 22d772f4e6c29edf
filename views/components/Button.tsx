import type { AnchorHTMLAttributes, ButtonHTMLAttributes, ReactNode } from 'react';
import type { ButtonSize, ButtonVariant } from './constants.ts';
import { cx } from './cx.ts';

type Shared = {
  variant?: ButtonVariant;
  size?: ButtonSize;
  /** Spinner in place of the text, and disabled: a second click cannot submit twice. */
  loading?: boolean;
  disabled?: boolean;
  fullWidth?: boolean;
  children?: ReactNode;
  className?: string;
};

export type ButtonProps = Shared &
  (
    | ({ href: string } & Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href' | 'className'>)
    | ({ href?: undefined } & Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'className' | 'disabled'>)
  );

export function buttonClass(variant: ButtonVariant = 'PRIMARY', size: ButtonSize = 'LG', extra?: string): string {
  return cx('btn', `btn--${variant}`, `btn--${size}`, extra);
}

export function Button(props: ButtonProps) {
  const { variant, size, loading = false, disabled = false, fullWidth, children, className, ...rest } = props;
  const classes = buttonClass(variant, size, cx(fullWidth && 'btn--full', loading && 'btn--loading', className));
  const content = (
    <>
      <span className="btn__spinner" aria-hidden="true" />
      <span className="btn__label">{children}</span>
    </>
  );
  if (rest.href !== undefined) {
    const { href, ...anchor } = rest;
    // A disabled link has no href: it cannot be followed, with or without JavaScript.
    const inactive = disabled || loading;
    return (
      <a {...anchor} className={classes} href={inactive ? undefined : href} aria-disabled={inactive ? true : undefined} aria-busy={loading ? true : undefined}>
        {content}
      </a>
    );
  }
  const { type = 'submit', ...button } = rest as ButtonHTMLAttributes<HTMLButtonElement>;
  return (
    <button {...button} type={type} className={classes} disabled={disabled || loading} aria-busy={loading ? true : undefined}>
      {content}
    </button>
  );
}
