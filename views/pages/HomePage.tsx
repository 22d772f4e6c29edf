import { Avatar } from '../components/Avatar.tsx';
import { Button } from '../components/Button.tsx';
import { AuthCard } from '../components/flow/AuthCard.tsx';
import { useCachedT } from '../components/flow/labels.ts';

/** The minimal signed-in home, shown until the document app's URL is configured. */
export function HomePage(props: { email?: string; name?: string }) {
  const t = useCachedT();
  const who = props.name || props.email || '';
  return (
    <AuthCard page="home" title={t('home.title', { name: who })} subtitle={props.email ? t('authPage.signedInAs', { email: props.email }) : undefined}>
      <div className="home__identity">
        <Avatar name={who} size="XL" />
      </div>
      <nav className="auth-card__actions" aria-label={t('home.navigation')}>
        <Button href="/profile-settings" variant="PRIMARY" fullWidth data-link="profile-settings">
          {t('authPage.profileSettings')}
        </Button>
        <Button href="/logout" variant="SECONDARY" fullWidth data-link="logout">
          {t('authPage.signOut')}
        </Button>
      </nav>
    </AuthCard>
  );
}
