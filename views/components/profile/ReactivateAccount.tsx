import { ROUTES } from '../../../core/routes.ts';
import { useT, useView } from '../../context.ts';
import { Alert } from '../Alert.tsx';
import { Button } from '../Button.tsx';
import { longDate } from './long-date.ts';

/**
 * Shown instead of the settings when a signed-in account is waiting for deletion (its grace period
 * has not ended): restore it, or sign out and let the deletion go ahead. Met on the way from a sign-in,
 * it carries where the sign-in was going (returnTo), to go on there once restored; signing out instead
 * (signOutHref) declines an app's consent that was waiting (server/routes/consent-on-sign-out.ts).
 */
export function ReactivateAccount(props: { scheduledAt: string | null; error?: string; returnTo?: string; signOutHref?: string }) {
  const t = useT();
  const { csrfToken, lang } = useView();
  const date = props.scheduledAt ? longDate(lang, props.scheduledAt) : '';
  return (
    <section className="profile-section profile-reactivate" id="reactivate" aria-labelledby="reactivate-title">
      <h1 className="profile-section__title" id="reactivate-title">
        {t('profile.reactivate.title')}
      </h1>
      <p>{date ? t('profile.reactivate.text', { date }) : t('profile.reactivate.textNoDate')}</p>
      {props.error ? <Alert variant="error">{props.error}</Alert> : null}
      <form id="reactivate-form" method="post" action={ROUTES.reactivate} data-enhance="">
        {csrfToken ? <input type="hidden" name="_csrf" value={csrfToken} /> : null}
        {props.returnTo ? <input type="hidden" name="return_to" value={props.returnTo} /> : null}
        <Button type="submit" variant="PRIMARY" size="LG">
          {t('profile.reactivate.button')}
        </Button>
      </form>
      <p className="profile-reactivate__leave">
        <a href={props.signOutHref ?? ROUTES.logout}>{t('profile.reactivate.signOut')}</a>
      </p>
    </section>
  );
}
