/**
 * The live-session channel (spec §4, §7, §9): one Socket.IO namespace over WebSocket only. The events,
 * the path and the reconnection numbers, shared by the server (server/socket/) and the island
 * (client/islands/socket.ts). Plain constants, so the island's bundle inlines the few it uses.
 * Decision: docs/decisions/160-live-sessions-and-scale-out.md.
 */

/** Where the app's own socket endpoint listens (Socket.IO's default path). */
export const SOCKET_PATH = '/socket.io/';

/** client → server, first: `{ authorization: <tokenizer JWT> }`. */
export const EVENT_INIT = 'init';
/** server → client: the token was verified. */
export const EVENT_AUTHENTICATED = 'authenticated';
/** server → client, then the connection is closed: the token was refused (`{ code }`). */
export const EVENT_UNAUTHORIZED = 'unauthorized';
/** client → server after `authenticated`: join the user's room. */
export const EVENT_JOIN = 'join';
/** server → client in the user's room: the session changed elsewhere; show the session-changed dialog. */
export const EVENT_FORCE_RELOAD = 'force-reload';

// Spec §9 (they are socket.io-client's defaults): backoff 1000 ms doubling up to 5000 ms, ±50 %, 20 s to connect, no attempt limit.
export const RECONNECT_DELAY_MS = 1_000;
export const RECONNECT_DELAY_MAX_MS = 5_000;
export const RECONNECT_RANDOMIZATION = 0.5;
export const CONNECT_TIMEOUT_MS = 20_000;

/** A socket that has not sent a valid `init` by then is closed. */
export const SOCKET_AUTH_DEADLINE_MS = 10_000;

/** Room names: every socket of one identity, and every socket of one identity session (one browser). */
export const userRoom = (identityId: string) => `user:${identityId}`;
export const sessionRoom = (sessionId: string) => `session:${sessionId}`;
