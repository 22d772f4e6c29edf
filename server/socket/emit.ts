import type { Request } from 'express';
import type { AppLocals } from '../locals.ts';
import type { LiveSessions } from './live-sessions.ts';

/** The app's live-session channel, for routes that send `force-reload` (sign-out, password change, deletion). */
export function liveSessionsOf(req: Request): LiveSessions {
  return (req.app.locals as AppLocals).liveSessions;
}
