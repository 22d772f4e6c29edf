import { Alert } from '../components/Alert.tsx';
import { Button } from '../components/Button.tsx';
import { AuthCard } from '../components/flow/AuthCard.tsx';
import { useCachedT } from '../components/flow/labels.ts';

/**
 * A failed OAuth2 step (a challenge Hydra does not know or that expired, a client error, Hydra down) or
 * the error Hydra sent the browser to (`/error?error=…`). `title` and `message` are ours, translated;
 * `detail` is the provider's own description, shown only as a technical detail (React escapes it).
 */
export function OAuth2ErrorPage(props: { title: string; message: string; code: string; detail?: string }) {
  const t = useCachedT();
  return (
    <AuthCard page="oauth2-error" title={props.title}>
      <Alert variant="error" data-error-code={props.code}>
        <p>{props.message}</p>
      </Alert>
      {props.detail ? (
        <details className="oauth2-error__detail">
          <summary>{t('oauth2.error.detail')}</summary>
          <code>{props.detail}</code>
        </details>
      ) : null}
      <div className="auth-card__actions">
        <Button href="/" variant="PRIMARY" size="LG" fullWidth>
          {t('flowError.home')}
        </Button>
      </div>
    </AuthCard>
  );
}
