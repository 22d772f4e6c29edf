import { pathWithQuery, ROUTES } from '../../../core/routes.ts';
import { useT, useView } from '../../context.ts';
import { Button } from '../Button.tsx';
import { longDate } from './long-date.ts';

/** After a deletion request: when it happens, and that signing in before then restores the account. */
export function AccountDeletedNotice(props: { scheduledAt: string | null; graceDays: number }) {
  const t = useT();
  const { lang } = useView();
  const date = props.scheduledAt ? longDate(lang, props.scheduledAt) : '';
  return (
    <main className="page page--auth" data-page="account-deleted">
      <section className="auth-card">
        <h1 className="auth-card__title">{t('profile.deleted.title')}</h1>
        <p>{date ? t('profile.deleted.text', { date }) : t('profile.deleted.textNoDate', { days: props.graceDays })}</p>
        <p>{t('profile.deleted.restore', { days: props.graceDays })}</p>
        {/* Back to the profile once signed in, where the restore is offered (decision 040): the sign-in alone went on to the product. */}
        <Button href={pathWithQuery(ROUTES.signIn, { return_to: ROUTES.profile })} variant="PRIMARY" fullWidth>
          {t('profile.deleted.signIn')}
        </Button>
      </section>
    </main>
  );
}
