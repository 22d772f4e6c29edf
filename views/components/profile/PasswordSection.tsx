import { FORM_IDS } from '../../../core/form-ids.ts';
import type { UiContainer } from '../../../core/kratos/types.ts';
import { useT, useView } from '../../context.ts';
import { Alert } from '../Alert.tsx';
import { FlowForm } from '../flow/FlowForm.tsx';
import { Tooltip } from '../Tooltip.tsx';
import { sectionUi } from './flow-sections.ts';
import { ProfileSection } from './ProfileSection.tsx';
import { longDate } from './long-date.ts';

/**
 * Spec §3 password change kinds (how the server decides: server/routes/profile/account-facts.ts):
 * - default: the account signs in with e-mail and password and has never changed it here; change it.
 * - changedPassword: the password was changed here before (the date is shown); change it again.
 * - changeLoginService: the account signs in only with a login service and has no password yet;
 *   setting one adds e-mail and password as another way in.
 */
export type PasswordKind = 'default' | 'changedPassword' | 'changeLoginService';

export function PasswordSection(props: {
  ui: UiContainer;
  action: string;
  kind: PasswordKind;
  /** The translated name of the login service the account signs in with (changeLoginService). */
  loginService?: string;
  email: string;
  /** When the password was last changed (changedPassword). */
  changedAt?: string;
  /** Shown once, right after the save: the password was changed, or set for the first time. */
  justSaved?: 'changed' | 'set';
  withErrors: boolean;
  fieldErrors?: Record<string, string[]>;
  /** The flow came from account recovery: explain why the password is asked for first. */
  recoveryNotice?: string;
}) {
  const t = useT();
  const { lang } = useView();
  const key = `profile.password.kind.${props.kind}`;
  const date = props.changedAt ? longDate(lang, props.changedAt) : '';
  const service = props.loginService ?? t('errorMessage.unknownThirdParty');
  return (
    <ProfileSection
      id="password"
      className={`profile-password profile-password--${props.kind}`}
      title={t(`${key}.title`)}
      description={t(`${key}.description`, { service, email: props.email, date })}
    >
      {props.recoveryNotice ? <Alert variant="info">{props.recoveryNotice}</Alert> : null}
      {props.justSaved === 'changed' ? (
        <Alert variant="success" data-password-kind="changedPassword">
          {t('profile.password.changed')}
        </Alert>
      ) : null}
      {props.justSaved === 'set' ? (
        <Alert variant="success" data-password-set="true">
          {t('profile.password.set', { email: props.email })}
        </Alert>
      ) : null}
      <FlowForm
        id={FORM_IDS.profilePassword}
        action={props.action}
        ui={sectionUi(props.ui, 'password', { withErrors: props.withErrors })}
        fieldErrors={props.fieldErrors}
        submitLabels={{ 'method:password': t(`${key}.submit`) }}
        beforeSubmit={
          <Tooltip id="password-rules" content={t('profile.password.rules')}>
            {t('profile.password.rulesTrigger')}
          </Tooltip>
        }
      />
    </ProfileSection>
  );
}
