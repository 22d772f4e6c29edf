import type { InputHTMLAttributes, ReactNode } from 'react';
import { cx } from './cx.ts';

export type CheckboxProps = {
  id: string;
  name: string;
  value?: string;
  label: ReactNode;
  checked?: boolean;
  /** Shown as a dash; the island sets the DOM `indeterminate` property (HTML has no attribute for it). */
  indeterminate?: boolean;
  error?: string;
  required?: boolean;
  className?: string;
} & Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'name' | 'value' | 'checked' | 'type' | 'className'>;

export function Checkbox(props: CheckboxProps) {
  const { id, label, checked, indeterminate, error, className, ...input } = props;
  const errorId = `${id}-error`;
  return (
    <div className={cx('checkbox', indeterminate && 'checkbox--indeterminate', error && 'checkbox--error', className)}>
      <input
        {...input}
        id={id}
        type="checkbox"
        className="checkbox__input"
        defaultChecked={checked}
        data-indeterminate={indeterminate ? '' : undefined}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId : undefined}
      />
      <label className="checkbox__label" htmlFor={id}>
        {label}
      </label>
      {error ? (
        <p className="field__error checkbox__error" id={errorId}>
          {error}
        </p>
      ) : null}
    </div>
  );
}
