import { Button } from '../components/Button.tsx';
import { AuthCard } from '../components/flow/AuthCard.tsx';
import { useCachedT } from '../components/flow/labels.ts';
import { useView } from '../context.ts';

/**
 * GET /logout?logout_challenge=: an app asked to sign the user out (OpenID RP-initiated logout). Yes
 * ends the app's sign-in and ours; No leaves both. Unlike the plain sign-out page, never sent by itself.
 * Signed out here already (signedIn false), it says Yes ends the app's sign-in only.
 */
export function OAuth2LogoutPage(props: { action: string; challenge: string; clientName?: string; signedIn: boolean }) {
  const t = useCachedT();
  const { csrfToken } = useView();
  const title = props.clientName ? t('oauth2.logout.title', { client: props.clientName }) : t('oauth2.logout.titleAll');
  return (
    <AuthCard page="oauth2-logout" title={title} subtitle={t(props.signedIn ? 'oauth2.logout.text' : 'oauth2.logout.textSignedOut')}>
      <form id="oauth2-logout-form" method="post" action={props.action} data-island="form">
        <input type="hidden" name="_csrf" value={csrfToken ?? ''} />
        <input type="hidden" name="logout_challenge" value={props.challenge} />
        <div className="auth-card__actions">
          <Button type="submit" name="decision" value="accept" variant="PRIMARY" fullWidth>
            {t('oauth2.logout.yes')}
          </Button>
          <Button type="submit" name="decision" value="cancel" variant="SECONDARY" fullWidth>
            {t('oauth2.logout.no')}
          </Button>
        </div>
      </form>
    </AuthCard>
  );
}
