import { FORM_IDS } from '../../core/form-ids.ts';
import { Alert } from '../components/Alert.tsx';
import { Button } from '../components/Button.tsx';
import { AuthCard } from '../components/flow/AuthCard.tsx';
import { FlowForm, type FlowFormProps } from '../components/flow/FlowForm.tsx';
import { useT } from '../context.ts';

export type ResetPasswordFormProps = Omit<FlowFormProps, 'id'>;

/** The fragment the form island swaps: the form only. */
export function ResetPasswordForm(props: ResetPasswordFormProps) {
  return <FlowForm {...props} id={FORM_IDS.resetPassword} />;
}

/**
 * Recovery, last step: the settings flow Kratos opened after the code, narrowed to the new password.
 * Once saved (`done`), a confirmation with the way on.
 */
export function ResetPasswordPage(props: { done: boolean; form: ResetPasswordFormProps; continueHref: string }) {
  const t = useT();
  if (props.done) {
    return (
      <AuthCard page="reset-password" title={t('recovery.doneTitle')}>
        <Alert variant="success">
          <p>{t('recovery.done')}</p>
        </Alert>
        <Button href={props.continueHref} fullWidth data-link="continue">
          {t('recovery.continue')}
        </Button>
      </AuthCard>
    );
  }
  return (
    <AuthCard page="reset-password" title={t('recovery.resetTitle')} subtitle={t('recovery.resetSubtitle')}>
      <ResetPasswordForm {...props.form} />
    </AuthCard>
  );
}
