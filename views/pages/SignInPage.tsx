import { FORM_IDS } from '../../core/form-ids.ts';
import type { Translate } from '../../core/kratos/messages.ts';
import { pathWithQuery, ROUTES } from '../../core/routes.ts';
import type { UiText } from '../../core/kratos/types.ts';
import { Alert } from '../components/Alert.tsx';
import { Button } from '../components/Button.tsx';
import { AuthCard } from '../components/flow/AuthCard.tsx';
import { FlowForm, type FlowFormProps } from '../components/flow/FlowForm.tsx';
import { Captcha, type CaptchaWidget } from '../components/Captcha.tsx';
import { useView } from '../context.ts';
import { useCachedT } from '../components/flow/labels.ts';
import type { AccountLink } from '../../core/kratos/account-link.ts';
import { AccountLinkedNotice, AccountLinkPanel } from '../components/flow/AccountLinkPanel.tsx';

export type LastAccount = { email: string; name?: string };

/** What the notice above the sign-in form is about (its `data-notice`) and what it says. */
export type SignInNotice = { kind: 'social-start' | 'signed-out'; text: string };

type SignInFormProps = Omit<FlowFormProps, 'id' | 'beforeSubmit' | 'submitLabels' | 'socialDivider' | 'messageAction' | 'header' | 'socialNote'>;

/** The spec §4 sequence on this form: its state and where Cancel leads. */
export type AccountLinkView = { link: AccountLink; cancelHref: string };

export type SignInPageProps = {
  form: SignInFormProps;
  accountLink?: AccountLinkView;
  /** Provider buttons are shown: say what continuing with one means for the terms. */
  socialNote?: boolean;
  /** A notice above the form: a social sign-in asked for by a link that needs the user's click first, or the sign-out this page follows. */
  notice?: SignInNotice;
  /** Absent on a re-authentication (refresh) flow: the person has an account and is signed in. */
  signUpHref?: string;
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
  /** The reCAPTCHA widget, after repeated failures (decision 170). */
  captcha?: CaptchaWidget;
};

function resendLink(t: Translate, email?: string) {
  return (message: UiText) =>
    message.id === 4000010 ? (
      <a className="alert__link" href={pathWithQuery(ROUTES.resendVerification, { email })}>
        {t('authPage.resendVerificationEmail')}
      </a>
    ) : null;
}

/** What continuing with a provider means: it may create the account, under our terms. */
export function SocialTermsNote() {
  const t = useCachedT();
  return <p className="social-note">{t('social.termsNotice', { terms: t('authPage.termsOfUse'), privacy: t('authPage.privacyPolicy') })}</p>;
}

/** The fragment the form island swaps: only the form (the account-link sequence inside it). */
export function SignInForm(props: Pick<SignInPageProps, 'form' | 'forgotPasswordHref' | 'email' | 'accountLink' | 'socialNote' | 'notice' | 'captcha'>) {
  const t = useCachedT();
  const linking = props.accountLink && props.accountLink.link.state !== 'INITIAL';
  const header = linking ? (
    <AccountLinkPanel link={props.accountLink!.link} cancelHref={props.accountLink!.cancelHref} />
  ) : props.notice ? (
    <Alert variant="info" data-notice={props.notice.kind}>
      <p>{props.notice.text}</p>
    </Alert>
  ) : undefined;
  return (
    <FlowForm
      {...props.form}
      id={FORM_IDS.signIn}
      header={header}
      socialDivider={t('authPage.or')}
      socialNote={props.socialNote && !linking ? <SocialTermsNote /> : undefined}
      // On the link sequence the password button is Kratos's "Sign in and link" (1010017).
      submitLabels={{ 'method:password': linking ? t('kratos.1010017') : t('authPage.signIn') }}
      messageAction={resendLink(t, props.email)}
      beforeSubmit={
        <>
          <p className="flow-form__aside">
            <a href={props.forgotPasswordHref} data-link="forgot-password">
              {t('authPage.forgotPassword')}
            </a>
          </p>
          {props.captcha ? <Captcha widget={props.captcha} /> : null}
        </>
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
        props.signUpHref ? (
          <p>
            {t('authPage.noAccount')}{' '}
            <a href={props.signUpHref} data-link="sign-up">
              {t('authPage.signUp')}
            </a>
          </p>
        ) : undefined
      }
    >
      {props.lastAccount ? (
        <section className="last-account" aria-label={t('authPage.rememberedAccount')}>
          <p className="last-account__label">{t('authPage.rememberedAccount')}</p>
          <a className="last-account__continue" href={props.continueAsHref} data-link="continue-as" title={props.lastAccount.email}>
            <ContinueAs text={t('authPage.continueAs', { email: EMAIL_SLOT })} email={props.lastAccount.email} />
          </a>
          <form method="post" action={props.forgetAccountAction} className="last-account__forget">
            <input type="hidden" name="_csrf" value={csrfToken ?? ''} />
            <Button type="submit" variant="HYPERLINK" size="SM">
              {t('authPage.forgetAccount')}
            </Button>
          </form>
        </section>
      ) : null}
      <SignInForm
        form={props.form}
        forgotPasswordHref={props.forgotPasswordHref}
        email={props.email}
        accountLink={props.accountLink}
        socialNote={props.socialNote}
        notice={props.notice}
        captcha={props.captcha}
      />
    </AuthCard>
  );
}

/** SUCCESS of the account-link sequence: the provider is linked; continue to where the user was going. */
export function AccountLinkedPage(props: { provider?: string; continueHref: string }) {
  const t = useCachedT();
  return (
    <AuthCard page="account-linked" title={t('accountLink.successTitle')}>
      <AccountLinkedNotice provider={props.provider} continueHref={props.continueHref} />
    </AuthCard>
  );
}

/** Stands for the address in the translated sentence, so the address can be set apart whatever the word order. */
const EMAIL_SLOT = '\u0000';

/** "Continue as <address>": the address never breaks mid-word on a phone; a long one ends in an ellipsis (the link's title holds it whole). */
function ContinueAs(props: { text: string; email: string }) {
  const [before = '', after = ''] = props.text.split(EMAIL_SLOT);
  return (
    <>
      {before}
      <span className="last-account__email">{props.email}</span>
      {after}
    </>
  );
}
