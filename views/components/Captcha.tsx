import { useView } from '../context.ts';
import { IslandScript } from './IslandScript.tsx';

/** What the server gives a form that asks for the captcha (server/security/recaptcha.ts). */
export type CaptchaWidget = { siteKey: string; scriptUrl: string; fallbackUrl: string };

// Google's language codes where they differ from ours: our Portuguese is Portugal's (plain `pt` is Brazil's there).
const GOOGLE_LANGUAGE: Readonly<Record<string, string>> = { pt: 'pt-PT' };

/** The address with the page's language, so the widget and its fallback speak it rather than the browser's. */
function inLanguage(address: string, lang: string): string {
  const url = new URL(address);
  url.searchParams.set('hl', GOOGLE_LANGUAGE[lang] ?? lang);
  return url.toString();
}

/**
 * The reCAPTCHA v2 widget (decision 170): Google's script renders it into `.g-recaptcha` and adds the
 * `g-recaptcha-response` field the form posts. Without JavaScript, Google's fallback: its check in a frame
 * gives a code to paste into the same field (noscript content is inert when scripts run, so the field is
 * never there twice). The captcha island renders a fresh widget after the form island swaps the form.
 */
export function Captcha(props: { widget: CaptchaWidget }) {
  const { nonce, t, lang } = useView();
  return (
    <div className="captcha" role="group" aria-label={t('captcha.label')}>
      <div className="g-recaptcha" data-sitekey={props.widget.siteKey} />
      <script nonce={nonce} src={inLanguage(props.widget.scriptUrl, lang)} async defer />
      <noscript>
        <p>{t('captcha.noscript')}</p>
        <iframe className="captcha__fallback-frame" src={inLanguage(props.widget.fallbackUrl, lang)} title={t('captcha.label')} />
        <label className="field__label" htmlFor="g-recaptcha-response-fallback">
          {t('captcha.noscriptField')}
        </label>
        <textarea id="g-recaptcha-response-fallback" name="g-recaptcha-response" className="captcha__fallback-field" />
      </noscript>
      <IslandScript name="captcha" />
    </div>
  );
}
