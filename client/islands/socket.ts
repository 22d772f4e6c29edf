// The live-session client (spec §4, §9): the Socket.IO protocol (Engine.IO 4 + Socket.IO 5) over a
// WebSocket, in under 1 KB gzip (the official client is 13–15 KB). Only what the channel needs:
// events as text, no acks, no binary, no long-polling. Each connection fetches a fresh authorization
// token, sends `init` with it, and after `authenticated` joins the user's room and replays what was
// emitted meanwhile, once and in order. A lost connection is retried for ever, 1–5 s apart (±50 %).
import {
  CONNECT_TIMEOUT_MS,
  EVENT_AUTHENTICATED,
  EVENT_INIT,
  EVENT_JOIN,
  RECONNECT_DELAY_MAX_MS,
  RECONNECT_DELAY_MS,
  RECONNECT_RANDOMIZATION,
} from '../../core/live-session.ts';

/**
 * One frame: [kind, event, data]. Kinds: Engine.IO `0` open (data: its handshake), `1` close, `2`
 * ping; Socket.IO (inside Engine.IO message `4`) `40` connect, `41` disconnect, `42` event.
 */
export type Frame = [kind: string, event?: string, data?: unknown];

/** An event as a frame: Engine.IO "message" (4) carrying a Socket.IO EVENT (2) on the main namespace. */
export const encodeEvent = (event: string, data?: unknown): string => '42' + JSON.stringify(data === undefined ? [event] : [event, data]);

export function decodeFrame(text: string): Frame {
  const kind = text.slice(0, 2);
  // An ack id may sit between the type and the array: `421["event",…]`.
  if (kind === '42') return [kind, ...(JSON.parse(text.slice(2).replace(/^\d+/, '')) as [string, unknown])];
  if (text[0] === '0') return ['0', '', JSON.parse(text.slice(1))];
  return [text[0] === '4' ? kind : text];
}

/** socket.io-client's backoff (backo2): 1000·2^attempt, ±50 % from one random draw, at most 5000 ms. */
export function backoffDelay(attempt: number, random = Math.random()): number {
  const ms = RECONNECT_DELAY_MS * 2 ** Math.min(attempt, 8);
  const deviation = Math.floor(random * RECONNECT_RANDOMIZATION * ms);
  return Math.min(Math.floor(random * 10) & 1 ? ms + deviation : ms - deviation, RECONNECT_DELAY_MAX_MS);
}

export type LiveSocketOptions = {
  /** ws(s)://host/socket.io/?EIO=4&transport=websocket */
  url: string;
  /** A fresh authorization token; null when the session is gone (then onSignedOut, and no more attempts). */
  token(): Promise<string | null>;
  onSignedOut(): void;
};

export function liveSocket(options: LiveSocketOptions) {
  const handlers: Record<string, Array<(data: unknown) => void>> = {};
  const queue: string[] = [];
  let ws: WebSocket | undefined;
  let authenticated = false;
  let stopped = false;
  let attempts = 0;
  let retryTimer: ReturnType<typeof setTimeout>;

  const retry = () => {
    if (!stopped) retryTimer = setTimeout(connect, backoffDelay(attempts++));
  };

  async function connect(): Promise<void> {
    let token: string | null;
    try {
      token = await options.token();
    } catch {
      return retry();
    }
    if (token === null) {
      stopped = true;
      return options.onSignedOut();
    }
    if (stopped) return;
    const socket = (ws = new WebSocket(options.url));
    let pingWindow = CONNECT_TIMEOUT_MS;
    // Until authenticated: the 20 s connect timeout; then the server's ping interval + ping timeout.
    let watchdog = setTimeout(() => socket.close(), pingWindow);
    socket.onmessage = (message) => {
      clearTimeout(watchdog);
      const frame = decodeFrame(String(message.data));
      const kind = frame[0];
      if (kind === '0') {
        const open = frame[2] as { pingInterval: number; pingTimeout: number };
        pingWindow = open.pingInterval + open.pingTimeout;
        socket.send('40');
      }
      if (kind === '2') socket.send('3');
      if (kind === '40') socket.send(encodeEvent(EVENT_INIT, { authorization: token }));
      if (kind === '42') {
        if (frame[1] === EVENT_AUTHENTICATED) {
          authenticated = true;
          attempts = 0;
          socket.send(encodeEvent(EVENT_JOIN));
          for (const queued of queue.splice(0)) socket.send(queued);
        }
        for (const handler of handlers[frame[1]!] || []) handler(frame[2]);
      }
      watchdog = setTimeout(() => socket.close(), authenticated ? pingWindow : CONNECT_TIMEOUT_MS);
    };
    socket.onclose = () => {
      clearTimeout(watchdog);
      if (ws === socket) {
        ws = undefined;
        authenticated = false;
        retry();
      }
    };
  }

  void connect();
  return {
    /** Sends at once when authenticated, else queued and sent after the next `authenticated`. */
    emit(event: string, data?: unknown): void {
      const frame = encodeEvent(event, data);
      if (authenticated) ws!.send(frame);
      else queue.push(frame);
    },
    on(event: string, handler: (data: unknown) => void): void {
      (handlers[event] = handlers[event] || []).push(handler);
    },
    close(): void {
      stopped = true;
      clearTimeout(retryTimer);
      ws?.close();
    },
  };
}
