import { FORM_IDS } from '../../core/form-ids.ts';
import { Button } from '../components/Button.tsx';
import { AuthCard } from '../components/flow/AuthCard.tsx';
import { useView } from '../context.ts';
import { useCachedT } from '../components/flow/labels.ts';

/**
 * GET /logout: signing out changes state, so it only happens on a POST carrying our CSRF token (a link
 * or image on another site cannot sign anyone out). The form is marked `data-auto-submit` so the form
 * island can send it at once; without JavaScript the user presses the button. With `consentChallenge`
 * (the restore offer's sign-out on the way to an app) the post declines that app's consent too.
 */
export function LogoutPage(props: { action: string; consentChallenge?: string }) {
  const t = useCachedT();
  const { csrfToken } = useView();
  return (
    <AuthCard page="logout" title={t('logout.title')} subtitle={t('logout.text')}>
      <form id={FORM_IDS.logout} method="post" action={props.action} data-island="form" data-auto-submit="">
        <input type="hidden" name="_csrf" value={csrfToken ?? ''} />
        {props.consentChallenge ? <input type="hidden" name="consent_challenge" value={props.consentChallenge} /> : null}
        <Button type="submit" variant="PRIMARY" fullWidth>
          {t('authPage.signOut')}
        </Button>
      </form>
      <p className="auth-card__aside">
        <a href="/">{t('logout.cancel')}</a>
      </p>
    </AuthCard>
  );
}
