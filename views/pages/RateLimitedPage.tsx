import { Alert } from '../components/Alert.tsx';
import { Button } from '../components/Button.tsx';
import { useT } from '../context.ts';

/**
 * Shown with a 429 when a guest form was used too often. `retryUrl` is the address of the form the
 * request came from (a same-origin path), so "Try again" brings the user back to it.
 */
export function RateLimitedPage(props: { minutes: number; retryUrl?: string }) {
  const t = useT();
  const retryUrl = props.retryUrl?.startsWith('/') && !props.retryUrl.startsWith('//') ? props.retryUrl : '/sign-in';
  return (
    <main className="page page--center" data-page="rate-limited">
      <h1>{t('rateLimit.title')}</h1>
      <Alert variant="warning">
        <p>{t('rateLimit.message', { minutes: props.minutes })}</p>
      </Alert>
      <Button href={retryUrl} variant="SECONDARY" size="MD">
        {t('rateLimit.retry')}
      </Button>
    </main>
  );
}
