import { FORM_IDS } from '../../../core/form-ids.ts';
import type { UiContainer } from '../../../core/kratos/types.ts';
import { useT } from '../../context.ts';
import { Alert } from '../Alert.tsx';
import { FlowForm } from '../flow/FlowForm.tsx';
import { sectionUi } from './flow-sections.ts';
import { ProfileSection } from './ProfileSection.tsx';

/**
 * Spec §3 password change kinds:
 * - default: the account signs in with e-mail and password; change it here.
 * - changedPassword: just changed (shown once after the save), with the form still there for another change.
 * - changeLoginService: the account was created with a social login service and has no password of its own
 *   yet; setting one adds e-mail and password sign-in next to that service.
 */
export type PasswordKind = 'default' | 'changedPassword' | 'changeLoginService';

export function PasswordSection(props: {
  ui: UiContainer;
  action: string;
  kind: PasswordKind;
  loginService?: string;
  withErrors: boolean;
  fieldErrors?: Record<string, string[]>;
  /** The flow came from account recovery: explain why the password is asked for first. */
  recoveryNotice?: string;
}) {
  const t = useT();
  const setting = props.kind === 'changeLoginService';
  return (
    <ProfileSection
      id="password"
      className={`profile-password profile-password--${props.kind}`}
      title={setting ? t('profile.password.setTitle') : t('profile.password.title')}
      description={setting ? t('profile.password.setDescription', { service: props.loginService ?? '' }) : t('profile.password.description')}
    >
      {props.recoveryNotice ? <Alert variant="info">{props.recoveryNotice}</Alert> : null}
      {props.kind === 'changedPassword' ? (
        <Alert variant="success" data-password-kind="changedPassword">
          {t('profile.password.changed')}
        </Alert>
      ) : null}
      <FlowForm
        id={FORM_IDS.profilePassword}
        action={props.action}
        ui={sectionUi(props.ui, 'password', { withErrors: props.withErrors })}
        fieldErrors={props.fieldErrors}
        submitLabels={{ 'method:password': setting ? t('profile.password.set') : t('profile.password.save') }}
      />
    </ProfileSection>
  );
}
