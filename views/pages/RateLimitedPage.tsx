import { ROUTES } from '../../core/routes.ts';
import { Alert } from '../components/Alert.tsx';
import { Button } from '../components/Button.tsx';
import { useT } from '../context.ts';

/** Only same-origin paths are offered as "try again" targets. */
function safePath(url: string | undefined): string {
  return url?.startsWith('/') && !url.startsWith('//') && !url.includes('\\') ? url : ROUTES.signIn;
}

/**
 * Shown with a 429 when a guest form was used too often. `retryUrl` is the address of the form the
 * request came from (a same-origin path), so "Try again" brings the user back to it.
 */
export function RateLimitedPage(props: { minutes: number; retryUrl?: string }) {
  const t = useT();
  return (
    <main className="page page--center" data-page="rate-limited">
      <h1>{t('rateLimit.title')}</h1>
      <Alert variant="warning">
        <p>{t('rateLimit.message', { minutes: props.minutes })}</p>
      </Alert>
      <Button href={safePath(props.retryUrl)} variant="SECONDARY" size="MD">
        {t('rateLimit.retry')}
      </Button>
    </main>
  );
}

/**
 * The enhanced answer: the form island swaps the form with the same id, so the notice comes as that
 * form, holding the message where the fields were (announced as an alert) and a way back to the form.
 */
export function RateLimitedForm(props: { formId: string; minutes: number; retryUrl?: string }) {
  const t = useT();
  return (
    <form id={props.formId} className="flow-form flow-form--rate-limited" method="get" action={safePath(props.retryUrl).split('?')[0]}>
      <Alert variant="error" title={t('rateLimit.title')}>
        <p>{t('rateLimit.message', { minutes: props.minutes })}</p>
      </Alert>
      <Button href={safePath(props.retryUrl)} variant="SECONDARY" size="MD" fullWidth>
        {t('rateLimit.retry')}
      </Button>
    </form>
  );
}
