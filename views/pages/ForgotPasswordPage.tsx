import { FORM_IDS } from '../../core/form-ids.ts';
import { AuthCard } from '../components/flow/AuthCard.tsx';
import { FlowForm, type FlowFormProps } from '../components/flow/FlowForm.tsx';
import { useT } from '../context.ts';

export type ForgotPasswordFormProps = Omit<FlowFormProps, 'id'>;

/** The fragment the form island swaps: the form only. */
export function ForgotPasswordForm(props: ForgotPasswordFormProps) {
  return <FlowForm {...props} id={FORM_IDS.forgotPassword} />;
}

/**
 * Recovery, step one (email) and step two (the emailed code; with the link method, "open the link").
 * The texts never say whether the address has an account.
 */
export function ForgotPasswordPage(props: { state: string; method?: string; form: ForgotPasswordFormProps; signInHref: string }) {
  const t = useT();
  const sent = props.state === 'sent_email';
  return (
    <AuthCard
      page="forgot-password"
      title={sent ? t('recovery.codeTitle') : t('recovery.title')}
      subtitle={sent ? (props.method === 'link' ? t('recovery.linkSubtitle') : t('recovery.codeSubtitle')) : t('recovery.subtitle')}
      footer={
        <p>
          <a href={props.signInHref} data-link="sign-in">
            {t('recovery.backToSignIn')}
          </a>
        </p>
      }
    >
      <ForgotPasswordForm {...props.form} />
    </AuthCard>
  );
}
