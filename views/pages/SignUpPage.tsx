import { FORM_IDS } from '../../core/form-ids.ts';
import { EMAIL_EXISTS_IDS } from '../../core/kratos/messages.ts';
import { AuthCard } from '../components/flow/AuthCard.tsx';
import { FlowForm, type FlowFormProps } from '../components/flow/FlowForm.tsx';
import { Checkbox } from '../components/Checkbox.tsx';
import { Captcha, type CaptchaWidget } from '../components/Captcha.tsx';
import { useCachedT } from '../components/flow/labels.ts';

/** The terms summary from the `terms` namespace, already translated by the route. */
export type TermsSummary = {
  title: string;
  intro: string;
  sections: { id: string; title: string; items: string[] }[];
};

export type SignUpFormProps = {
  form: Omit<FlowFormProps, 'id' | 'beforeSubmit' | 'submitLabels' | 'socialDivider' | 'header'>;
  /**
   * 'ask': the terms checkbox (first screen); 'accepted': carried as a hidden field on the credential
   * screen of a two-step registration, which can only be reached through the first one.
   */
  terms: 'ask' | 'accepted' | 'none';
  termsError?: string;
  termsSummary: TermsSummary;
  /** A social sign-up Kratos sent back for missing details: that provider's name. */
  completeWith?: string;
  /** The reCAPTCHA widget, on the step that creates the account (decision 170). */
  captcha?: CaptchaWidget;
  /**
   * The e-mail entered has an account already: a link to sign in with it (spec §8: "shown with a link to
   * sign-in"), under the e-mail field, or in the form's message when the field is hidden (the credential step).
   */
  existingAccount?: { href: string; under: 'field' | 'form' };
};

export type SignUpPageProps = SignUpFormProps & { signInHref: string; context?: { from?: string; action?: string; platform?: string } };

function TermsText(props: { summary: TermsSummary }) {
  const t = useCachedT();
  return (
    <details className="terms-summary" id="terms">
      <summary>{t('signUp.readTerms')}</summary>
      <h2 className="terms-summary__title">{props.summary.title}</h2>
      <p>{props.summary.intro}</p>
      {props.summary.sections.map((section) => (
        <section key={section.id} className="terms-summary__section">
          <h3>{section.title}</h3>
          <ul>
            {section.items.map((item, index) => (
              <li key={index}>{item}</li>
            ))}
          </ul>
        </section>
      ))}
    </details>
  );
}

export function SignUpForm(props: SignUpFormProps) {
  const t = useCachedT();
  const existing = props.existingAccount;
  const existingLink = existing ? (
    <a className="alert__link" href={existing.href} data-link="sign-in-existing">
      {t('errorMessage.goToSignIn')}
    </a>
  ) : null;
  const terms =
    props.terms === 'ask' ? (
      <>
        <Checkbox
          id="field-terms"
          name="terms"
          value="on"
          required
          error={props.termsError}
          label={t('authPage.acceptTerms', { terms: t('authPage.termsOfUse'), privacy: t('authPage.privacyPolicy') })}
        />
        <TermsText summary={props.termsSummary} />
      </>
    ) : props.terms === 'accepted' ? (
      <input type="hidden" name="terms" value="on" />
    ) : null;
  return (
    <FlowForm
      {...props.form}
      id={FORM_IDS.signUp}
      afterField={existing?.under === 'field' ? { 'traits.email': <p className="field__hint">{existingLink}</p> } : undefined}
      messageAction={existing?.under === 'form' ? (message) => (EMAIL_EXISTS_IDS.has(message.id) ? existingLink : null) : undefined}
      header={
        props.completeWith ? (
          <p className="social-complete__intro" data-notice="social-complete">
            {t('social.completeText', { provider: props.completeWith })}
          </p>
        ) : undefined
      }
      socialDivider={t('authPage.or')}
      submitLabels={{
        'method:profile': t('authPage.continue'),
        'method:password': t('authPage.signUp'),
        'screen:previous': t('authPage.back'),
      }}
      beforeSubmit={
        <>
          {terms}
          {props.captcha ? <Captcha widget={props.captcha} /> : null}
        </>
      }
    />
  );
}

export function SignUpPage(props: SignUpPageProps) {
  const t = useCachedT();
  return (
    <AuthCard
      page="sign-up"
      context={props.context}
      title={props.completeWith ? t('social.completeTitle', { provider: props.completeWith }) : t('authPage.signUpTitle')}
      subtitle={props.completeWith ? undefined : t('signUp.subtitle')}
      footer={
        <p>
          {t('authPage.haveAccount')}{' '}
          <a href={props.signInHref} data-link="sign-in">
            {t('authPage.signIn')}
          </a>
        </p>
      }
    >
      <SignUpForm
        form={props.form}
        terms={props.terms}
        termsError={props.termsError}
        termsSummary={props.termsSummary}
        completeWith={props.completeWith}
        captcha={props.captcha}
        existingAccount={props.existingAccount}
      />
    </AuthCard>
  );
}
