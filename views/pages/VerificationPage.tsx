import { FORM_IDS } from '../../core/form-ids.ts';
import type { UiText } from '../../core/kratos/types.ts';
import { Alert } from '../components/Alert.tsx';
import { Button } from '../components/Button.tsx';
import { AuthCard } from '../components/flow/AuthCard.tsx';
import { FlowForm, type FlowFormProps } from '../components/flow/FlowForm.tsx';
import { isSecondarySubmit, isSubmitNode } from '../components/flow/FlowNode.tsx';
import { useT } from '../context.ts';

/** Kratos 4070001: the link or code was used already — for our users, "already verified" (spec §8). */
const ALREADY_VERIFIED = 4070001;

export type VerificationFormProps = Omit<FlowFormProps, 'id' | 'messageAction'> & { signInHref: string };

/** The fragment the form island swaps: the form only. */
export function VerificationForm(props: VerificationFormProps) {
  const t = useT();
  const { signInHref, ...form } = props;
  return (
    <FlowForm
      {...form}
      id={FORM_IDS.verification}
      messageAction={(message: UiText) =>
        message.id === ALREADY_VERIFIED ? (
          <a className="alert__link" href={signInHref} data-link="sign-in">
            {t('verification.signIn')}
          </a>
        ) : null
      }
    />
  );
}

export type VerificationPageProps = {
  /** Kratos flow state: choose_method (ask for the email), sent_email (enter the code), passed_challenge. */
  state: string;
  /** The flow's method: `code` (enter it here) or `link` (open the emailed link). */
  method?: string;
  form: VerificationFormProps;
  /** The address the code went to, when the flow names it. */
  email?: string;
  /** Where "Continue" leads after success: into the product when signed in, else to sign-in. */
  continueHref: string;
  signedIn: boolean;
  resendHref: string;
  signInHref: string;
};

export function VerificationPage(props: VerificationPageProps) {
  const t = useT();
  if (props.state === 'passed_challenge') {
    return (
      <AuthCard page="verification" title={t('verification.successTitle')}>
        <Alert variant="success">
          <p>{t('verification.success')}</p>
        </Alert>
        <Button href={props.continueHref} fullWidth data-link="continue">
          {props.signedIn ? t('verification.continue') : t('verification.continueToSignIn')}
        </Button>
      </AuthCard>
    );
  }
  const subtitle =
    props.state === 'sent_email'
      ? props.method === 'link'
        ? t('verification.subtitleLinkSent')
        : props.email
          ? t('verification.subtitleSentTo', { email: props.email })
          : t('verification.subtitleSent')
      : t('verification.subtitleEmail');
  // Kratos's "Send a new code" in the form already does what the footer's link offers: one way, not two.
  const resendsInForm = props.form.ui.nodes.some((node) => isSubmitNode(node) && isSecondarySubmit(node) && node.attributes.name !== 'screen');
  return (
    <AuthCard
      page="verification"
      title={t('verification.title')}
      subtitle={subtitle}
      footer={
        <>
          {resendsInForm ? null : (
            <p>
              <a href={props.resendHref} data-link="resend">
                {t('verification.resendLink')}
              </a>
            </p>
          )}
          <p>
            <a href={props.signInHref} data-link="sign-in">
              {t('verification.backToSignIn')}
            </a>
          </p>
        </>
      }
    >
      <VerificationForm {...props.form} />
    </AuthCard>
  );
}
