import { FORM_IDS } from '../../core/form-ids.ts';
import { LIMITS } from '../../core/limits.ts';
import { ROUTES } from '../../core/routes.ts';
import { Alert } from '../components/Alert.tsx';
import { Button } from '../components/Button.tsx';
import { Checkbox } from '../components/Checkbox.tsx';
import { AuthCard } from '../components/flow/AuthCard.tsx';
import { PasswordInput } from '../components/PasswordInput.tsx';
import { TextInput } from '../components/TextInput.tsx';
import { useT, useView } from '../context.ts';

export type InvitationFormProps = {
  token: string;
  email: string;
  name?: string;
  /** Translated errors by field (name, password, terms). */
  fieldErrors?: Partial<Record<'name' | 'password' | 'terms', string>>;
  /** A translated form-level error, with an optional link to sign in. */
  formError?: string;
  signInHref?: string;
};

/**
 * Sign-up with an invitation: the e-mail comes from the invitation and is shown locked (it has no
 * `name`, so nothing the browser sends can change it); the server reads the address from the token.
 */
export function InvitationForm(props: InvitationFormProps) {
  const t = useT();
  const { csrfToken } = useView();
  return (
    <form id={FORM_IDS.invitation} className="flow-form" method="post" action={ROUTES.invitation} data-enhance="" noValidate>
      {csrfToken ? <input type="hidden" name="_csrf" value={csrfToken} /> : null}
      <input type="hidden" name="token" value={props.token} />
      {props.formError ? (
        <Alert variant="error">
          <p>{props.formError}</p>
          {props.signInHref ? <a href={props.signInHref}>{t('invitation.signIn')}</a> : null}
        </Alert>
      ) : null}
      <TextInput
        id="invitation-email"
        name=""
        label={t('authPage.email')}
        type="email"
        defaultValue={props.email}
        readOnly
        hint={t('invitation.emailLocked')}
      />
      <TextInput
        id="invitation-name"
        name="name"
        label={t('authPage.name')}
        defaultValue={props.name}
        autoComplete="name"
        maxLength={LIMITS.nameMax}
        error={props.fieldErrors?.name}
      />
      <PasswordInput
        id="invitation-password"
        name="password"
        label={t('authPage.password')}
        autoComplete="new-password"
        required
        maxLength={LIMITS.passwordMax}
        hint={t('authPage.passwordHint')}
        error={props.fieldErrors?.password}
      />
      <Checkbox
        id="invitation-terms"
        name="terms"
        value="on"
        required
        error={props.fieldErrors?.terms}
        label={t('authPage.acceptTerms', { terms: t('authPage.termsOfUse'), privacy: t('authPage.privacyPolicy') })}
      />
      <div className="flow-form__actions">
        <Button type="submit" variant="PRIMARY" fullWidth>
          {t('invitation.submit')}
        </Button>
      </div>
    </form>
  );
}

export type InvitationProblem = 'missing' | 'invalid' | 'used' | 'expired' | 'unavailable';

export function InvitationPage(props: { form?: InvitationFormProps; problem?: InvitationProblem }) {
  const t = useT();
  if (props.problem || !props.form) {
    const problem = props.problem ?? 'invalid';
    return (
      <>
        <AuthCard page="invitation-invalid" title={t('invitation.invalidTitle')}>
          <Alert variant="error" data-error-code={problem}>
            <p>{t(`invitation.${problem}`)}</p>
          </Alert>
          <div className="auth-card__actions">
            <Button href="/sign-in" variant="PRIMARY" fullWidth>
              {t('invitation.signIn')}
            </Button>
            <Button href="/sign-up" variant="TERTIARY" fullWidth>
              {t('invitation.signUpInstead')}
            </Button>
          </div>
        </AuthCard>
      </>
    );
  }
  return (
    <>
      <AuthCard
        page="invitation"
        title={t('invitation.title')}
        subtitle={t('invitation.subtitle', { email: props.form.email })}
        footer={
          <p>
            {t('invitation.haveAccount')} <a href={`/sign-in?loginHint=${encodeURIComponent(props.form.email)}`}>{t('invitation.signIn')}</a>
          </p>
        }
      >
        <InvitationForm {...props.form} />
      </AuthCard>
    </>
  );
}
