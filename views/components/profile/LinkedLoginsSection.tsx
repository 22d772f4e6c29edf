import { FORM_IDS } from '../../../core/form-ids.ts';
import type { UiContainer } from '../../../core/kratos/types.ts';
import { useT } from '../../context.ts';
import { FlowForm } from '../flow/FlowForm.tsx';
import { hasGroup, loginProviders, sectionUi } from './flow-sections.ts';
import { ProfileSection } from './ProfileSection.tsx';

const PROVIDER_NAMES: Record<string, string> = { google: 'Google', microsoft: 'Microsoft', dropbox: 'Dropbox', apple: 'Apple' };

export function providerDisplayName(provider: string): string {
  return PROVIDER_NAMES[provider] ?? provider.charAt(0).toUpperCase() + provider.slice(1);
}

/**
 * The social login services of the account: which are linked, with a link or unlink button each, as the
 * settings flow's `oidc` nodes offer them (Kratos refuses to unlink the last way to sign in, so it sends
 * no unlink button then). Without configured providers the section says so.
 */
export function LinkedLoginsSection(props: { ui: UiContainer; action: string; withErrors: boolean; loginService?: string }) {
  const t = useT();
  const providers = loginProviders(props.ui);
  return (
    <ProfileSection id="logins" title={t('profile.logins.title')} description={t('profile.logins.description')}>
      {props.loginService ? <p className="profile-logins__current">{t('profile.logins.signedUpWith', { service: props.loginService })}</p> : null}
      {providers.length > 0 ? (
        <ul className="profile-logins__list">
          {providers.map(({ provider, linked }) => (
            <li key={provider} className="profile-logins__item" data-provider={provider} data-linked={linked ? 'true' : 'false'}>
              <span className="profile-logins__name">{providerDisplayName(provider)}</span>
              <span className="profile-logins__state">{linked ? t('profile.logins.linked') : t('profile.logins.notLinked')}</span>
            </li>
          ))}
        </ul>
      ) : null}
      {hasGroup(props.ui, 'oidc') ? (
        <FlowForm id={FORM_IDS.profileLogins} action={props.action} ui={sectionUi(props.ui, 'oidc', { withErrors: props.withErrors })} />
      ) : (
        <p className="profile-logins__none">{t('profile.logins.none')}</p>
      )}
    </ProfileSection>
  );
}
