import { Fragment } from 'react';
import { Alert } from '../components/Alert.tsx';
import { AuthCard } from '../components/flow/AuthCard.tsx';
import { useCachedT } from '../components/flow/labels.ts';
import { useView } from '../context.ts';

/** Where a desktop app's loopback listener sends the browser once it holds the code (decision 140). */
export function GatewayDonePage() {
  const t = useCachedT();
  return (
    <AuthCard page="gateway-done" title={t('gateway.doneTitle')}>
      <Alert variant="success">
        <p>{t('gateway.doneText')}</p>
      </Alert>
    </AuthCard>
  );
}

/**
 * A long token as text the line can break in (a <wbr> every 8 characters): a ~90-character code has no break
 * point, and pushed a 390 px page to 961 px. The text, copied or read, is the token itself. No CSS rule: the
 * guest stylesheet every guest page inlines has no bytes to spare (issue 17's 15 KB).
 */
function Breakable(props: { text: string }) {
  const chunks = props.text.match(/.{1,8}/gsu) ?? [];
  return chunks.map((chunk, index) => (
    <Fragment key={index}>
      {index > 0 ? <wbr /> : null}
      {chunk}
    </Fragment>
  ));
}

export type GatewayResult = { status: 'success'; code: string; state: string } | { status: 'error'; error: string; state?: string };

/**
 * The end of the mobile app's authorization (decision 140). The result is on the page as text (JavaScript
 * off, or no bridge: the user goes back to the app) and in data attributes the app-bridge island posts to
 * the web view. The island is loaded only here (`bridgeScript`).
 */
export function GatewayCallbackPage(props: { result: GatewayResult; bridgeScript?: string }) {
  const t = useCachedT();
  const { nonce } = useView();
  const { result } = props;
  const success = result.status === 'success';
  return (
    <AuthCard page="gateway-callback" title={success ? t('gateway.callbackTitle') : t('gateway.callbackErrorTitle')}>
      <div
        data-island="app-bridge"
        data-status={result.status}
        data-code={success ? result.code : undefined}
        data-state={result.state}
        data-error={success ? undefined : result.error}
      >
        <Alert variant={success ? 'success' : 'error'}>
          <p data-bridge-message>{success ? t('gateway.returnToApp') : t('gateway.callbackErrorText')}</p>
          <p hidden data-bridge-sent>
            {t('gateway.handedToApp')}
          </p>
        </Alert>
        <dl className="gateway-result">
          {success ? (
            <>
              <dt>{t('gateway.codeLabel')}</dt>
              <dd>
                <code id="gateway-code">
                  <Breakable text={result.code} />
                </code>
              </dd>
            </>
          ) : (
            <>
              <dt>{t('gateway.errorLabel')}</dt>
              <dd>
                <code id="gateway-error">
                  <Breakable text={result.error} />
                </code>
              </dd>
            </>
          )}
        </dl>
      </div>
      {props.bridgeScript ? <script type="module" nonce={nonce} src={props.bridgeScript} /> : null}
    </AuthCard>
  );
}
