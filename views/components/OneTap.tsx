/**
 * Google One Tap's hook on a page (decision 120): a hidden form the one-tap island (client/islands/one-tap.ts,
 * loaded only with this markup) fills with Google's credential and posts. `g_csrf_token` repeats the
 * cookie the server set (Google's double-submit rule); `data-nonce` is the nonce Google puts in the ID
 * token and Kratos compares; `data-gsi-loaded` appears once the script has loaded or failed.
 * Without JavaScript nothing shows and nothing loads.
 */
export type OneTapOffer = {
  action: string;
  clientId: string;
  nonce: string;
  csrfToken: string;
  scriptUrl: string;
  /** `request_google_sign_in`: prompt as soon as the island runs. */
  promptNow: boolean;
};

export function OneTap(props: { offer: OneTapOffer }) {
  const { offer } = props;
  return (
    <form
      id="one-tap"
      method="post"
      action={offer.action}
      hidden
      data-island="one-tap"
      data-src={offer.scriptUrl}
      data-client-id={offer.clientId}
      data-nonce={offer.nonce}
      data-prompt={offer.promptNow ? 'now' : undefined}
    >
      <input type="hidden" name="credential" />
      <input type="hidden" name="g_csrf_token" value={offer.csrfToken} />
    </form>
  );
}
