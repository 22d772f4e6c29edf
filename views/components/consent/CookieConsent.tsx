import { FORM_IDS } from '../../../core/form-ids.ts';
import { ROUTES } from '../../../core/routes.ts';
import { useView } from '../../context.ts';
import { Button } from '../Button.tsx';
import { IslandScript } from '../IslandScript.tsx';

/** What the server decided for this page (server/consent/decision.ts), with what the islands need. */
export type ConsentView = {
  allowed: boolean;
  banner: boolean;
  /** The tag manager's script address with its id, when GTM_ID is set. */
  gtmSrc?: string;
  logUrl?: string;
};

/**
 * The consent banner and the analytics island's settings (decision 170). The banner is a form of two
 * buttons posting the choice, so it works without JavaScript; with it, the banner island answers in place.
 * A labelled region near the top of the body: reached early by keyboard, announced by screen readers.
 * The analytics island loads from this markup only once non-essential cookies are allowed; after an
 * accept, the banner island loads it (its address is on the settings element).
 */
export function CookieConsent() {
  const { consent, t, csrfToken, url, islandScripts } = useView();
  if (!consent) return null;
  return (
    <>
      <div
        hidden
        data-island="analytics"
        data-src={islandScripts?.analytics}
        data-gtm-src={consent.gtmSrc}
        data-log-url={consent.logUrl}
        data-sign-in-form={FORM_IDS.signIn}
        data-sign-up-form={FORM_IDS.signUp}
      />
      {consent.banner ? (
        <section className="cookie-banner" aria-labelledby="cookie-banner-title" aria-describedby="cookie-banner-text" data-island="cookie-banner">
          <h2 id="cookie-banner-title" className="cookie-banner__title">
            {t('cookieConsent.title')}
          </h2>
          <p id="cookie-banner-text" className="cookie-banner__text">
            {t('cookieConsent.text')}
          </p>
          <form className="cookie-banner__actions" method="post" action={ROUTES.cookieConsent}>
            {csrfToken ? <input type="hidden" name="_csrf" value={csrfToken} /> : null}
            <input type="hidden" name="return_to" value={url} />
            <Button name="choice" value="accept" size="MD">
              {t('cookieConsent.accept')}
            </Button>
            <Button name="choice" value="decline" size="MD" variant="SECONDARY">
              {t('cookieConsent.decline')}
            </Button>
          </form>
          <IslandScript name="consent-banner" />
        </section>
      ) : null}
      {consent.allowed ? <IslandScript name="analytics" /> : null}
    </>
  );
}
