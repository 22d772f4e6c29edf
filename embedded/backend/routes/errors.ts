// The answers no handler gives: OPTIONS and 405 on known paths, 404 elsewhere, and every thrown error
// turned into the JSON shape `{ code, message, meta? }`.
import type { ErrorRequestHandler, Express, RequestHandler } from 'express';
import { ApiError } from '../errors.ts';
import type { Logger } from '../options.ts';
import type { Route } from './route.ts';

/** `Allow` for each known path, OPTIONS answered 204 and any other method 405 method_not_allowed. */
export function mountMethodAnswers(app: Express, routes: readonly Route[]): void {
  const allowed = new Map<string, Set<string>>();
  for (const r of routes) {
    const set = allowed.get(r.path) ?? new Set<string>();
    set.add(r.method.toUpperCase());
    if (r.method === 'get') set.add('HEAD');
    allowed.set(r.path, set);
  }
  for (const [path, methods] of allowed) {
    const allow = [...methods, 'OPTIONS'].join(', ');
    app.options(path, (_req, res) => {
      res.setHeader('Allow', allow);
      res.status(204).end();
    });
    app.all(path, (req, res) => {
      if (req.readable) req.resume();
      res.setHeader('Allow', allow);
      res.status(405).json({ code: 'method_not_allowed', message: `${req.method} is not allowed here`, meta: { allow: [...methods] } });
    });
  }
}

export const notFound: RequestHandler = (req, res) => {
  if (req.readable) req.resume();
  res.status(404).json({ code: 'not_found', message: 'No such route' });
};

/** Body-parser failures keep their 4xx status with a code of ours; anything unexpected is a logged 500. */
function clientErrorCode(type: string | undefined): string {
  if (type === 'entity.parse.failed') return 'invalid_json';
  if (type === 'entity.too.large') return 'payload_too_large';
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') return 'unsupported_encoding';
  return 'bad_request';
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    if (res.headersSent) {
      res.end();
      return;
    }
    if (err instanceof ApiError) {
      if (err.headers) for (const [k, v] of Object.entries(err.headers)) res.setHeader(k, v);
      const body: Record<string, unknown> = { code: err.code, message: err.message };
      if (err.meta) body.meta = err.meta;
      res.status(err.status).json(body);
      return;
    }
    const e = err as { status?: number; statusCode?: number; type?: string };
    const status = e.status ?? e.statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      const code = clientErrorCode(e.type);
      if (req.readable) req.resume();
      res.status(status).json({ code, message: code === 'invalid_json' ? 'The request body is not valid JSON' : 'The request could not be read' });
      return;
    }
    logger.error({ err }, 'unhandled error');
    res.status(500).json({ code: 'internal_error', message: 'Something went wrong' });
  };
}
