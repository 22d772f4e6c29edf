import { FORM_IDS } from '../../core/form-ids.ts';
import { AuthCard } from '../components/flow/AuthCard.tsx';
import { FlowForm, type FlowFormProps } from '../components/flow/FlowForm.tsx';
import { useT } from '../context.ts';

export type ResendFormProps = Omit<FlowFormProps, 'id'>;

/** The fragment the form island swaps: the form only. */
export function ResendVerificationForm(props: ResendFormProps) {
  return <FlowForm {...props} id={FORM_IDS.resendVerification} />;
}

/**
 * Asks for the email and sends a new verification code. The wording never says whether the address
 * has an account: the answer is the same either way (the next screen asks for the code).
 */
export function ResendVerificationPage(props: { form: ResendFormProps; signInHref: string }) {
  const t = useT();
  return (
    <AuthCard
      page="resend-verification"
      title={t('resend.title')}
      subtitle={t('resend.subtitle')}
      footer={
        <p>
          <a href={props.signInHref} data-link="sign-in">
            {t('resend.backToSignIn')}
          </a>
        </p>
      }
    >
      <ResendVerificationForm {...props.form} />
    </AuthCard>
  );
}
