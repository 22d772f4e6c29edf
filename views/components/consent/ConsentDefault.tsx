import { CONSENT_WAIT_FOR_UPDATE_MS, consentState } from '../../../core/consent.ts';
import { useView } from '../../context.ts';

/**
 * Google Consent Mode v2 (spec §4): the `consent default` with all seven signals, inline and nonced in
 * the head, before any tag. The server already knows the answer: granted when non-essential cookies are
 * allowed, else everything but security denied until the choice sends `consent update`.
 */
export function ConsentDefault() {
  const { consent, nonce } = useView();
  if (!consent) return null;
  const state = JSON.stringify({ ...consentState(consent.allowed), wait_for_update: CONSENT_WAIT_FOR_UPDATE_MS });
  const script = `window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}gtag('consent','default',${state});`;
  return <script nonce={nonce} dangerouslySetInnerHTML={{ __html: script }} />;
}
