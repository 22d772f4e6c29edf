import type { UiContainer } from '../../core/kratos/types.ts';
import { useT } from '../context.ts';
import { Alert } from '../components/Alert.tsx';
import { AvatarSection } from '../components/profile/AvatarSection.tsx';
import { DeleteAccountSection } from '../components/profile/DeleteAccountSection.tsx';
import { SignOutEverywhereSection } from '../components/profile/SignOutEverywhereSection.tsx';
import { LinkedLoginsSection, type LinkedLoginsView } from '../components/profile/LinkedLoginsSection.tsx';
import { NameSection } from '../components/profile/NameSection.tsx';
import { PasswordSection, type PasswordKind } from '../components/profile/PasswordSection.tsx';
import { ProfileHeader } from '../components/profile/ProfileHeader.tsx';
import { ReactivateAccount } from '../components/profile/ReactivateAccount.tsx';

export type ProfileSettingsView = {
  email: string;
  name: string;
  avatarUrl: string | null;
  /** The user service could not be reached: the avatar cannot change right now. */
  backendUnavailable?: boolean;
  avatarError?: string;
  /** Form-level notices above the sections (already translated). */
  notices?: { variant: 'info' | 'warning' | 'error' | 'success'; text: string }[];
  settings: {
    ui: UiContainer;
    flowId: string;
    /** Our handler for every settings form: /profile-settings?flow=<id>. */
    action: string;
    /** Which form was just submitted and failed (it alone shows the flow's form-level errors). */
    failedMethod?: 'profile' | 'password' | 'oidc';
    /** Our own checks before Kratos, translated, by field name. */
    fieldErrors?: Record<string, string[]>;
  };
  password: {
    kind: PasswordKind;
    /** The translated name of the service the account signs in with, when it has no password. */
    loginService?: string;
    changedAt?: string;
    justSaved?: 'changed' | 'set';
  };
  linkedLogins: LinkedLoginsView;
  /** Opened from account recovery: the password comes first. */
  recovered?: string;
  confirmDelete: boolean;
  graceDays: number;
};

/** /profile-settings: avatar, name, password, linked logins and account deletion. */
export function ProfileSettingsPage(props: ProfileSettingsView) {
  const t = useT();
  const { ui, action, failedMethod, fieldErrors } = props.settings;
  const display = props.name || props.email;
  const avatar = (
    <AvatarSection
      key="avatar"
      name={display}
      avatarUrl={props.avatarUrl}
      error={props.avatarError}
      unavailable={props.backendUnavailable}
      flowId={props.settings.flowId}
    />
  );
  const name = <NameSection key="name" ui={ui} action={action} withErrors={failedMethod === 'profile'} fieldErrors={fieldErrors} />;
  const password = (
    <PasswordSection
      key="password"
      ui={ui}
      action={action}
      kind={props.password.kind}
      loginService={props.password.loginService}
      email={props.email}
      changedAt={props.password.changedAt}
      justSaved={props.password.justSaved}
      withErrors={failedMethod === 'password'}
      fieldErrors={fieldErrors}
      recoveryNotice={props.recovered}
    />
  );
  const sections = props.recovered ? [password, avatar, name] : [avatar, name, password];
  return (
    <>
      <main className="page page--profile" data-page="profile-settings">
        <ProfileHeader name={props.name} email={props.email} avatarUrl={props.avatarUrl} />
        <h1 className="profile-title">{t('profile.title')}</h1>
        {(props.notices ?? []).map((notice, index) => (
          <Alert key={index} variant={notice.variant}>
            {notice.text}
          </Alert>
        ))}
        {sections}
        <LinkedLoginsSection {...props.linkedLogins} />
        <SignOutEverywhereSection />
        <DeleteAccountSection confirmOpen={props.confirmDelete} graceDays={props.graceDays} cancelHref={action} />
      </main>
    </>
  );
}

/** The same screen while the account waits for deletion: only the offer to restore it. */
export function ReactivateAccountPage(props: {
  email: string;
  name: string;
  avatarUrl: string | null;
  scheduledAt: string | null;
  error?: string;
  returnTo?: string;
  signOutHref?: string;
}) {
  return (
    <>
      <main className="page page--profile" data-page="reactivate-account">
        <ProfileHeader name={props.name} email={props.email} avatarUrl={props.avatarUrl} />
        <ReactivateAccount scheduledAt={props.scheduledAt} error={props.error} returnTo={props.returnTo} signOutHref={props.signOutHref} />
      </main>
    </>
  );
}
