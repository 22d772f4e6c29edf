import { Button } from '../components/Button.tsx';
import { AuthCard } from '../components/flow/AuthCard.tsx';
import { useCachedT } from '../components/flow/labels.ts';

/**
 * GET /sign-in/google-one-tap: a Google credential another surface handed over in a link (`?credential=`)
 * signs nobody in by itself: whoever sent the link could have put their own account in it (login CSRF).
 * The user sees which account it is and confirms with a post carrying the double-submit token
 * (decision 120). The e-mail comes from the token unverified; Kratos verifies the token on the post.
 */
export function OneTapConfirmPage(props: { action: string; csrfToken: string; email?: string; otherWayHref: string }) {
  const t = useCachedT();
  return (
    <AuthCard
      page="one-tap-confirm"
      title={t('oneTap.confirmTitle')}
      subtitle={props.email ? t('oneTap.confirmAs', { email: props.email }) : t('oneTap.confirmUnnamed')}
    >
      <form method="post" action={props.action}>
        <input type="hidden" name="g_csrf_token" value={props.csrfToken} />
        <input type="hidden" name="handed_over" value="1" />
        <Button type="submit" variant="PRIMARY" fullWidth>
          {t('oneTap.continue')}
        </Button>
      </form>
      <p className="auth-card__aside">
        <a href={props.otherWayHref}>{t('oneTap.otherWay')}</a>
      </p>
    </AuthCard>
  );
}
