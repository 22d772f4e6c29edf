// After auth/force-log-out the product's open pages must learn that their session is over: the
// stand-in tells the accounts app, which sends `force-reload` to the user's sockets on every instance
// (POST <app>/internal/force-reload, bearer secret shared with the app; the app's decision 160).
// Best effort with a 2 s deadline: the sessions are revoked either way.
import type { Logger } from './options.ts';

export type ForceReloadTarget = { url: string; secret: string };

export async function notifyForceReload(target: ForceReloadTarget | null | undefined, identityId: string, logger: Logger): Promise<void> {
  if (!target) return;
  try {
    const answer = await fetch(target.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${target.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ identityId, reason: 'force-log-out' }),
      signal: AbortSignal.timeout(2_000),
    });
    if (!answer.ok) logger.warn({ status: answer.status }, 'force-reload notification refused');
  } catch (error) {
    logger.warn({ reason: (error as Error).name }, 'force-reload notification failed');
  }
}
