import { ROUTES } from '../../../core/routes.ts';
import { useT } from '../../context.ts';
import { Avatar } from '../Avatar.tsx';
import { Brand } from '../Brand.tsx';

/**
 * The signed-in header of the profile screens: who is signed in, with their avatar. The avatar island
 * updates every `[data-user-avatar]` when the picture changes, so this one follows an upload at once.
 */
export function ProfileHeader(props: { name: string; email: string; avatarUrl?: string | null }) {
  const t = useT();
  const display = props.name || props.email;
  return (
    <header className="profile-header">
      <Brand className="profile-header__brand" href={ROUTES.home} />
      <a className="profile-header__home" href={ROUTES.home}>
        {t('profile.header.home')}
      </a>
      <div className="profile-header__user" data-user-avatar="" data-user-name={display}>
        <Avatar name={display} src={props.avatarUrl ?? undefined} size="SM" />
        <span className="profile-header__name">{display}</span>
      </div>
      <a className="profile-header__sign-out" href={ROUTES.logout}>
        {t('profile.header.signOut')}
      </a>
    </header>
  );
}
