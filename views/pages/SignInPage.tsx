import { FORM_IDS } from '../../core/form-ids.ts';
import type { Translate } from '../../core/kratos/messages.ts';
import { pathWithQuery, ROUTES } from '../../core/routes.ts';
import type { UiText } from '../../core/kratos/types.ts';
import { Button } from '../components/Button.tsx';
import { AuthCard } from '../components/flow/AuthCard.tsx';
import { FlowForm, type FlowFormProps } from '../components/flow/FlowForm.tsx';
import { useView } from '../context.ts';
import { useCachedT } from '../components/flow/labels.ts';

export type LastAccount = { email: string; name?: string };

export type SignInPageProps = {
  form: Omit<FlowFormProps, 'id' | 'beforeSubmit' | 'submitLabels' | 'socialDivider' | 'messageAction'>;
  signUpHref: string;
  forgotPasswordHref: string;
  /** The last-used account (cookie `last_access_account`), offered with a way to forget it. */
  lastAccount?: LastAccount;
  forgetAccountAction: string;
  /** This sign-in form with the remembered e-mail filled in. */
  continueAsHref?: string;
  /** Set on the page a logout lands on: the islands drop these localStorage keys. */
  clearStorage?: readonly string[];
  /** The e-mail typed, for the "resend verification" link under 4000010. */
  email?: string;
  context?: { from?: string; action?: string; platform?: string };
};

function resendLink(t: Translate, email?: string) {
  return (message: UiText) =>
    message.id === 4000010 ? (
      <a className="alert__link" href={pathWithQuery(ROUTES.resendVerification, { email })}>
        {t('authPage.resendVerificationEmail')}
      </a>
    ) : null;
}

/** The fragment the form island swaps: only the form. */
export function SignInForm(props: Pick<SignInPageProps, 'form' | 'forgotPasswordHref' | 'email'>) {
  const t = useCachedT();
  return (
    <FlowForm
      {...props.form}
      id={FORM_IDS.signIn}
      socialDivider={t('authPage.or')}
      submitLabels={{ 'method:password': t('authPage.signIn') }}
      messageAction={resendLink(t, props.email)}
      beforeSubmit={
        <p className="flow-form__aside">
          <a href={props.forgotPasswordHref} data-link="forgot-password">
            {t('authPage.forgotPassword')}
          </a>
        </p>
      }
    />
  );
}

export function SignInPage(props: SignInPageProps) {
  const t = useCachedT();
  const { csrfToken } = useView();
  return (
    <AuthCard
      page="sign-in"
      title={t('authPage.signInTitle')}
      subtitle={t('signIn.subtitle')}
      clearStorage={props.clearStorage}
      context={props.context}
      footer={
        <p>
          {t('authPage.noAccount')}{' '}
          <a href={props.signUpHref} data-link="sign-up">
            {t('authPage.signUp')}
          </a>
        </p>
      }
    >
      {props.lastAccount ? (
        <section className="last-account" aria-label={t('authPage.rememberedAccount')}>
          <p className="last-account__label">{t('authPage.rememberedAccount')}</p>
          <a className="last-account__continue" href={props.continueAsHref} data-link="continue-as">
            {t('authPage.continueAs', { email: props.lastAccount.email })}
          </a>
          <form method="post" action={props.forgetAccountAction} className="last-account__forget">
            <input type="hidden" name="_csrf" value={csrfToken ?? ''} />
            <Button type="submit" variant="HYPERLINK" size="SM">
              {t('authPage.forgetAccount')}
            </Button>
          </form>
        </section>
      ) : null}
      <SignInForm form={props.form} forgotPasswordHref={props.forgotPasswordHref} email={props.email} />
    </AuthCard>
  );
}
