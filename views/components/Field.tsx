import type { InputHTMLAttributes, ReactNode } from 'react';
import { useT } from '../context.ts';
import { cx } from './cx.ts';
import { Icon } from './Icon.tsx';

export type FieldProps = {
  id: string;
  name: string;
  label: ReactNode;
  type?: string;
  defaultValue?: string;
  /** Already translated error text, shown below the field. */
  error?: string;
  hint?: ReactNode;
  autoComplete?: string;
  required?: boolean;
  maxLength?: number;
  readOnly?: boolean;
  /** A clear button, shown while the field is editable and has a value. */
  clearable?: boolean;
  className?: string;
} & Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'name' | 'type' | 'defaultValue' | 'className' | 'value'>;

/** The clear button is rendered only when it can do something: clearable, editable and non-empty. */
export function showsClearButton(props: Pick<FieldProps, 'clearable' | 'readOnly' | 'defaultValue'>): boolean {
  return Boolean(props.clearable && !props.readOnly && props.defaultValue);
}

/** Label, input, hint and error shared by TextInput and PasswordInput. */
export function Field(props: FieldProps & { trailing?: ReactNode; island?: string; inputClassName?: string }) {
  const t = useT();
  const { id, label, type = 'text', error, hint, clearable, className, trailing, island, inputClassName, ...input } = props;
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const describedBy = cx(error ? errorId : undefined, hint ? hintId : undefined) || undefined;
  const canClear = Boolean(clearable && !input.readOnly);
  return (
    <div className={cx('field', error && 'field--error', className)} data-island={island}>
      <label className="field__label" htmlFor={id}>
        {label}
      </label>
      <div className="field__control" data-clearable={canClear ? '' : undefined} data-clear-label={canClear ? t('ui.clear') : undefined}>
        <input
          {...input}
          id={id}
          type={type}
          className={cx('field__input', inputClassName)}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy}
        />
        {showsClearButton(props) ? (
          // Hidden until the field island runs: without JavaScript the button could not clear anything.
          <button type="button" className="field__clear" data-clear="" aria-label={t('ui.clear')} aria-controls={id} hidden>
            <Icon name="close" />
          </button>
        ) : null}
        {trailing}
      </div>
      {hint ? (
        <p className="field__hint" id={hintId}>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p className="field__error" id={errorId}>
          {error}
        </p>
      ) : null}
    </div>
  );
}
