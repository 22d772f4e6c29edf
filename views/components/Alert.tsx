import type { HTMLAttributes, ReactNode } from 'react';
import type { ToastVariant } from './constants.ts';
import { cx } from './cx.ts';
import { Icon } from './Icon.tsx';

export type AlertProps = {
  variant?: ToastVariant;
  title?: ReactNode;
  children?: ReactNode;
  className?: string;
} & Omit<HTMLAttributes<HTMLDivElement>, 'className' | 'title'>;

const ICONS = { success: 'success', error: 'error', info: 'info', warning: 'warn' } as const;

/** A form-level message. Errors are role="alert" so they are announced when they appear. */
export function Alert(props: AlertProps) {
  const { variant = 'info', title, children, className, ...rest } = props;
  return (
    <div
      role={variant === 'error' ? 'alert' : 'status'}
      tabIndex={variant === 'error' ? -1 : undefined}
      {...rest}
      className={cx('alert', `alert--${variant}`, className)}
    >
      <Icon name={ICONS[variant]} className="icon alert__icon" />
      <div className="alert__content">
        {title ? <p className="alert__title">{title}</p> : null}
        {children}
      </div>
    </div>
  );
}
