// App-bridge island, an entry of its own: only the mobile gateway's callback page loads it (decision 140;
// views/pages/GatewayPages.tsx, `data-island="app-bridge"`). It posts the authorization result to the
// mobile app's web view: react-native-webview's `window.ReactNativeWebView`, or a WKWebView script
// message handler of the same name. Without a bridge it does nothing: the page already says to return
// to the app. Kept under 0.5 KB gzip.

type Poster = { postMessage(message: string): void };
type BridgeWindow = Window & { ReactNativeWebView?: Poster; webkit?: { messageHandlers?: Record<string, Poster | undefined> } };

/** The handler name a WKWebView app registers (react-native-webview registers the same one on iOS). */
const HANDLER = 'ReactNativeWebView';

const island = document.querySelector<HTMLElement>('[data-island=app-bridge]');
const host = window as BridgeWindow;
const bridge = host.ReactNativeWebView ?? host.webkit?.messageHandlers?.[HANDLER];

if (island && bridge) {
  const data = island.dataset;
  bridge.postMessage(JSON.stringify({ type: 'authentication', status: data.status, code: data.code, state: data.state, error: data.error }));
  island.querySelector<HTMLElement>('[data-bridge-sent]')!.hidden = false;
  island.querySelector<HTMLElement>('[data-bridge-message]')!.hidden = true;
}
