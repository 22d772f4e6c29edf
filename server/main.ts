import http from 'node:http';
import type { Socket } from 'node:net';
import { createApp } from './app.ts';
import { attachLiveSessions } from './socket/live-sessions.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import type { AppLocals } from './locals.ts';
import { listen } from './listeners.ts';
import { createLogger } from './logger.ts';
import { nodeVersionProblem } from './node-version.ts';

// More stray exceptions than this within a minute means the process is broken, not one bad
// request: exit non-zero and let the supervisor start a fresh one.
const STRAY_ERROR_BUDGET = 20;

/**
 * While draining, a connection with no request for this long (counted from when the app stopped
 * accepting, at the earliest) is closed: its client had time to send one on it.
 */
const DRAIN_IDLE_MS = 1_000;

/**
 * Open connections and whether each is idle (no request in progress) and since when. Near the cap
 * (90 %), idle kept-alive connections are closed to make room for new ones; while draining,
 * `closeIdle(ms)` closes those idle for at least `ms`.
 */
function trackConnections(server: http.Server, max: number) {
  const state = new Map<Socket, { active: number; idleSince: number }>();
  let onEmpty: (() => void) | undefined;
  server.on('connection', (socket: Socket) => {
    // server.maxConnections counts only what the first listening socket took; this counts them all.
    if (state.size >= max) {
      socket.destroy();
      return;
    }
    state.set(socket, { active: 0, idleSince: Date.now() });
    socket.on('close', () => {
      state.delete(socket);
      if (state.size === 0) onEmpty?.();
    });
    if (state.size >= Math.ceil(max * 0.9)) server.closeIdleConnections();
  });
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const entry = state.get(req.socket);
    if (!entry) return;
    entry.active += 1;
    res.on('close', () => {
      entry.active -= 1;
      entry.idleSince = Date.now();
    });
  });
  return {
    closeIdle(ms: number, since: number) {
      const now = Date.now();
      for (const [socket, entry] of state) if (entry.active === 0 && now - Math.max(entry.idleSince, since) >= ms) socket.destroy();
    },
    full: () => state.size >= max,
    allClosed: () => new Promise<void>((resolve) => (state.size === 0 ? resolve() : (onEmpty = resolve))),
  };
}

function readConfig(): Config {
  try {
    return loadConfig(process.env);
  } catch (error) {
    // One clear line, no stack: the message already names the variable.
    process.stderr.write(`${error instanceof ConfigError ? error.message : String(error)}\n`);
    process.exit(1);
  }
}

async function main() {
  const nodeProblem = nodeVersionProblem(process.version);
  if (nodeProblem) {
    process.stderr.write(`${nodeProblem}\n`);
    process.exit(1);
  }
  const config = readConfig();
  const logger = createLogger(config.LOG_LEVEL);

  // Express 5 turns errors of handlers (sync and async) into the crash page. These catch what
  // escapes a request entirely (a throw in a timer or an event listener): log it and keep serving,
  // so one bad request cannot take the process down.
  let strayErrors: number[] = [];
  const onStray = (kind: string) => (error: unknown) => {
    const now = Date.now();
    strayErrors = [...strayErrors.filter((at) => now - at < 60_000), now];
    logger.error({ err: error, kind }, 'error outside any request');
    if (strayErrors.length > STRAY_ERROR_BUDGET) {
      logger.fatal('too many errors outside requests: exiting');
      process.exit(1);
    }
  };
  process.on('uncaughtException', onStray('uncaughtException'));
  process.on('unhandledRejection', onStray('unhandledRejection'));

  const app = await createApp(config, logger);
  const locals = app.locals as AppLocals;
  // Once shutdown has begun every answer, static files included, closes its connection after it, so
  // keep-alive clients leave on their own instead of having an idle connection closed under them.
  // Timeouts are enforced by a periodic check (30 s by default): often enough for a 10 s header limit.
  const server = http.createServer({ connectionsCheckingInterval: 1_000 }, (req, res) => {
    if (locals.shuttingDown) res.shouldKeepAlive = false;
    app(req, res);
  });
  // Limits fit for a sign-in page (README, "Operations"): slow headers and bodies are cut, idle
  // connections go, and one process holds a bounded number of connections.
  server.headersTimeout = config.HEADERS_TIMEOUT_MS;
  server.requestTimeout = config.REQUEST_TIMEOUT_MS;
  server.keepAliveTimeout = config.KEEP_ALIVE_TIMEOUT_MS;
  server.maxConnections = config.MAX_CONNECTIONS;
  const connections = trackConnections(server, config.MAX_CONNECTIONS);
  // The live-session socket shares this server (WebSocket upgrades on /socket.io/); when draining, its
  // connections are closed like idle ones and the clients reconnect to another instance.
  attachLiveSessions(server, locals.liveSessions, config);
  // Node's default listen backlog (511) overflows when a burst of connections arrives while the one event
  // loop is busy: the kernel drops their SYNs and clients retry after 1, 3, 7 s (seen at 1,000 connections in
  // `npm run bench`). Room for every connection we accept; the kernel caps it at net.core.somaxconn.
  // LISTEN_SOCKETS sockets share the port so that a busy loop still takes a burst quickly (decision 242).
  const listening = listen(server, {
    port: config.PORT,
    host: config.HOST,
    backlog: config.MAX_CONNECTIONS,
    sockets: config.LISTEN_SOCKETS,
    full: connections.full,
  });
  server.on('error', (error) => {
    process.stderr.write(`accounts cannot listen on ${config.HOST}:${config.PORT}: ${error.message}\n`);
    process.exit(1);
  });
  server.on('listening', () => {
    const address = server.address();
    logger.info({ port: typeof address === 'object' && address ? address.port : config.PORT }, 'accounts listening');
  });

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    locals.shuttingDown = true;
    logger.info({ signal }, 'shutting down: readiness is 503, finishing in-flight requests');
    const deadline = setTimeout(() => {
      logger.warn('shutdown timeout: closing the remaining connections');
      server.closeAllConnections();
      // Should a shutdown hook hang after that, leave anyway.
      setTimeout(() => process.exit(0), 1_000).unref();
    }, config.SHUTDOWN_DELAY_MS + config.SHUTDOWN_TIMEOUT_MS);
    deadline.unref();

    // Optional grace period for load balancers to notice readiness before we stop accepting.
    if (config.SHUTDOWN_DELAY_MS > 0) await new Promise((resolve) => setTimeout(resolve, config.SHUTDOWN_DELAY_MS));

    // Stop accepting, but do not yet close idle connections as http.Server#close does: a connection
    // accepted a moment ago may be about to carry its first request. Every answer from now on says
    // `Connection: close`; connections idle for DRAIN_IDLE_MS are closed, then the process ends once
    // none is left.
    const closed = new Promise<void>((resolve) => listening.stop(resolve));
    const stoppedAt = Date.now();
    const sweeper = setInterval(() => connections.closeIdle(DRAIN_IDLE_MS, stoppedAt), 50);
    await closed;
    await connections.allClosed();
    clearInterval(sweeper);
    for (const hook of locals.onShutdown) {
      await hook().catch((error: unknown) => logger.warn({ err: error }, 'shutdown hook failed'));
    }
    logger.info('shutdown complete');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`accounts failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
