// The live-session channel's server (spec §4): Socket.IO over WebSocket only (no long-polling, so no
// sticky sessions behind a load balancer), on the app's own HTTP server at /socket.io/. A socket
// sends `init` with the tokenizer JWT, gets `authenticated`, then `join` puts it in its user's room
// (and its session's). `force-reload` to a room reaches every instance through the Redis adapter when
// REDIS_URL is set. With SOCKET_URL the sockets live on that host instead: this server is then never
// attached, and its emits reach the host through the same Redis adapter (the host must use it too).
import type http from 'node:http';
import type { Logger } from 'pino';
import { Server, type Socket } from 'socket.io';
import type { Config } from '../config.ts';
import { closeRedis, redisClient, type RedisClient } from '../redis.ts';
import { resilientSubscriber } from './resilient-subscriber.ts';
import { tokenVerifier, type LiveIdentity, type TokenVerifier } from './token.ts';
import {
  EVENT_AUTHENTICATED,
  EVENT_FORCE_RELOAD,
  EVENT_INIT,
  EVENT_JOIN,
  EVENT_UNAUTHORIZED,
  SOCKET_AUTH_DEADLINE_MS,
  SOCKET_PATH,
  sessionRoom,
  userRoom,
} from '../../core/live-session.ts';

/** Whom a force-reload is for: a user's every socket, or one browser's (its identity session), less one session's. */
export type ForceReloadTarget = { identityId?: string; sessionId?: string; exceptSessionId?: string };

export type LiveSessions = {
  /** The Socket.IO server (attached to the app's HTTP server by attachLiveSessions). */
  io: Server;
  /** Sends `force-reload` to the target's sockets on every instance. Never throws: a lost message is logged. */
  forceReload(target: ForceReloadTarget, reason: string): void;
  /** False while the Redis fan-out is down (always true without REDIS_URL). */
  isReady(): boolean;
  close(): Promise<void>;
};

/** The key of the Redis adapter's channels; an external socket host (SOCKET_URL) uses the same. */
export const ADAPTER_KEY = 'accounts:socket.io';
const MAX_MESSAGE_BYTES = 16 * 1024;

type SocketState = { identity?: LiveIdentity; verifying?: boolean };

function handshake(socket: Socket, verify: TokenVerifier, logger: Logger): void {
  const state: SocketState = {};
  const deadline = setTimeout(() => socket.disconnect(true), SOCKET_AUTH_DEADLINE_MS);
  socket.on('disconnect', () => clearTimeout(deadline));
  socket.on(EVENT_INIT, async (message: unknown) => {
    // One verification at a time per socket: a flood of `init`s costs one signature check.
    if (state.identity || state.verifying) return;
    state.verifying = true;
    const token = message && typeof message === 'object' ? (message as { authorization?: unknown }).authorization : undefined;
    const identity = await verify(token);
    state.verifying = false;
    if (!socket.connected) return;
    if (!identity) {
      logger.debug({ socket: socket.id }, 'live session: token refused');
      socket.emit(EVENT_UNAUTHORIZED, { code: 'invalid_token' });
      socket.disconnect(true);
      return;
    }
    clearTimeout(deadline);
    state.identity = identity;
    socket.data.identityId = identity.identityId;
    socket.emit(EVENT_AUTHENTICATED);
  });
  // The room is the verified token's: whatever the client names, it only ever joins its own.
  socket.on(EVENT_JOIN, () => {
    if (!state.identity) return;
    const rooms = [userRoom(state.identity.identityId)];
    if (state.identity.sessionId) rooms.push(sessionRoom(state.identity.sessionId));
    void socket.join(rooms);
  });
}

/**
 * Browsers must come from our own pages (clients without an Origin, apps and tests, carry a token all
 * the same), and an instance takes at most MAX_SOCKETS: each costs about 16 KB of heap, and past what
 * the heap was sized for (README, "Live sessions") the process would run out of memory. A refused page
 * keeps retrying with its backoff, and the cross-tab watch still warns it in the meantime.
 */
function admission(config: Config, connected: () => number) {
  const allowed = new Set([new URL(config.PUBLIC_URL).origin]);
  return (req: http.IncomingMessage, callback: (error: string | null | undefined, success: boolean) => void) => {
    const origin = req.headers.origin;
    callback(null, (origin === undefined || allowed.has(origin)) && connected() < config.MAX_SOCKETS);
  };
}

export async function createLiveSessions(config: Config, logger: Logger, options: { verify?: TokenVerifier } = {}): Promise<LiveSessions> {
  const verify = options.verify ?? tokenVerifier(config);
  const io: Server = new Server({
    path: SOCKET_PATH,
    transports: ['websocket'],
    allowUpgrades: false,
    serveClient: false,
    maxHttpBufferSize: MAX_MESSAGE_BYTES,
    // `io` exists by the time a request comes: the count is read per connection.
    allowRequest: admission(config, () => io.engine.clientsCount),
    connectTimeout: SOCKET_AUTH_DEADLINE_MS,
  });
  let clients: RedisClient[] = [];
  if (config.REDIS_URL) {
    const { createAdapter } = await import('@socket.io/redis-adapter');
    const pub = await redisClient(config.REDIS_URL, logger, 'socket fan-out (publish)');
    const sub = await redisClient(config.REDIS_URL, logger, 'socket fan-out (subscribe)');
    clients = [pub, sub];
    io.adapter(createAdapter(pub, resilientSubscriber(sub, logger), { key: ADAPTER_KEY, requestsTimeout: 2_000 }));
  }
  io.on('connection', (socket) => handshake(socket, verify, logger));
  let closing: Promise<void> | undefined;
  return {
    io,
    forceReload(target, reason) {
      const rooms = [target.identityId && userRoom(target.identityId), target.sessionId && sessionRoom(target.sessionId)].filter((room): room is string =>
        Boolean(room),
      );
      if (rooms.length === 0) return;
      try {
        const to = io.to(rooms);
        (target.exceptSessionId ? to.except(sessionRoom(target.exceptSessionId)) : to).emit(EVENT_FORCE_RELOAD);
        logger.info({ why: reason, rooms: rooms.length }, 'live session: force-reload sent');
      } catch (error) {
        logger.warn({ err: { message: (error as Error).message }, why: reason }, 'live session: force-reload could not be sent');
      }
    },
    isReady: () => clients.every((client) => client.isReady),
    close() {
      closing ??= (async () => {
        // Not io.close(): that would close the app's HTTP server too, which main.ts drains on its own.
        for (const socket of io.of('/').sockets.values()) socket.disconnect(true);
        (io.engine as { close(): void } | undefined)?.close();
        await Promise.race([io.of('/').adapter.close(), new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
        await Promise.all(clients.map((client) => closeRedis(client)));
      })();
      return closing;
    },
  };
}

/** Serves the socket endpoint on the app's HTTP server (main.ts, tests); nothing when SOCKET_URL names another host. */
export function attachLiveSessions(server: http.Server, liveSessions: LiveSessions, config: Pick<Config, 'SOCKET_URL'>): void {
  if (config.SOCKET_URL) return;
  liveSessions.io.attach(server);
  // Each connection would keep its upgrade request (headers, parser state) for its whole life: dropped
  // once the handshake has read it, as Socket.IO's memory guide advises (README, "Live sessions").
  liveSessions.io.engine.on('connection', (raw: { request: unknown }) => void (raw.request = null));
}
