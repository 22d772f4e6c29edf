// The record of the calls the backend stand-in received under /api/auth and /api/user (spec §7), so tests
// and people trying the product can see which calls the app made and how they were answered. Kept in
// memory, newest last, bounded; read through GET /api/admin/calls (admin key). Never holds a body, a
// query or a header: a call is its method, path, status and time.
import type { RequestHandler } from 'express';
import type { Clock } from '../clock.ts';

export interface CallRecord {
  method: string;
  /** The path under /api/, without the query: `auth/sign-up`. */
  path: string;
  status: number;
  at: string;
}

const KEPT = 1000;
const RECORDED = /^\/api\/((?:auth|user)\/[^?]*)/;

export class CallLog {
  private records: CallRecord[] = [];

  add(record: CallRecord): void {
    this.records.push(record);
    if (this.records.length > KEPT) this.records.splice(0, this.records.length - KEPT);
  }

  /** Oldest first; only those of `path` when given. */
  list(path?: string): CallRecord[] {
    return path ? this.records.filter((r) => r.path === path) : [...this.records];
  }
}

/** Records each call once it is answered (or abandoned), with the status it got. */
export function recordCalls(log: CallLog, clock: Clock): RequestHandler {
  return (req, res, next) => {
    const match = RECORDED.exec(req.originalUrl);
    if (match) {
      res.on('close', () => log.add({ method: req.method, path: match[1]!, status: res.statusCode, at: new Date(clock.now()).toISOString() }));
    }
    next();
  };
}
