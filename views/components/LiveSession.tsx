import { useView } from '../context.ts';
import { IslandScript } from './IslandScript.tsx';
import { isSessionDialogSuppressed, SessionChangedDialog } from './SessionChangedDialog.tsx';
import { ROUTES } from '../../core/routes.ts';

export type LiveSessionView = {
  /** A fingerprint of the Kratos session (never its id or a token): the cross-tab watch's key. */
  sessionKey: string;
  /** SOCKET_URL, when the socket lives on another host; else the app's own /socket.io/. */
  socketUrl?: string;
};

/**
 * On signed-in pages: the session-changed dialog (closed) and the live-session island, which opens it
 * on `force-reload` (spec §4). The island fetches its token from /live-session/token, so no token is
 * ever in the page. Nothing at all on authentication gateway paths.
 */
export function LiveSession(props: LiveSessionView) {
  const { url } = useView();
  if (isSessionDialogSuppressed(url)) return null;
  return (
    <div data-island="live-session" data-token-url={ROUTES.liveSessionToken} data-socket-url={props.socketUrl}>
      <SessionChangedDialog sessionKey={props.sessionKey} />
      <IslandScript name="socket" />
    </div>
  );
}
