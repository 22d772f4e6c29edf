import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { createElement } from 'react';
import { CrashPage } from '../views/pages/CrashPage.tsx';
import { NotFoundPage } from '../views/pages/NotFoundPage.tsx';
import { RequestErrorPage } from '../views/pages/RequestErrorPage.tsx';
import { AppError, ERROR_CODES } from '../core/errors.ts';
import { wantsJson } from './flows/respond.ts';
import { LOG_REASONS } from './log-reasons.ts';
import { renderPage } from './render.tsx';
import { translator } from './request-context.ts';

// Client errors by status: the JSON `code` and the locale section holding `title` and `text`.
// Body parsers raise 400 (malformed), 413 (too large) and 415 (unsupported charset or encoding).
const CLIENT_ERRORS: Record<number, { code: string; messageKey: string }> = {
  400: { code: ERROR_CODES.badRequest, messageKey: 'httpError.badRequest' },
  403: { code: ERROR_CODES.forbidden, messageKey: 'httpError.forbidden' },
  404: { code: ERROR_CODES.notFound, messageKey: 'notFound' },
  405: { code: ERROR_CODES.methodNotAllowed, messageKey: 'httpError.badRequest' },
  413: { code: ERROR_CODES.payloadTooLarge, messageKey: 'httpError.payloadTooLarge' },
  415: { code: ERROR_CODES.unsupportedMediaType, messageKey: 'httpError.unsupportedMediaType' },
  429: { code: ERROR_CODES.tooManyRequests, messageKey: 'httpError.tooManyRequests' },
  // An upstream the page needs cannot be reached in time (AppError 503, e.g. `identity_unavailable`).
  503: { code: 'service_unavailable', messageKey: 'httpError.identityUnavailable' },
};

/** Seconds a client is told to wait after a 503. */
const RETRY_AFTER_SECONDS = '5';

function statusOf(error: unknown): number {
  const candidate = (error as { status?: unknown; statusCode?: unknown } | null)?.status ?? (error as { statusCode?: unknown } | null)?.statusCode;
  if (candidate === 503 && error instanceof AppError) return 503;
  return typeof candidate === 'number' && candidate >= 400 && candidate < 500 ? candidate : 500;
}

function answer(req: Request, res: Response, status: number, code: string, messageKey: string): void {
  const t = translator(req);
  const requestId = String(req.id ?? '');
  res.set('Cache-Control', 'no-store');
  if (status === 503) res.set('Retry-After', RETRY_AFTER_SECONDS);
  if (wantsJson(req)) {
    const textKey = status === 500 ? 'crash.text' : `${messageKey}.text`;
    res.status(status).json({ code, message: t(textKey), meta: { requestId } });
    return;
  }
  if (status === 500) return renderPage(req, res, createElement(CrashPage), { title: t('crash.title'), status });
  if (status === 404) return renderPage(req, res, createElement(NotFoundPage), { title: t('notFound.title'), status });
  renderPage(req, res, createElement(RequestErrorPage, { messageKey }), { title: t(`${messageKey}.title`), status });
}

// The outages of the identity and OAuth2 services: logged with reason ORY_EXCEPTION.
const ORY_OUTAGES = new Set<string>([ERROR_CODES.identityUnavailable, ERROR_CODES.oauth2Unavailable]);

/** Unknown paths: the 404 page (or a JSON 404). */
export const notFound: RequestHandler = (req, res) => answer(req, res, 404, ERROR_CODES.notFound, 'notFound');

/**
 * pino-http's fields for a request that failed: a crash (the error the responder below handed over in
 * `res.err`) also says so in `reason`. Other failures are not crashes: a response cut short keeps its
 * error; a 5xx we answered on purpose (a 503: an outage, a service not configured) loses the error
 * pino-http makes up for it, whose stack only shows pino-http's own code (the responder has logged why).
 */
export function failedRequestFields(_req: IncomingMessage, res: ServerResponse, error: Error, fields: Record<string, unknown>): Record<string, unknown> {
  if ((res as ServerResponse & { err?: unknown }).err !== undefined) return { ...fields, reason: LOG_REASONS.crash };
  if (error.message !== `failed with status code ${res.statusCode}`) return fields;
  const { err: _madeUp, ...rest } = fields;
  return rest;
}

/**
 * The last middleware. Client errors (our httpError, body-parser and router errors) get their own
 * status and a translated explanation; anything else is logged with its stack and answered with the
 * crash screen, which shows the request id but never the error itself.
 */
export const errorResponder: ErrorRequestHandler = (error, req, res, _next) => {
  const status = statusOf(error);
  // pino-http writes the request's one log line, with this error and its stack, when it finishes.
  if (status === 500) (res as Response & { err?: unknown }).err = error;
  else if (status === 503)
    req.log?.warn(
      {
        status,
        code: (error as AppError).code,
        reason: ORY_OUTAGES.has((error as AppError).code) ? LOG_REASONS.ory : undefined,
        cause: (error as AppError).meta?.reason,
      },
      String((error as Error).message),
    );
  else req.log?.info({ status, cause: (error as { type?: string }).type ?? (error as Partial<AppError>).code }, 'client error');
  // A response already under way cannot become an error page: cut it so the client sees it failed.
  if (res.headersSent) return void res.destroy();
  try {
    const own = error instanceof AppError ? error : undefined;
    const known = CLIENT_ERRORS[status] ?? CLIENT_ERRORS[400]!;
    const code = status === 500 ? ERROR_CODES.internal : (own?.messageKey || status === 503 ? own?.code : undefined) || known.code;
    answer(req, res, status, code, own?.messageKey ?? known.messageKey);
  } catch (renderError) {
    // The error page itself failed: still answer, plainly, rather than leave the request hanging.
    req.log?.error({ err: renderError }, 'error page failed to render');
    if (!res.headersSent)
      res
        .status(status)
        .type('text')
        .send(status === 500 ? 'Internal Server Error' : status === 503 ? 'Service Unavailable' : 'Bad Request');
    else res.destroy();
  }
};
