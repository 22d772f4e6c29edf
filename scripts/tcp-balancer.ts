// A small TCP load balancer for loopback: each incoming connection goes to the next target in turn
// (round robin), or to the following one when a target refuses. It forwards bytes only, so HTTP
// keep-alive and WebSocket upgrades pass untouched (the sockets are WebSocket-only: no stickiness
// needed). Used by `npm run start:cluster` and the scale-out tests; a real deployment has its own.
import net from 'node:net';

export type Target = { host: string; port: number };
export type Balancer = { url: string; port: number; targets: Target[]; close(): Promise<void> };

/** `http://127.0.0.1:3001` → { host, port } */
export function targetOf(url: string): Target {
  const parsed = new URL(url);
  return { host: parsed.hostname, port: Number(parsed.port) };
}

export async function startBalancer(options: { port?: number; host?: string; targets: Target[] }): Promise<Balancer> {
  const targets = options.targets;
  const open = new Set<net.Socket>();
  let next = 0;
  const server = net.createServer((client) => {
    open.add(client);
    client.on('close', () => open.delete(client));
    client.pause();
    const first = next;
    next = (next + 1) % Math.max(1, targets.length);
    const tryTarget = (tried: number) => {
      if (tried >= targets.length || client.destroyed) return void client.destroy();
      const target = targets[(first + tried) % targets.length]!;
      const upstream = net.connect(target.port, target.host);
      let connected = false;
      upstream.once('error', () => {
        if (!connected) tryTarget(tried + 1);
      });
      upstream.once('connect', () => {
        connected = true;
        open.add(upstream);
        upstream.on('close', () => open.delete(upstream));
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
        client.pipe(upstream).pipe(client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
        client.resume();
      });
    };
    tryTarget(0);
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    targets,
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
