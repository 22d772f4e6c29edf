import { ROUTES } from '../../core/routes.ts';
import { Alert } from '../components/Alert.tsx';
import { Button } from '../components/Button.tsx';
import { AuthCard } from '../components/flow/AuthCard.tsx';
import { useCachedT } from '../components/flow/labels.ts';

/**
 * A Kratos flow error (`/error?id=`) or any flow failure that has no form to show it in. `message` is
 * already translated; `retryHref` (a same-origin path) restarts the flow the user came from.
 */
export function FlowErrorPage(props: { message: string; code?: string; retryHref?: string }) {
  const t = useCachedT();
  const retry = props.retryHref?.startsWith('/') && !props.retryHref.startsWith('//') ? props.retryHref : ROUTES.signIn;
  return (
    <AuthCard page="flow-error" title={t('flowError.title')}>
      <Alert variant="error" data-error-code={props.code}>
        <p>{props.message}</p>
      </Alert>
      <div className="auth-card__actions">
        <Button href={retry} variant="PRIMARY" size="LG" fullWidth>
          {t('flowError.retry')}
        </Button>
        <Button href="/" variant="TERTIARY" size="LG" fullWidth>
          {t('flowError.home')}
        </Button>
      </div>
    </AuthCard>
  );
}
