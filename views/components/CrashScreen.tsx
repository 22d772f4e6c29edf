import { useT, useView } from '../context.ts';
import { BrandLogo } from './BrandLogo.tsx';
import { Button } from './Button.tsx';
import { IslandScript } from './IslandScript.tsx';

/**
 * Spec §2 crash screen: 'Something went wrong', the apology, and Retry, which reloads the page
 * (a link to the same address without JavaScript, location.reload() with it).
 */
export function CrashScreen(props: { requestId?: string; /** Inside another page (the kit): a section, not the page's main. */ embedded?: boolean }) {
  const t = useT();
  const { url, requestId } = useView();
  const id = props.requestId ?? requestId;
  const Root = props.embedded ? 'section' : 'main';
  return (
    <Root className={props.embedded ? 'crash' : 'page page--center crash'} role="alert">
      <BrandLogo className="crash__logo" size={48} />
      <h1 className="crash__title">{t('crash.title')}</h1>
      <p className="crash__text">{t('crash.text')}</p>
      <Button href={url} variant="PRIMARY" size="LG" data-reload="">
        {t('crash.retry')}
      </Button>
      {id ? <p className="muted crash__ref">{t('crash.requestId', { id })}</p> : null}
      {/* Reload (not a new visit) when JavaScript runs: the dialog island handles data-reload. */}
      <IslandScript name="dialogs" />
    </Root>
  );
}
