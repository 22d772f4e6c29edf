// Helpers of the live-session tests: the socket URL, a browser's token, a raw protocol client.
import type { Browser } from '../../support/fixtures.ts';

export const socketUrl = (appUrl: string) => `${appUrl.replace(/^http/, 'ws')}/socket.io/?EIO=4&transport=websocket`;

/** What the island fetches: the browser's authorization token, or null when it is signed out. */
export async function tokenOf(appUrl: string, browser: Pick<Browser, 'cookieHeader'>): Promise<string | null> {
  const answer = await fetch(`${appUrl}/live-session/token`, { headers: { cookie: browser.cookieHeader(), accept: 'application/json' } });
  if (answer.status === 401) return null;
  if (!answer.ok) throw new Error(`token: ${answer.status}`);
  return ((await answer.json()) as { token: string }).token;
}

/** Polls a condition (every 20 ms) until it holds, or fails after `timeoutMs`. */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error(`condition not met within ${timeoutMs} ms: ${condition.toString().slice(0, 120)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A WebSocket speaking the frames by hand: `next(match)` resolves with the first matching frame (past or future). */
export async function openRaw(appUrl: string) {
  const ws = new WebSocket(socketUrl(appUrl));
  const frames: string[] = [];
  const waiting: Array<{ match: (frame: string) => boolean; resolve: (frame: string) => void }> = [];
  const closed = new Promise<void>((resolve) => ws.addEventListener('close', () => resolve()));
  ws.addEventListener('message', (event) => {
    const frame = String(event.data);
    if (frame === '2') return ws.send('3');
    const index = waiting.findIndex((entry) => entry.match(frame));
    if (index >= 0) waiting.splice(index, 1)[0]!.resolve(frame);
    else frames.push(frame);
  });
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve());
    ws.addEventListener('error', () => reject(new Error('websocket did not open')));
  });
  return {
    send: (frame: string) => ws.send(frame),
    close: () => ws.close(),
    closed,
    next(match: (frame: string) => boolean, timeoutMs = 5_000): Promise<string> {
      const index = frames.findIndex(match);
      if (index >= 0) return Promise.resolve(frames.splice(index, 1)[0]!);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no matching frame')), timeoutMs);
        waiting.push({ match, resolve: (frame) => (clearTimeout(timer), resolve(frame)) });
      });
    },
  };
}
