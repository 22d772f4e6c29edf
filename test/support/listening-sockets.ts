import { readFileSync } from 'node:fs';

/** The sockets listening on `port` at 127.0.0.1, from the kernel's table (Linux; state 0A is LISTEN). */
export function listenersOn(port: number): Array<{ notYetAccepted: number }> {
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields[1] === local && fields[3] === '0A')
    .map((fields) => ({ notYetAccepted: parseInt(fields[4]!.split(':')[1]!, 16) })); // a listener's rx_queue: its accept queue
}

/** Connections the kernel completed on `port` that no listening socket has handed to the app yet. */
export const notYetAccepted = (port: number): number => listenersOn(port).reduce((sum, listener) => sum + listener.notYetAccepted, 0);
