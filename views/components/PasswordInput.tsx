import { useT } from '../context.ts';
import { Field, type FieldProps } from './Field.tsx';
import { Icon } from './Icon.tsx';

export type PasswordInputProps = Omit<FieldProps, 'type'>;

/**
 * A password field with a show/hide toggle. The toggle is hidden until the password island runs, so
 * without JavaScript this is a plain password field.
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
      hidden
    >
      <Icon name="eye" className="icon field__eye" />
      <Icon name="eyeOff" className="icon field__eye-off" />
    </button>
  );
  return <Field {...props} type="password" trailing={toggle} island="password" inputClassName="field__input--password" />;
}
