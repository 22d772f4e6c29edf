/**
 * Admission control (issue #17 item 7): at most `MAX_IN_FLIGHT` requests are worked on at once; the
 * next ones wait in line, first come first served, for at most `QUEUE_TIMEOUT_MS`. One still waiting
 * then is answered at once with 503 and `Retry-After`, in the caller's language, instead of joining a
 * backlog where every request gets slower and the last wait many seconds. The connection cap
 * (MAX_CONNECTIONS, server/main.ts) bounds how many can wait at all.
 *
 * Mounted after the static files and the health probes: those are cheap, and a probe must answer under load.
 */
import type { Request, RequestHandler, Response } from 'express';
import { ERROR_CODES } from '../../core/errors.ts';

export type AdmissionSettings = { maxInFlight: number; queueTimeoutMs: number };

/** Seconds a refused client is told to wait: the line usually clears within one. */
const RETRY_AFTER_SECONDS = 1;

type Waiting = { admit(): void; timer: NodeJS.Timeout };

export function admissionControl(settings: AdmissionSettings, refuse: (req: Request, res: Response) => void): RequestHandler {
  let inFlight = 0;
  const line: Waiting[] = [];

  const release = () => {
    const next = line.shift();
    if (next) {
      clearTimeout(next.timer);
      next.admit(); // the slot passes straight to the first in line
    } else inFlight -= 1;
  };

  return (req, res, next) => {
    const start = () => {
      // 'close' comes for every response, finished or aborted; the slot is given back once.
      let released = false;
      res.once('close', () => {
        if (released) return;
        released = true;
        release();
      });
      next();
    };
    if (inFlight < settings.maxInFlight) {
      inFlight += 1;
      return start();
    }
    const waiting: Waiting = {
      admit: start,
      timer: setTimeout(() => {
        line.splice(line.indexOf(waiting), 1);
        res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
        refuse(req, res);
      }, settings.queueTimeoutMs),
    };
    // A client that gave up while waiting leaves the line.
    res.once('close', () => {
      const at = line.indexOf(waiting);
      if (at < 0) return;
      clearTimeout(waiting.timer);
      line.splice(at, 1);
    });
    line.push(waiting);
  };
}

/**
 * The refusal, as cheap as it can be while still ours and translated: JSON for integrators, else a
 * minimal page (no React render: the instance is already past what it can take).
 */
export function refuseOverloaded(req: Request, res: Response): void {
  const title = req.t('overload.title');
  const message = req.t('overload.message');
  res.status(503).set('Cache-Control', 'no-store');
  if (req.accepts(['html', 'json']) === 'json') {
    res.json({ code: ERROR_CODES.overloaded, message, meta: { retryAfterSeconds: RETRY_AFTER_SECONDS } });
    return;
  }
  const escape = (text: string) => text.replace(/[&<>"]/g, (char) => `&#${char.charCodeAt(0)};`);
  res
    .type('html')
    .send(
      `<!doctype html><html lang="${escape(req.language ?? 'en')}"><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(title)}</title><h1>${escape(title)}</h1><p>${escape(message)}</p></html>`,
    );
}
