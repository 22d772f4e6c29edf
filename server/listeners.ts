import type http from 'node:http';
import net from 'node:net';

/**
 * libuv takes one new connection per listening socket per event-loop turn (libuv PR #3696 of 2022; Node 20
 * and 24 alike). Saturated, the loop turns a few dozen times a second, so a burst of connections waits in the
 * kernel's accept queue for seconds while the app has no sight of it (decision 242). Several sockets
 * listening on the same port with SO_REUSEPORT each take one per turn, and the kernel spreads new
 * connections over them; every socket they take is handed to the one HTTP server, as if it had taken it.
 */
export type ListenOptions = {
  port: number;
  host: string;
  backlog: number;
  /** Listening sockets in all; 1 listens as Node does by default. */
  sockets: number;
  /** Whether one more connection would pass the process's cap: it is closed at once. */
  full: () => boolean;
};

export type Listening = {
  /** Stops accepting on every socket; open connections stay. */
  stop(done: () => void): void;
};

/** SO_REUSEPORT spreads connections over the sockets on Linux only; elsewhere one socket is all that helps. */
export function listeningSockets(wanted: number, platform: NodeJS.Platform = process.platform): number {
  return platform === 'linux' ? wanted : 1;
}

/**
 * Listens on `options.port`; 'listening' and 'error' come on `server` as with server.listen. A port
 * another process holds fails with EADDRINUSE, even one of ours listening with SO_REUSEPORT: a second
 * copy started by mistake must not silently take half the connections.
 */
export function listen(server: http.Server, options: ListenOptions): Listening {
  const count = listeningSockets(options.sockets);
  // Every socket listen() was called on, bound or still binding.
  const started: net.Server[] = [];
  let stopped = false;
  if (count === 1) {
    server.listen({ port: options.port, host: options.host, backlog: options.backlog });
    started.push(server);
  } else {
    // A plain socket binds only a free port (and resolves port 0); it is closed before the group binds it.
    const probe = net.createServer();
    probe.once('error', (error) => server.emit('error', error));
    probe.listen({ port: options.port, host: options.host }, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : options.port;
      probe.close(() => {
        if (stopped) return;
        server.listen({ port, host: options.host, backlog: options.backlog, reusePort: true });
        started.push(server);
        for (let index = 1; index < count; index += 1) {
          // noDelay as http.createServer sets it: a handed-over socket was configured by this listener.
          const extra = net.createServer({ noDelay: true }, (socket) => {
            if (options.full()) socket.destroy();
            else server.emit('connection', socket);
          });
          extra.on('error', (error) => server.emit('error', error));
          extra.listen({ port, host: options.host, backlog: options.backlog, reusePort: true });
          started.push(extra);
        }
      });
    });
  }
  return {
    stop(done) {
      stopped = true;
      let open = started.length;
      if (open === 0) return done();
      const closed = () => {
        open -= 1;
        if (open === 0) done();
      };
      // net.Server#close, not http.Server#close: the latter would also close idle connections at once.
      const close = (listener: net.Server) => net.Server.prototype.close.call(listener, closed);
      for (const listener of started) {
        if (listener.listening) close(listener);
        else listener.once('listening', () => close(listener));
      }
    },
  };
}
