import { useT } from '../context.ts';
import { Field, type FieldProps } from './Field.tsx';
import { Icon } from './Icon.tsx';

export type PasswordInputProps = Omit<FieldProps, 'type'>;

/**
 * A password field with a show/hide toggle, which the page's head script runs (client/first-paint.ts).
 * It is `data-js-only` (decision 244), so without JavaScript this is a plain password field.
 */
export function PasswordInput(props: PasswordInputProps) {
  const t = useT();
  const show = t('authPage.showPassword');
  const hide = t('authPage.hidePassword');
  const toggle = (
    <button
      type="button"
      className="field__toggle"
      data-password-toggle=""
      data-label-show={show}
      data-label-hide={hide}
      aria-label={show}
      aria-controls={props.id}
      aria-pressed="false"
      data-js-only=""
    >
      <Icon name="eye" className="icon field__eye" />
      <Icon name="eyeOff" className="icon field__eye-off" />
    </button>
  );
  return <Field {...props} type="password" trailing={toggle} island="password" inputClassName="field__input--password" />;
}
