import { Avatar } from '../components/Avatar.tsx';
import { Button } from '../components/Button.tsx';
import { Checkbox } from '../components/Checkbox.tsx';
import { LoadingOverlay } from '../components/LoadingOverlay.tsx';
import { Tooltip } from '../components/Tooltip.tsx';
import { AuthCard } from '../components/flow/AuthCard.tsx';
import { useCachedT } from '../components/flow/labels.ts';
import { useView } from '../context.ts';

export type ConsentScope = { scope: string; label: string };

/**
 * GET /consent?consent_challenge=: an app (an OAuth2 client) asks to use the account. Its name and logo,
 * what it asks for in plain words, "remember my choice", Allow / Deny. One form posting back with our
 * CSRF token; the pressed button says which (the form island sends the same fields).
 */
export function ConsentPage(props: {
  action: string;
  challenge: string;
  clientName: string;
  logoUri?: string;
  account?: string;
  scopes: readonly ConsentScope[];
}) {
  const t = useCachedT();
  const { csrfToken } = useView();
  return (
    <AuthCard
      page="consent"
      title={t('oauth2.consent.title', { client: props.clientName })}
      subtitle={props.account ? t('oauth2.consent.as', { account: props.account }) : undefined}
    >
      <div className="consent__client">
        <Avatar name={props.clientName} src={props.logoUri} size="LG" variant="rounded" />
      </div>
      <p className="consent__intro">{t('oauth2.consent.intro', { client: props.clientName })}</p>
      <ul className="consent__scopes">
        {props.scopes.map((scope) => (
          <li key={scope.scope} data-scope={scope.scope}>
            {scope.label}
          </li>
        ))}
      </ul>
      <form id="consent-form" method="post" action={props.action} data-island="form">
        <input type="hidden" name="_csrf" value={csrfToken ?? ''} />
        <input type="hidden" name="consent_challenge" value={props.challenge} />
        <div className="consent__remember">
          <Checkbox id="consent-remember" name="remember" value="true" label={t('oauth2.consent.remember')} />
          <Tooltip id="consent-remember-help" content={t('oauth2.consent.rememberHelp', { client: props.clientName })}>
            {t('oauth2.consent.rememberHelpTrigger')}
          </Tooltip>
        </div>
        <div className="auth-card__actions">
          <Button type="submit" name="decision" value="allow" variant="PRIMARY" fullWidth>
            {t('oauth2.consent.allow')}
          </Button>
          <Button type="submit" name="decision" value="deny" variant="SECONDARY" fullWidth>
            {t('oauth2.consent.deny')}
          </Button>
        </div>
      </form>
      {/* Allow and Deny both send the browser on to the app: the overlay shows that hand-off. */}
      <LoadingOverlay open={false} id="consent-loading" follows="consent-form" />
    </AuthCard>
  );
}
