import { FORM_IDS } from '../../../core/form-ids.ts';
import { useT } from '../../context.ts';
import { Alert } from '../Alert.tsx';
import { Button } from '../Button.tsx';
import { ProviderMark } from '../flow/ProviderMark.tsx';
import { providerName, type LinkedLogin } from './linked-logins.ts';
import { useFixedT } from './fixed-texts.ts';
import { ProfileSection } from './ProfileSection.tsx';

export type LinkedLoginsView = {
  /** Our handler of the settings flow, /profile-settings?flow=<id>. */
  action: string;
  /** The flow's `csrf_token` node (Kratos checks it on the submit). */
  csrfToken: string;
  logins: LinkedLogin[];
  /** Whether the account also signs in with e-mail and password (undefined: not known). */
  hasPassword?: boolean;
  /** "You signed up with …" (the service the account was created with, translated). */
  signedUpWith?: string;
  /** How the last link or unlink went, translated. */
  notice?: { variant: 'success' | 'error'; text: string };
};

function LoginRow(props: { login: LinkedLogin }) {
  const t = useT();
  const fixedT = useFixedT(); // provider names come from the configured login services
  const { login } = props;
  const name = providerName(t, login.provider, login.label);
  const reasonId = `logins-${login.provider}-reason`;
  return (
    <li className="profile-logins__item" data-provider={login.provider} data-linked={login.linked ? 'true' : 'false'}>
      <ProviderMark provider={login.provider} />
      <span className="profile-logins__label">
        <span className="profile-logins__name">{name}</span>
        <span className="profile-logins__state">{login.linked ? t('profile.linkedLogins.state.linked') : t('profile.linkedLogins.state.notLinked')}</span>
      </span>
      {login.action === 'link' ? (
        <Button name="link" value={login.provider} variant="SECONDARY" size="SM">
          {fixedT('profile.linkedLogins.link', { provider: name })}
        </Button>
      ) : (
        // Kratos offers no unlink for the last way in: the button stays, disabled, with the reason under it.
        <Button
          name="unlink"
          value={login.provider}
          variant="TERTIARY"
          size="SM"
          disabled={login.action === 'lastWayIn'}
          aria-describedby={login.action === 'lastWayIn' ? reasonId : undefined}
        >
          {fixedT('profile.linkedLogins.unlink', { provider: name })}
        </Button>
      )}
      {login.action === 'lastWayIn' ? (
        <p className="profile-logins__reason" id={reasonId}>
          {fixedT('profile.linkedLogins.lastWayIn', { provider: name })}
        </p>
      ) : null}
    </li>
  );
}

/**
 * The account's login services, each with its name, whether it is linked, and a Link or Unlink button.
 * One form posts either button to the settings flow (method=oidc, link=<id> | unlink=<id>): without
 * JavaScript a plain post answered with a 303 (to the provider, or back here); with it the form island
 * posts it and follows the answer with a full navigation.
 */
export function LinkedLoginsSection(props: LinkedLoginsView) {
  const t = useT();
  const fixedT = useFixedT();
  return (
    <ProfileSection id="logins" className="profile-logins" title={t('profile.linkedLogins.title')} description={t('profile.linkedLogins.description')}>
      <form id={FORM_IDS.profileLogins} className="profile-logins__form" method="post" action={props.action} data-island="form">
        {props.notice ? (
          <Alert variant={props.notice.variant} data-logins-notice={props.notice.variant}>
            <p>{props.notice.text}</p>
          </Alert>
        ) : null}
        {props.signedUpWith ? <p className="profile-logins__current">{fixedT('profile.linkedLogins.signedUpWith', { service: props.signedUpWith })}</p> : null}
        <input type="hidden" name="csrf_token" value={props.csrfToken} />
        <input type="hidden" name="method" value="oidc" />
        {props.logins.length > 0 ? (
          <ul className="profile-logins__list">
            {props.hasPassword ? (
              <li className="profile-logins__item" data-provider="password" data-linked="true">
                <span className="provider-mark" aria-hidden="true" />
                <span className="profile-logins__label">
                  <span className="profile-logins__name">{t('profile.linkedLogins.password')}</span>
                  <span className="profile-logins__state">{t('profile.linkedLogins.state.passwordSet')}</span>
                </span>
              </li>
            ) : null}
            {props.logins.map((login) => (
              <LoginRow key={login.provider} login={login} />
            ))}
          </ul>
        ) : (
          <p className="profile-logins__none">{t('profile.linkedLogins.none')}</p>
        )}
      </form>
    </ProfileSection>
  );
}
