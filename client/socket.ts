// Entry of the live-session island (its own bundle, loaded by views/components/LiveSession.tsx on
// signed-in pages only). `force-reload`, or a session found gone on reconnection, asks the page's
// session-changed dialog to open (client/islands/dialogs.ts listens for `session-changed`).
import { liveSocket } from './islands/socket.ts';
import { EVENT_FORCE_RELOAD, SOCKET_PATH } from '../core/live-session.ts';
import { startInTurn } from './lib/start-in-turn.ts';

startInTurn(() => {
  const root = document.querySelector<HTMLElement>('[data-island="live-session"]');
  if (!root) return;
  const changed = () => dispatchEvent(new Event('session-changed'));
  const url = new URL(SOCKET_PATH + '?EIO=4&transport=websocket', root.dataset.socketUrl || location.href);
  url.protocol = url.protocol.replace('http', 'ws');
  liveSocket({
    url: url.href,
    async token() {
      const answer = await fetch(root.dataset.tokenUrl!, { headers: { accept: 'application/json' } });
      if (answer.status === 401) return null;
      if (!answer.ok) throw answer.status;
      return ((await answer.json()) as { token: string }).token;
    },
    onSignedOut: changed,
  }).on(EVENT_FORCE_RELOAD, changed);
});
